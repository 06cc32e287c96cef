"""The harness's files moved (issue 31); what the course shows did not.

`tests/data/same_course.json` was recorded before the move (`python tests/same_course.py`):
every mission of the course run by `run()` and by the hand-written reference loop, the five
incidents, and the grader's verdicts. Run again now, the messages and the traces are the
same, value for value; the grader gives the same verdict on each mission (its sentences now
quote each rule in the one wording of messages.py, on purpose).
"""

from __future__ import annotations

import json

import pytest
from same_course import GOLDEN, runs

BEFORE = json.loads(GOLDEN.read_text(encoding="utf-8"))
NOW = json.loads(json.dumps(runs(), ensure_ascii=False, sort_keys=True))
RUNS = sorted(name for name in BEFORE if not name.startswith("grade"))


@pytest.mark.parametrize("name", RUNS)
def test_each_run_leaves_the_same_messages_and_trace(name: str) -> None:
    before, now = BEFORE[name], NOW[name]
    assert (now["reason"], now["message"]) == (before["reason"], before["message"])
    assert now["messages"] == before["messages"]
    assert now["events"] == before["events"]


@pytest.mark.parametrize("name", sorted(set(BEFORE) - set(RUNS)))
def test_the_grader_gives_the_same_verdict_on_each_mission(name: str) -> None:
    def verdicts(report: str) -> list[str]:  # ✔, ✘ or ○, mission by mission, in order
        return [line[0] for line in report.splitlines() if line[:1] in "✔✘○"]

    assert verdicts(NOW[name]) == verdicts(BEFORE[name]) and verdicts(NOW[name])
