"""Traces: events, messages at each step, JSON lines round trip."""

from __future__ import annotations

import json

import pytest

from harness_lib import Event, MockModel, Trace, run, workspace_tools
from harness_lib.course.missions.tasks import README_TASK, example_workspace
from harness_lib.trace import describe


def test_save_load_round_trip(tmp_path):
    done = run(README_TASK, MockModel(), workspace_tools(example_workspace("mini")))
    done.trace.save(tmp_path / "t.jsonl")
    lines = (tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + len(done.trace.events)
    assert all(json.loads(line) for line in lines)
    again = Trace.load(tmp_path / "t.jsonl")
    assert again == done.trace
    assert again.messages_at(5) == done.trace.messages_at(5)


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="type d’événement inconnu"):
        Event("dance", 0, "?")


def test_describe_names_both_sides():
    assert (
        describe(Event("reply", 2, "Réponse finale"))
        == "[tour 2] Modèle → Harness : Réponse finale"
    )


def test_describe_drops_control_characters():
    line = describe(Event("tool_result", 1, "a\x1b[2Jb\x07c"))
    assert "\x1b" not in line and "\x07" not in line and line.endswith("a [2Jb c")
