"""approval.py: a run that stops for a human, and the replay with the human's answer."""

from __future__ import annotations

import subprocess
import sys
from importlib import resources

from harness_lib import MockModel, run, workspace_tools
from harness_lib.course.approval import (
    Pending,
    approval_widget,
    decide,
    outcome_html,
    pending,
    pending_html,
    stopped_for_human,
)
from harness_lib.course.scenarios import README_TASK, example_workspace
from harness_lib.messages import tool_call
from harness_lib.policy import Decision

ORIGINAL = (resources.files("harness_lib.course") / "data" / "workspaces" / "prix" / "price.py"
            ).read_text(encoding="utf-8")
REFUSED = "Refusé : la personne n'a pas autorisé cette action."


def _tests_pass(folder: object) -> bool:
    done = subprocess.run([sys.executable, "-m", "unittest", "test_price"], cwd=folder,
                          capture_output=True, timeout=60)
    return done.returncode == 0


def test_without_approver_the_run_stops_and_keeps_the_waiting_call() -> None:
    stopped = stopped_for_human()
    assert stopped.reason == "human"
    assert "validation humaine nécessaire" in stopped.message
    waiting = pending(stopped)
    assert waiting is not None
    assert waiting.call["function"]["name"] == "edit_file"
    assert waiting.decision.verdict == "ask" and "ask" in waiting.decision.reason


def test_a_run_that_asked_nobody_has_nothing_pending() -> None:
    done = run(README_TASK, MockModel(), workspace_tools(example_workspace("mini")))
    assert pending(done) is None


def test_approve_replays_to_the_end_and_the_fix_is_real() -> None:
    outcome = decide(True)
    assert outcome.run.reason == "answer"
    assert outcome.asked == ["edit_file", "bash"]
    assert (outcome.workspace / "price.py").read_text(encoding="utf-8") != ORIGINAL
    assert _tests_pass(outcome.workspace)


def test_refuse_leaves_the_workspace_untouched() -> None:
    outcome = decide(False)
    assert outcome.asked[0] == "edit_file"
    assert REFUSED in outcome.observations
    assert (outcome.workspace / "price.py").read_text(encoding="utf-8") == ORIGINAL
    assert not _tests_pass(outcome.workspace)


def test_pending_html_shows_every_character_escaped() -> None:
    call = tool_call("call_7", "bash", {"command": "echo <b>\nrm x\x1b[2K"})
    page = pending_html(Pending(call, Decision("ask", "bash : validation <demandée>")))
    assert "&lt;b&gt;" in page and "<b>\n" not in page
    assert "echo &lt;b&gt;\nrm x\\x1b[2K" in page  # real line break, escape code written out
    assert "validation &lt;demandée&gt;" in page and "call_7" in page


def test_outcome_html_says_what_the_human_chose() -> None:
    assert "Vous avez refusé" in outcome_html(decide(False))


def test_widget_buttons_replay_with_the_answer() -> None:
    box = approval_widget()
    header, buttons, result = box.children
    assert "edit_file" in header.value
    buttons.children[0].click()
    assert "Vous avez autorisé" in result.value and "answer" in result.value
    buttons.children[1].click()
    assert "Vous avez refusé" in result.value and "Refusé" in result.value
