"""approval.py: a run that stops for a human, and the replay with the human's answer."""

from __future__ import annotations

import subprocess
import sys
from importlib import resources

from harness_lib import MockModel, run, workspace_tools
from harness_lib.course.lessons.approval import (
    Outcome,
    Pending,
    approval_widget,
    decide,
    outcome_html,
    pending,
    pending_html,
    replay_with,
    stopped_for_human,
)
from harness_lib.course.missions.tasks import README_TASK, example_workspace
from harness_lib.messages import read_call, tool_call
from harness_lib.policy import Decision

ORIGINAL = (resources.files("harness_lib.course") / "data" / "workspaces" / "prix" / "price.py"
            ).read_text(encoding="utf-8")
REFUSED = "Refusé : la personne n’a pas autorisé cette action."


def _tests_pass(folder: object) -> bool:
    done = subprocess.run([sys.executable, "test_price.py"], cwd=folder,
                          capture_output=True, timeout=60)
    return done.returncode == 0


def test_without_approver_the_run_stops_and_keeps_the_waiting_call() -> None:
    stopped = stopped_for_human()
    assert stopped.reason == "human"
    assert "validation humaine nécessaire" in stopped.message
    waiting = pending(stopped)
    assert waiting is not None
    assert waiting.call.name == "edit_file"
    assert waiting.decision.verdict == "ask" and "validation humaine" in waiting.decision.reason


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
    page = pending_html(Pending(read_call(call), Decision("ask", "bash : validation <demandée>")))
    assert "&lt;b&gt;" in page and "<b>\n" not in page
    assert "echo &lt;b&gt;\nrm x\\x1b[2K" in page  # real line break, escape code written out
    assert "validation &lt;demandée&gt;" in page and "call_7" in page


def test_outcome_html_says_what_the_human_chose() -> None:
    assert "Vos décisions : edit_file refusé." in outcome_html(decide(False))
    mixed = outcome_html(decide([True, False]))
    assert "edit_file autorisé, bash refusé" in mixed and "Refusé" in mixed


def test_each_action_waits_for_its_own_answer() -> None:
    first = replay_with([])
    assert isinstance(first, Pending) and first.call.name == "edit_file"
    second = replay_with([True])
    assert isinstance(second, Pending) and second.call.name == "bash"
    assert "test_price.py" in second.call.text
    done = replay_with([True, False])
    assert isinstance(done, Outcome) and done.answers == (True, False)
    assert REFUSED in done.observations  # bash was refused: the tests never ran
    assert not any("tests réussis" in seen for seen in done.observations)


def test_a_list_shorter_than_the_actions_refuses_the_rest() -> None:
    outcome = decide([True])
    assert outcome.asked == ["edit_file", "bash"] and outcome.answers == (True, False)
    assert not outcome.approved


def test_widget_shows_and_decides_each_action_in_turn() -> None:
    box = approval_widget()
    history, current, buttons, result = box.children
    yes, no = buttons.children
    assert "Action 1" in current.value and "edit_file" in current.value
    assert "bash" not in current.value and result.value == ""
    yes.click()  # allows edit_file only: bash must now be shown, not run
    assert "Action 2" in current.value and "bash" in current.value
    assert "python test_price.py" in current.value
    assert "✔ autorisé : action 1" in history.value and result.value == ""
    no.click()
    assert "✘ refusé : action 2" in history.value and current.value == ""
    assert "edit_file autorisé, bash refusé" in result.value
    assert buttons.layout.display == "none"  # nothing left to decide


def test_widget_refusing_the_first_action_ends_the_mission() -> None:
    box = approval_widget()
    _, current, buttons, result = box.children
    buttons.children[1].click()
    assert "edit_file refusé" in result.value and "bash" not in result.value
    assert current.value == ""


def test_the_widget_shown_by_a_cell_is_followed_by_its_note_for_a_reopened_notebook() -> None:
    """A cell ending in approval_widget(): the widget, then the French note that a notebook
    reopened without its kernel shows (player/static.py; hidden below a live widget)."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False  # no history file, no saving thread
    InteractiveShell.instance(config=config)
    try:
        with capture_output() as captured:
            approval_widget()._ipython_display_()
    finally:
        InteractiveShell.clear_instance()
    widget, note = (output.data for output in captured.outputs)
    assert "application/vnd.jupyter.widget-view+json" in widget
    assert 'class="harness-static harness-reopen"' in note["text/html"]
    assert "relancez les cellules" in note["text/html"]
