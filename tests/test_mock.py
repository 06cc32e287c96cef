"""MockModel: refuses what the API refuses, and decides from messages[] alone."""

from __future__ import annotations

import json
import time

import pytest

from harness_lib import (
    ApiError,
    MockModel,
    ModelTimeout,
    ReplayModel,
    assistant,
    run,
    system,
    tool_call,
    tool_result,
    user,
    workspace_tools,
)
from harness_lib.course.missions.tasks import PRICE_TASK, README_TASK, example_workspace
from harness_lib.mock.missions import find_files

TOOLS = [t.schema() for t in workspace_tools(example_workspace("mini"))]  # the four tools


def _args(reply):
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"])) for c in reply.tool_calls
    ]


def test_first_turn_asks_for_the_file():
    reply = MockModel().complete([system("s"), user(README_TASK)], TOOLS)
    assert _args(reply) == [("read_file", {"path": "README.md"})]
    assert reply.finish_reason == "tool_calls" and reply.message["content"] is None


def test_broken_conversation_is_refused_like_the_api():
    broken = [user(README_TASK), tool_result("call_1", "# Mini")]
    with pytest.raises(ApiError) as err:
        MockModel().complete(broken, TOOLS)
    assert err.value.status == 400
    assert err.value.body["error"]["type"] == "invalid_request_error"
    assert "preceeding message with 'tool_calls'" in err.value.message


def _after_read(content: str) -> list:
    return [
        user(README_TASK),
        assistant(None, [tool_call("call_1", "read_file", {"path": "README.md"})]),
        tool_result("call_1", content),
    ]


def test_answer_is_built_from_the_tool_result_actually_present():
    first = MockModel().complete(_after_read("# Mini harness\nUne boucle et un outil."), TOOLS)
    edited = MockModel().complete(_after_read("# Calculatrice\nAdditionne deux nombres."), TOOLS)
    assert "Mini harness" in first.message["content"]
    assert "Calculatrice" in edited.message["content"] and "Mini" not in edited.message["content"]


def test_recovers_from_a_missing_file_by_exploring():
    messages = _after_read("Erreur : README.md introuvable")
    assert _args(MockModel().complete(messages, TOOLS)) == [("list_files", {"path": "."})]
    messages += [
        assistant(None, [tool_call("call_2", "list_files", {"path": "."})]),
        tool_result("call_2", "docs/\ndocs/README.md\nsrc/"),
    ]
    reply = MockModel().complete(messages, TOOLS)
    assert _args(reply) == [("read_file", {"path": "docs/README.md"})]
    assert reply.tool_calls[0]["id"] == "call_3"


def test_does_not_invent_a_file_it_never_found():
    messages = _after_read("Erreur : README.md introuvable")
    messages += [
        assistant(None, [tool_call("call_2", "list_files", {"path": "."})]),
        tool_result("call_2", "src/\nsrc/main.py"),
    ]
    answer = MockModel().complete(messages, TOOLS).message["content"]
    assert "nulle part" in answer and "#" not in answer


def test_unknown_mission_gets_a_sensible_answer():
    reply = MockModel().complete([user("Bonjour !")], TOOLS)
    assert reply.tool_calls == [] and "outils" in reply.message["content"]


def test_think_writes_a_reasoning_sentence():
    reply = MockModel(think=True).complete([user(README_TASK)], TOOLS)
    assert reply.message["content"] and reply.tool_calls


def test_usage_counts_the_whole_context():
    short = MockModel().complete([user(README_TASK)], TOOLS).usage["prompt_tokens"]
    long = MockModel().complete([system("x" * 4000), user(README_TASK)], TOOLS).usage[
        "prompt_tokens"]
    assert long >= short + 1000


def test_latency_over_timeout_raises_model_timeout():
    with pytest.raises(ModelTimeout):
        MockModel(latency=0.5).complete([user("x")], TOOLS, timeout=0.01)


def test_replay_model_plays_a_saved_run_offline(tmp_path):
    original = run(README_TASK, MockModel(), workspace_tools(example_workspace("mini")))
    original.trace.save(tmp_path / "run.jsonl")
    from harness_lib import Trace

    again = run(
        README_TASK,
        ReplayModel.from_trace(Trace.load(tmp_path / "run.jsonl")),
        workspace_tools(example_workspace("mini")),
    )
    assert again.messages == original.messages and again.reason == "answer"


def test_a_refused_edit_is_reported_not_claimed():
    from harness_lib import STRICT_POLICY
    from harness_lib.policy import auto_refuse

    tools = workspace_tools(example_workspace("prix"))
    result = run("Corrige formatPrice pour les montants négatifs", MockModel(), tools,
                 policy=STRICT_POLICY, approver=auto_refuse)
    assert result.reason == "answer"
    assert "pas pu corriger" in result.answer and "traite maintenant" not in result.answer


def test_replay_keeps_the_recorded_finish_reason():
    from harness_lib import Trace

    trace = Trace()
    from harness_lib.trace import Event

    cut = assistant("Le projet est un")
    trace.add(Event("reply", 1, "coupé", cut, {"finish_reason": "length"}))
    assert ReplayModel.from_trace(trace).complete([], []).finish_reason == "length"


BAD_TOOLS = {
    "not-a-list": ("read_file", "Invalid type for 'tools': expected an array of objects"),
    "none": (None, "Invalid type for 'tools': expected an array of objects, but got null"),
    "item-not-object": (["read_file"], "Invalid type for 'tools[0]': expected an object"),
    "no-type": ([{"function": {"name": "a"}}], "Missing required parameter: 'tools[0].type'."),
    "bad-type": ([{"type": "web_search", "function": {"name": "a"}}],
                 "Invalid value: 'web_search'. Supported values are: 'function' and 'custom'."),
    "no-function": ([{"type": "function"}], "Missing required parameter: 'tools[0].function'."),
    "function-string": ([{"type": "function", "function": "a"}],
                        "Invalid type for 'tools[0].function': expected an object"),
    "no-name": ([{"type": "function", "function": {}}],
                "Missing required parameter: 'tools[0].function.name'."),
    "name-number": ([{"type": "function", "function": {"name": 3}}],
                    "Invalid type for 'tools[0].function.name': expected a string"),
    "name-pattern": ([{"type": "function", "function": {"name": "lire fichier"}}],
                     "Invalid 'tools[0].function.name': string does not match pattern. Expected "
                     "a string that matches the pattern '^[a-zA-Z0-9_-]+$'."),
    "parameters-list": ([{"type": "function", "function": {"name": "a", "parameters": []}}],
                        "Invalid type for 'tools[0].function.parameters': expected an object"),
}


@pytest.mark.parametrize("tools, text", BAD_TOOLS.values(), ids=BAD_TOOLS.keys())
def test_malformed_tools_get_the_api_400_not_a_crash(tools, text):
    with pytest.raises(ApiError) as err:
        MockModel().complete([user(README_TASK)], tools)
    assert err.value.status == 400 and err.value.message.startswith(text)
    assert err.value.body["error"]["type"] == "invalid_request_error"
    assert "outil" in err.value.explication


@pytest.mark.parametrize("given", [[], [t for t in TOOLS if t["function"]["name"] == "bash"]])
def test_it_never_asks_for_a_tool_it_was_not_given(given):
    reply = MockModel().complete([user(README_TASK)], given)
    assert reply.tool_calls == [] and "read_file" in reply.message["content"]
    assert reply.finish_reason == "stop"


def test_without_bash_it_says_what_it_did_and_never_claims_the_tests():
    """Notebook 04's ✏️ cell: the price mission without bash corrects the file, then says
    it stops before the tests, instead of reporting a result it never saw."""
    tools = [t for t in workspace_tools(example_workspace("prix")) if t.name != "bash"]
    done = run(PRICE_TASK, MockModel(), tools)
    asked = [e.data["tool"] for e in done.trace.events if e.kind == "tool_call"]
    said = " ".join(done.message.split())  # French spaces as plain ones
    assert done.reason == "answer" and asked == ["read_file", "edit_file"]
    assert said.startswith("Je m’arrête là. Déjà fait : read_file, edit_file.")
    assert "je lance les tests" in said and "l’outil bash" in said and "OK" not in said


@pytest.mark.parametrize("mission", ["a" * 40_000, "Lis " + "a/" * 20_000 + "b.txt",
                                     "Lis a.txt " + "." * 40_000, "attends " + "a-" * 20_000,
                                     "Lance `" + "x" * 40_000 + "`", "Lis " + "-" * 40_000])
def test_reading_a_40000_character_mission_is_linear(mission):
    # The file-name regex used to run over the whole text: seconds (quadratic) on these.
    # One word at a time, it is linear: the bound here is generous, the speed is in bench/.
    started = time.perf_counter()
    MockModel().complete([user(mission)], TOOLS)
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize(("mission", "first"), [
    ("Lis `README.md` et résume le projet", ("read_file", {"path": "README.md"})),
    ("Lance `README.md`", ("bash", {"command": "README.md"})),  # said to run it
    ("Lance `ls -a`", ("bash", {"command": "ls -a"})),
    ("Affiche `ls`", ("bash", {"command": "ls"})),  # not a file name: a command
])
def test_backquotes_hold_a_command_or_a_file_name_to_read(mission, first):
    assert _args(MockModel().complete([user(mission)], TOOLS)) == [first]


def test_file_names_are_found_word_by_word():
    assert find_files("Lis « README.md », (docs/a.txt) et b.py.") == ["README.md", "docs/a.txt",
                                                                 "b.py"]
    assert find_files("Lis le fichier.") == [] and find_files("v1.2 et 3.14") == []
