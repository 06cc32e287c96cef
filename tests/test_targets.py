"""Targets tick themselves: from what send() returned, or from why a run stopped."""

from __future__ import annotations

from conversations import chapter

from harness_lib import Limits, MockModel, run, workspace_tools
from harness_lib.course.exercises.targets import api_targets, stop_targets
from harness_lib.course.missions.scenarios import example_workspace
from harness_lib.course.playground.toggle import send


def test_each_refusal_of_notebook_02_ticks_its_own_target_only() -> None:
    targets = api_targets()
    assert targets.check(send(chapter()[:4], show=False)) == [targets.targets[0].label]
    wrong_id = chapter()[:4]
    wrong_id[3]["tool_call_id"] = "call_9"
    ticked = targets.check(send(wrong_id, show=False))
    assert len(ticked) == 1 and "'call_9' not found" in ticked[0]
    assert targets.check(send(wrong_id, show=False)) == []  # already ticked: nothing new
    no_id = chapter()[:4]
    del no_id[3]["tool_call_id"]
    assert "Missing parameter" in targets.check(send(no_id, show=False))[0]
    assert "sans demande" in targets.check(send(chapter()[:2] + chapter()[3:4], show=False))[0]
    assert "sans résultat" in targets.check(send(chapter()[:3], show=False))[0]
    robot = chapter()[:2]
    robot[1]["role"] = "robot"
    assert "rôle refusé" in targets.check(send(robot, show=False))[0]
    assert targets.text().endswith("6 / 6 cibles atteintes.")


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
