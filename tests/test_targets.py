"""Targets tick themselves: from what send() returned, or from why a run stopped."""

from __future__ import annotations

import pytest
from conversations import chapter

from harness_lib import Limits, MockModel, run, workspace_tools
from harness_lib.course import PRICE_TASK, README_TASK, WAIT_TASK, workspace_for
from harness_lib.course.exercises.targets import api_targets, stop_targets
from harness_lib.course.missions.tasks import example_workspace
from harness_lib.course.playground.sending import send


def test_each_refusal_of_notebook_02_ticks_its_own_target_only() -> None:
    targets = api_targets()
    assert targets.check(send(chapter()[:4], show=False)) == [targets.targets[0].label]
    wrong_id = chapter()[:4]
    wrong_id[3]["tool_call_id"] = "call_9"
    ticked = targets.check(send(wrong_id, show=False))
    assert len(ticked) == 1 and "not found in 'tool_calls'" in ticked[0]
    assert targets.check(send(wrong_id, show=False)) == []  # already ticked: nothing new
    no_id = chapter()[:4]
    del no_id[3]["tool_call_id"]
    assert "Missing parameter" in targets.check(send(no_id, show=False))[0]
    assert "sans demande" in targets.check(send(chapter()[:2] + chapter()[3:4], show=False))[0]
    assert "sans résultat" in targets.check(send(chapter()[:3], show=False))[0]
    robot = chapter()[:2]
    robot[1]["role"] = "robot"
    assert "rôle refusé" in targets.check(send(robot, show=False))[0]
    assert "6 / 6 cibles atteintes." in targets.text()


def test_the_widget_shows_the_ticks_and_never_breaks() -> None:
    targets = api_targets()
    bundle = targets._repr_mimebundle_()
    assert "○" in bundle["text/plain"] and "application/vnd.jupyter.widget-view+json" in bundle
    targets.check(send(chapter()[:3], show=False))
    assert "✔" in targets._view.value and "1 / 6 cible atteinte." in targets._view.value
    assert "<code>…did not have response messages</code>" in targets._view.value
    assert targets.check(object()) == [] and targets.check(None) == []


def test_each_stop_of_notebook_05_ticks_from_the_run_reason() -> None:
    targets = stop_targets()
    mini = example_workspace("mini")
    failing = run("Lance `python absent.py`", MockModel(), workspace_tools(mini))
    assert targets.check(failing) == [targets.targets[1].label]  # failures
    short = run("Lance `python absent.py`", MockModel(), workspace_tools(mini),
                limits=Limits(max_turns=2))
    assert "max_turns" in targets.check(short)[0]
    budget = run("Lis README.md et résume le projet", MockModel(), workspace_tools(mini),
                 limits=Limits(max_tokens=300))
    assert "budget" in targets.check(budget)[0]
    assert "timeout" in targets.check("timeout")[0]  # a reason alone works too


def test_the_last_try_is_told_even_when_it_reaches_nothing() -> None:
    targets = stop_targets()
    assert targets.last == "" and "Dernier essai" not in targets.html()
    assert targets.check("answer") == []  # a run that reaches no target says so
    assert "aucune cible atteinte" in targets.text() and "aucune cible atteinte" in targets.html()
    targets.check("timeout")
    assert targets.last.endswith("une nouvelle cible atteinte.")
    targets.check("timeout")
    assert "déjà atteinte" in targets.last


# Notebook 05's ✏️ cell: its default and each suggestion of its prose, as the cell runs them.
PENCIL_05 = [  # (mission, limits, model latency, the target it reaches: None for the default)
    (PRICE_TASK, Limits(), 0.0, None),
    ("Lance `sh absent.sh`", Limits(), 0.0, "failures"),
    (WAIT_TASK, Limits(), 0.0, "max_turns"),
    (PRICE_TASK, Limits(max_turns=2), 0.0, "max_turns"),
    (PRICE_TASK, Limits(max_tokens=1500), 0.0, "budget"),
    ("Lance `sleep 5`", Limits(tool_timeout=0.01), 0.0, "timeout"),
    (README_TASK, Limits(model_timeout=0.01), 0.3, "timeout"),
]


@pytest.mark.parametrize(("mission", "limits", "latency", "reason"), PENCIL_05)
def test_the_pencil_cell_of_05_reaches_what_its_prose_says(
        mission: str, limits: Limits, latency: float, reason: str | None) -> None:
    targets = stop_targets()
    fin = run(mission, MockModel(latency=latency),
              workspace_tools(example_workspace(workspace_for(mission))), limits=limits)
    ticked = targets.check(fin)
    if reason is None:  # the default reaches no target: the learner has all four to find
        assert fin.reason == "answer" and ticked == [] and "aucune cible" in targets.last
    else:
        assert fin.reason == reason and len(ticked) == 1 and f"`{reason}`" in ticked[0]
