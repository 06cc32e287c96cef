"""The loop: the two rules, the exit condition, and every stop reason."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness_lib import (
    STRICT_POLICY,
    ApiError,
    Limits,
    MockModel,
    ReplayModel,
    assistant,
    check_conversation,
    run,
    tool_call,
    workspace_tools,
)
from harness_lib.course.missions.tasks import PRICE_TASK, README_TASK, WAIT_TASK, example_workspace
from harness_lib.policy import auto_approve, auto_refuse
from harness_lib.trace import Event, waits_after


@pytest.fixture
def mini():
    return workspace_tools(example_workspace("mini"))


def test_two_turns_follow_the_chapter(mini):
    result = run(README_TASK, MockModel(), mini)
    roles = [m["role"] for m in result.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    call = result.messages[2]["tool_calls"][0]
    assert result.messages[2]["content"] is None
    assert (call["id"], call["function"]["name"]) == ("call_1", "read_file")
    assert result.messages[3]["tool_call_id"] == "call_1"
    assert result.messages[3]["content"].startswith("# Mini harness")
    assert result.reason == "answer" and "Mini harness" in result.answer
    assert check_conversation(result.messages) == []


def test_every_call_of_a_turn_gets_its_result_in_order(tmp_path):
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text(f"# {name}\ncontenu de {name}\n", encoding="utf-8")
    result = run("Lis a.txt, b.txt et c.txt", MockModel(), workspace_tools(tmp_path))
    calls = result.messages[2]["tool_calls"]
    results = result.messages[3:6]
    assert [c["id"] for c in calls] == [r["tool_call_id"] for r in results]
    assert [r["role"] for r in results] == ["tool"] * 3
    assert "contenu de c.txt" in result.answer


def test_trace_events_and_ledger(mini):
    seen = []
    result = run(README_TASK, MockModel(), mini, on_event=seen.append)
    kinds = [e.kind for e in result.trace.events]
    assert kinds == [
        "task",
        "request",
        "reply",
        "permission",
        "tool_call",
        "tool_result",
        "request",
        "reply",
        "answer",
    ]
    assert seen == result.trace.events  # the listener saw every event, as it happened
    assert result.trace.messages == result.messages
    # the ledger only grows here, and the tool result is the heaviest entry
    totals = [sum(e.ledger.values()) for e in result.trace.events]
    assert totals == sorted(totals)
    assert result.trace.events[5].ledger["tool"] > result.trace.events[2].ledger["assistant"]


def test_price_mission_fixes_the_bug_and_runs_the_tests():
    folder = example_workspace("prix")
    result = run(PRICE_TASK, MockModel(), workspace_tools(folder))
    assert result.reason == "answer"
    names = [c["function"]["name"] for m in result.messages for c in m.get("tool_calls") or []]
    assert names == ["read_file", "edit_file", "bash"]
    assert "abs(cents)" in (folder / "price.py").read_text(encoding="utf-8")
    assert result.answer.endswith("Tests : 5 tests réussis")
    assert "[code de sortie : 0]" in result.messages[-2]["content"]


def test_max_turns_stops_with_the_chapter_message():
    result = run(WAIT_TASK, MockModel(), workspace_tools(example_workspace("attente")))
    assert (result.reason, result.message) == (
        "max_turns",
        "Arrêt propre: maximum de 15 tours dépassé.",
    )
    assert sum(1 for e in result.trace.events if e.kind == "request") == 15
    assert check_conversation(result.messages) == []  # nothing lost, still a valid conversation


def test_max_turns_message_follows_the_limit():
    result = run(
        WAIT_TASK,
        MockModel(),
        workspace_tools(example_workspace("attente")),
        limits=Limits(max_turns=3),
    )
    assert result.message == "Arrêt propre: maximum de 3 tours dépassé."


def test_token_budget_stops_before_the_call_that_would_exceed_it(mini):
    result = run(WAIT_TASK, MockModel(), mini, limits=Limits(max_tokens=2000))
    assert result.reason == "budget" and "2 000 tokens" in result.message
    billed = sum(e.data["usage"]["total_tokens"] for e in result.trace.events if e.kind == "reply")
    assert billed <= 2000


def test_cost_budget(mini):
    result = run(WAIT_TASK, MockModel(price=(1000.0, 1000.0)), mini, limits=Limits(max_cost=0.5))
    assert result.reason == "budget" and "budget de 0,5 dollar atteint" in result.message
    assert "$" not in result.message  # « $ … $ » would be read as maths in Markdown


def test_model_timeout_is_a_clean_stop(mini):
    result = run(README_TASK, MockModel(latency=0.2), mini, limits=Limits(model_timeout=0.01))
    assert result.reason == "timeout" and "0,01 s" in result.message
    assert [m["role"] for m in result.messages] == ["system", "user"]


def test_tool_timeout_stops_after_recording_the_result(tmp_path):
    result = run(
        "Lance `sleep 5`", MockModel(), workspace_tools(tmp_path), limits=Limits(tool_timeout=0.2)
    )
    assert result.reason == "timeout" and "bash" in result.message
    assert result.messages[-1]["role"] == "tool" and "délai" in result.messages[-1]["content"]
    assert check_conversation(result.messages) == []


def test_forbidden_action_is_not_executed(tmp_path):
    result = run("Lance `rm -rf /`", MockModel(), workspace_tools(tmp_path))
    assert result.reason == "denied"
    assert result.messages[-1]["content"].startswith("Refusé")
    assert not any(e.kind == "tool_call" for e in result.trace.events)


def test_repeated_failures(tmp_path):
    result = run("Lance `python absent.py`", MockModel(), workspace_tools(tmp_path))
    assert result.reason == "failures" and "3 échecs" in result.message
    assert sum(1 for e in result.trace.events if e.kind == "tool_call") == 3


def test_human_validation(tmp_path):
    tools = workspace_tools(example_workspace("prix", tmp_path / "w"))
    stopped = run(PRICE_TASK, MockModel(), tools, policy=STRICT_POLICY)
    assert stopped.reason == "human" and "edit_file" in stopped.message
    refused = run(PRICE_TASK, MockModel(), tools, policy=STRICT_POLICY, approver=auto_refuse)
    assert "n’a pas autorisé" in refused.messages[5]["content"]
    approved = run(PRICE_TASK, MockModel(), tools, policy=STRICT_POLICY, approver=auto_approve)
    assert approved.reason == "answer"


class Refusing:
    name = "refus"
    price = None

    def complete(self, messages, tools, timeout=120.0):
        raise ApiError(401, "No auth credentials found", explication="Clé invalide.")


def test_api_error_is_a_clean_stop(mini):
    result = run(README_TASK, Refusing(), mini)
    assert result.reason == "api_error" and "Clé invalide." in result.message
    assert result.trace.events[-1].kind == "stop"


def test_cut_answer_is_not_taken_as_final(mini):
    model = ReplayModel([assistant("Le projet est un harn")])
    model.complete = _with_reason(model.complete, "length")
    result = run(README_TASK, model, mini)
    assert result.reason == "length"


def _with_reason(complete, reason):
    def wrapped(*args, **kwargs):
        done = complete(*args, **kwargs)
        done.finish_reason = reason
        return done

    return wrapped


def test_a_broken_listener_does_not_lose_the_run(mini):
    def broken(event):
        raise RuntimeError("widget cassé")

    with pytest.warns(RuntimeWarning, match="widget cassé"):
        result = run(README_TASK, MockModel(), mini, on_event=broken)
    assert result.reason == "answer"


def test_unknown_tool_becomes_an_observation(mini):
    model = ReplayModel(
        [
            assistant(None, [tool_call("call_1", "delete_repo", {})]),
            assistant("Je n’ai pas cet outil."),
        ]
    )
    result = run(README_TASK, model, mini)
    assert "outil inconnu" in result.messages[3]["content"] and result.reason == "answer"


def test_running_ledger_equals_a_full_recount():
    from harness_lib.tokens import ledger

    result = run(WAIT_TASK, MockModel(), workspace_tools(example_workspace("attente")),
                 limits=Limits(max_turns=4))
    for k, event in enumerate(result.trace.events):
        assert event.ledger == ledger(result.trace.messages_at(k), result.trace.tools)


@pytest.mark.parametrize("task, policy, approver", [
    (PRICE_TASK, None, None),  # the model, then read_file, edit_file and bash
    (PRICE_TASK, STRICT_POLICY, auto_approve),  # a person says yes to each edit
    (PRICE_TASK, STRICT_POLICY, auto_refuse),  # ...or no
    (WAIT_TASK, None, None),  # polling until max_turns
])
def test_the_loop_waits_only_after_the_events_a_live_view_draws(task, policy, approver):
    """The live player draws only at trace.waits_after (and at the end): each time the
    loop hands over (to the model, a tool, a person), the last event must be one of those."""
    events: list[Event] = []
    seen: list[tuple[str, str]] = []  # who the loop waits for, after which event

    def waiting(what: str, function):
        def wrapper(*args, **kwargs):  # an assert here would become a tool's error
            seen.append((what, events[-1].kind if events and waits_after(events[-1]) else "?"))
            return function(*args, **kwargs)
        return wrapper

    model = MockModel()
    model.complete = waiting("model", model.complete)  # type: ignore[method-assign]
    folder = example_workspace("prix" if task == PRICE_TASK else "attente")
    tools = [replace(t, function=waiting(t.name, t.function)) for t in workspace_tools(folder)]
    extra = {"policy": policy, "approver": waiting("person", approver)} if policy else {}
    done = run(task, model, tools, limits=Limits(max_turns=4), on_event=events.append, **extra)
    assert all(after != "?" for _, after in seen), seen
    who = [what for what, _ in seen]
    assert who.count("model") >= 2 and len(who) > who.count("model")
    assert ("person" in who) == bool(policy) and done.trace.events == events
