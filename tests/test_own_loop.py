"""A hand-written loop run for real, and watched from outside: what it did, and what it forgot."""

from __future__ import annotations

from typing import Any

import pytest

from harness_lib import MockModel, check_conversation, run, workspace_tools
from harness_lib.course.drawing.run_notes import FORGOTTEN
from harness_lib.course.drawing.trace_diagram import from_trace
from harness_lib.course.missions.own_loop import reference_loop, watch, without
from harness_lib.course.missions.tasks import README_TASK, WAIT_TASK, example_workspace
from harness_lib.messages import read_call, system, tool_result, user
from harness_lib.tools import run_tool


def tools(name: str = "mini") -> list[Any]:
    return workspace_tools(example_workspace(name))


def test_the_reference_loop_leaves_the_trace_the_harness_would() -> None:
    """Same events, same messages, same context at each step as loop.run's own recorder."""
    mine = watch(reference_loop, README_TASK, tools())
    harness = run(README_TASK, MockModel(), tools())
    assert mine.run.reason == "answer" and mine.run.messages == harness.messages
    ours = [(e.kind, e.message, e.ledger) for e in mine.run.trace.events]
    theirs = [(e.kind, e.message, e.ledger) for e in harness.trace.events if e.kind != "permission"]
    assert ours == theirs
    assert len(from_trace(mine.run.trace).steps) == len(mine.run.trace.events)


def test_without_deletes_the_marked_line_and_its_block() -> None:
    broken = without("EXIT")
    watched = watch(broken, README_TASK, tools())
    assert watched.run.reason == "no_exit" and watched.calls == 2
    assert "réponse finale" in watched.run.message
    with pytest.raises(ValueError, match="aucune ligne marquée « # RULE 3 »"):
        without("RULE 3")


def test_a_loop_without_limit_is_cut_and_said_so() -> None:
    def forever(task: str, model: Any, tools: Any, max_turns: int) -> list[Any]:
        messages = [system("s"), user(task)]
        while True:  # no limit of turns
            reply = model.complete(messages, [t.schema() for t in tools])
            messages.append(reply.message)
            if not reply.tool_calls:
                return messages
            for call in reply.tool_calls:
                messages.append(tool_result(call["id"], run_tool(read_call(call), tools).content))

    watched = watch(forever, WAIT_TASK, tools("attente"), max_turns=4)
    assert watched.run.reason == "too_many_calls" and watched.calls == 12
    assert check_conversation(watched.run.messages) == []


def test_a_crash_in_the_loop_is_kept_not_raised() -> None:
    def typo(task: str, model: Any, tools: Any, max_turns: int) -> None:
        model.complete([user(task)], [])
        raise KeyError("tool_call")

    watched = watch(typo, README_TASK, tools())
    assert watched.run.reason == "exception" and isinstance(watched.crash, KeyError)
    assert watched.run.trace.events[-1].kind == "stop"


def test_a_result_under_a_wrong_id_is_drawn_with_that_id() -> None:
    def wrong_id(task: str, model: Any, tools: Any, max_turns: int) -> list[Any]:
        messages = [system("s"), user(task)]
        reply = model.complete(messages, [t.schema() for t in tools])
        messages.append(reply.message)
        seen = run_tool(read_call(reply.tool_calls[0]), tools)
        messages.append(tool_result("call_9", seen.content))
        model.complete(messages, [])
        return messages

    watched = watch(wrong_id, README_TASK, tools())
    assert "'call_9' not found" in watched.error.message
    result = next(e for e in watched.run.trace.events if e.kind == "tool_result")
    assert result.message["tool_call_id"] == "call_9"
    assert result.data["id"] == "call_1"  # the run it answers, found by its arguments


@pytest.mark.parametrize(("rule", "kind"), [("RULE 1", "reply"), ("RULE 2", "tool_result")])
def test_a_forgotten_message_is_not_narrated_as_appended(rule: str, kind: str) -> None:
    # The player's note of that arrow said « c'est la réponse finale » (a forgotten reply) or
    # « le résultat entre dans messages[] » (a forgotten result): the incidents of 07 showed both.
    watched = watch(without(rule), README_TASK, workspace_tools(example_workspace("mini")))
    diagram = from_trace(watched.run.trace)
    [step] = [s for s in diagram.steps if s.text.startswith("Jamais ajouté")]
    said = {"RULE 1": "il manque la règle 1", "RULE 2": "il manque la règle 2"}[rule]
    assert step.note == FORGOTTEN[kind] and said in step.note
    assert "réponse finale" not in step.note and "entre dans" not in step.note
