"""react.py: a run read as reasoning → action → observation, and the fixed pipeline."""

from __future__ import annotations

from typing import Any

from harness_lib import MockModel, run, workspace_tools
from harness_lib.course.drawing.trace_diagram import from_trace
from harness_lib.course.lessons.react import (
    NOT_SHOWN,
    ReactTurn,
    action_label,
    fixed_pipeline,
    react_html,
    react_steps,
    react_text,
)
from harness_lib.course.missions.tasks import README_TASK, example_workspace
from harness_lib.messages import assistant, tool_call
from harness_lib.mock import check_conversation
from harness_lib.models import Completion, ReplayModel
from harness_lib.trace import Event, Trace


def _react(workspace: str, think: bool = True, task: str = README_TASK) -> list[ReactTurn]:
    done = run(task, MockModel(think=think), workspace_tools(example_workspace(workspace)))
    return react_steps(done.trace)


class Spy:
    """A model that remembers what it was sent."""

    name = "spy"
    price = None

    def __init__(self) -> None:
        self.calls: list[tuple[list[Any], list[Any]]] = []
        self.inner = MockModel()

    def complete(self, messages: list[Any], tools: list[Any], timeout: float = 120.0) -> Completion:
        self.calls.append((list(messages), list(tools)))
        return self.inner.complete(messages, tools, timeout)


def test_one_turn_per_model_call_with_the_visible_reasoning() -> None:
    first, last = _react("mini")
    assert (first.turn, first.thought) == (1, "Je dois lire README.md.")
    assert first.actions == ('read_file("README.md")',)
    assert first.observations[0].startswith("# Mini harness")
    assert first.answer is None
    assert last.turn == 2 and last.thought is None and last.answer.startswith("Résumé.")


def test_without_think_the_harness_sees_actions_but_no_reasoning() -> None:
    turns = _react("mini", think=False)
    assert [t.thought for t in turns] == [None, None]
    assert turns[0].actions == ('read_file("README.md")',)
    assert NOT_SHOWN in react_text(turns)


def test_recovery_on_docs_shows_the_error_as_an_observation() -> None:
    turns = _react("docs")
    assert [t.actions for t in turns[:3]] == [
        ('read_file("README.md")',), ('list_files(".")',), ('read_file("docs/README.md")',)]
    assert turns[0].observations == ("Erreur : README.md introuvable",)
    assert turns[-1].answer is not None and "docs/" in turns[-1].answer


def test_several_calls_in_one_turn_keep_their_own_results() -> None:
    folder = example_workspace("mini")
    (folder / "a.txt").write_text("alpha", encoding="utf-8")
    (folder / "b.txt").write_text("beta", encoding="utf-8")
    done = run("Lis a.txt et b.txt", MockModel(), workspace_tools(folder))
    first = react_steps(done.trace)[0]
    assert first.actions == ('read_file("a.txt")', 'read_file("b.txt")')
    assert first.observations == ("alpha", "beta")


def test_action_label_shows_invalid_arguments_as_they_came() -> None:
    call = {"id": "c", "function": {"name": "bash", "arguments": "{pas du json"}}
    assert action_label(call) == "bash({pas du json)"
    assert action_label(tool_call("c", "edit_file", {"path": "a", "new": "é"})) == \
        'edit_file("a", "é")'


def test_text_follows_the_chapter_layout() -> None:
    text = react_text(_react("mini"))
    assert text.splitlines()[0] == "Tour 1 : raisonnement → « Je dois lire README.md. »"
    assert 'action       → read_file("README.md")' in text
    assert "réponse finale → « Résumé." in text


def test_html_escapes_what_the_model_wrote() -> None:
    trace = Trace()
    call = tool_call("call_1", "read_file", {"path": "<x>"})
    trace.add(Event("reply", 1, "r", assistant("<script>alert(1)</script>", [call])))
    page = react_html(react_steps(trace))
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "(pas de résultat)" in page  # a call without result is said, not hidden


def test_fixed_pipeline_reads_then_summarises_with_one_call_without_tools() -> None:
    said: list[str] = []
    model = Spy()
    done = fixed_pipeline(README_TASK, workspace_tools(example_workspace("mini")), model,
                          say=said.append)
    assert done.reason == "answer" and done.message.startswith("Résumé.")
    assert done.states == ["lire README.md", "résumer", "terminé"]
    assert said == [f"État : {s}" for s in done.states]
    assert len(model.calls) == 1 and model.calls[0][1] == []
    assert check_conversation(done.messages) == []  # the harness's own call keeps it valid
    from_trace(done.trace)  # a player can show it


def test_fixed_pipeline_fails_where_react_recovers() -> None:
    model = Spy()
    done = fixed_pipeline(README_TASK, workspace_tools(example_workspace("docs")), model, say=None)
    assert done.reason == "dead_end" and done.states == ["lire README.md", "échec"]
    assert "README.md introuvable" in done.message
    assert model.calls == []  # no path left: the model is never asked
    assert _react("docs")[-1].answer is not None


def test_fixed_pipeline_refuses_a_model_that_asks_for_a_tool() -> None:
    stubborn = ReplayModel([assistant(None, [tool_call("call_9", "list_files", {})])])
    done = fixed_pipeline(README_TASK, workspace_tools(example_workspace("mini")), stubborn,
                          say=None)
    assert done.reason == "dead_end" and done.states[-1] == "échec"
