"""A reasoning model as it really answers, seen in the course: its visible reasoning is
shown as such, apart from its actions, and the fields it sent are named, not hidden.

The run is DeepSeek's recorded three-call exchange (tests/data/real_traffic/deepseek.json,
served by httpx.MockTransport), the one that proves RULE 1 sends `reasoning_content` back.
"""

from __future__ import annotations

from real_traffic import BY_NAME, recorded_messages, replay

from harness_lib import MockModel, run, workspace_tools
from harness_lib.course.drawing.run_notes import notes
from harness_lib.course.lessons.react import react_html, react_steps, react_text
from harness_lib.course.missions.tasks import README_TASK, example_workspace

SAMPLE = BY_NAME["deepseek-reasoner-three-calls"]


def test_react_shows_the_provider_s_reasoning_apart_from_the_actions() -> None:
    done, _ = replay(SAMPLE)
    thoughts = [m["reasoning_content"] for m in recorded_messages(SAMPLE)]
    turns = react_steps(done.trace)
    assert [t.reasoning for t in turns] == thoughts  # each turn's own, word for word
    assert all(t.actions for t in turns[:-1]) and turns[-1].answer
    assert "raisonnement visible (du fournisseur) →" in react_text(turns)
    assert "Raisonnement visible (du fournisseur)" in react_html(turns)


def test_the_player_s_notes_say_the_reasoning_is_not_an_action() -> None:
    done, _ = replay(SAMPLE)
    replies = [note for event, note in zip(done.trace.events, notes(done.trace), strict=True)
               if event.kind == "reply"]
    thoughts = [m["reasoning_content"] for m in recorded_messages(SAMPLE)]
    assert len(replies) == len(thoughts)
    for i, (note, thought) in enumerate(zip(replies, thoughts, strict=True)):
        assert "Raisonnement visible, renvoyé par le fournisseur" in note
        assert thought.split()[0] in note
        assert ("Ce n’est pas une action" in note) == (i == 0)  # said once, at the first
        assert "reasoning_content" in note  # the field RULE 1 sends back, named


def test_a_mock_run_shows_no_reasoning_column() -> None:
    done = run(README_TASK, MockModel(), workspace_tools(example_workspace("mini")))
    assert all(t.reasoning is None for t in react_steps(done.trace))
    assert "Raisonnement visible" not in react_html(react_steps(done.trace))
    assert not any("Raisonnement visible" in note for note in notes(done.trace))
