"""The five incidents of the chapter, and the example workspaces."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

from harness_lib import ApiError, MockModel, check_conversation, run, workspace_tools
from harness_lib.course.missions.own_loop import watch, without
from harness_lib.course.missions.scenarios import INCIDENTS, replay
from harness_lib.course.missions.tasks import PRICE_TASK, README_TASK, example_workspace


def test_the_five_incidents_exist():
    assert list(INCIDENTS) == [
        "normal",
        "missing-call",
        "missing-result",
        "tool-error",
        "max-turns",
    ]


def test_normal():
    incident = replay("normal")
    assert incident.run.reason == "answer" and incident.error is None
    assert check_conversation(incident.run.messages) == []


def test_missing_call_is_refused_with_the_api_text():
    incident = replay("missing-call")
    assert [m["role"] for m in incident.run.messages] == ["system", "user", "tool"]
    assert incident.error.status == 400
    assert "must be a response to a preceeding message with 'tool_calls'" in incident.error.message
    assert "tool_calls" in incident.missing and "harness" in incident.who
    reply = next(e for e in incident.run.trace.events if e.kind == "reply")
    assert reply.message is None and "jamais ajouté" in reply.text.lower()


def test_missing_result_is_refused_with_the_api_text():
    incident = replay("missing-result")
    assert [m["role"] for m in incident.run.messages] == ["system", "user", "assistant"]
    assert "did not have response messages: call_1" in incident.error.message
    assert incident.run.trace.events[-1].kind == "stop"


@pytest.mark.parametrize("name, rule", [("missing-call", "RULE 1"), ("missing-result", "RULE 2")])
def test_broken_incidents_are_hand_written_loops_run_for_real(name, rule):
    """The refusal is the one the mock gave to the messages that loop really sent."""
    incident = replay(name)
    with pytest.raises(ApiError) as refused:
        MockModel().complete(incident.run.messages, incident.run.trace.tools)
    assert refused.value.message == incident.error.message
    again = watch(without(rule), README_TASK, workspace_tools(example_workspace("mini")))
    assert [e.text for e in again.run.trace.events] == [e.text for e in incident.run.trace.events]
    kinds = [e.kind for e in incident.run.trace.events]
    assert kinds == ["task", "request", "reply", "tool_call", "tool_result", "request", "stop"]


def test_missing_result_keeps_the_tool_run_that_was_never_appended():
    result = next(e for e in replay("missing-result").run.trace.events if e.kind == "tool_result")
    assert result.message is None and result.text.startswith("Jamais ajouté à messages[]")
    assert "Mini harness" in result.text


def test_tool_error_recovers():
    incident = replay("tool-error")
    contents = [m.get("content") for m in incident.run.messages if m["role"] == "tool"]
    assert contents[0] == "Erreur : README.md introuvable"
    assert incident.run.reason == "answer" and "docs/" in incident.run.answer


def test_max_turns():
    assert replay("max-turns").run.message == "Arrêt propre: maximum de 15 tours dépassé."


def test_unknown_incident_is_a_clear_error():
    with pytest.raises(ValueError, match="incident inconnu"):
        replay("panne")


def test_example_workspace_is_a_fresh_copy(tmp_path):
    first = example_workspace("prix")
    (first / "price.py").write_text("cassé", encoding="utf-8")
    assert "divmod" in (example_workspace("prix") / "price.py").read_text(encoding="utf-8")
    assert (example_workspace("docs", tmp_path) / "docs" / "README.md").exists()
    with pytest.raises(ValueError, match="espace d’exemple inconnu"):
        example_workspace("nulle-part")


def test_the_copies_last_as_long_as_the_python_that_made_them(tmp_path):
    """A kernel's copies go when it ends (none left in /tmp run after run); a copy in a
    folder the caller gave stays."""
    code = ("import sys\nfrom harness_lib.course.missions.tasks import example_workspace as copy\n"
            "made = [copy('mini'), copy('prix'), copy('docs', sys.argv[1])]\n"
            "print(*made, all(p.is_dir() for p in made))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "kept")], text=True,
                          capture_output=True, check=True, timeout=60)
    *made, there = done.stdout.split()
    assert there == "True"  # while the Python runs
    assert [os.path.isdir(p) for p in made] == [False, False, True]
    assert made[0].startswith(os.path.join(tempfile.gettempdir(), "harness-mini-"))


def test_the_shops_tests_name_each_failure_and_agree_with_pytest():
    """`python test_price.py`, as the mock and notebook 04 run it: a failing case says what
    it got and what it wanted; pytest (the reference) collects the same tests, same verdicts."""
    folder = example_workspace("prix")

    def script() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "test_price.py"], cwd=folder, text=True,
                              capture_output=True, timeout=60)

    def pytest_says() -> str:
        quiet = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # pytest alone: fast
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "test_price.py"], cwd=folder, env=quiet, text=True,
                              capture_output=True, timeout=120)
        return done.stdout.strip().splitlines()[-1]

    before = script()
    assert before.returncode == 1 and before.stdout.splitlines() == [
        "ÉCHEC test_negative\u00a0: format_price(-1234) donne '-13,66 €' au lieu de '-12,34 €'",
        "ÉCHEC test_negative_small\u00a0: format_price(-5) donne '-1,95 €' au lieu de '-0,05 €'",
        "2 tests en échec sur 5"]
    assert pytest_says().startswith("2 failed, 3 passed")
    run(PRICE_TASK, MockModel(), workspace_tools(folder))
    after = script()
    assert (after.returncode, after.stdout) == (0, "5 tests réussis\n")
    assert pytest_says().startswith("5 passed")
