"""The course's runs, as plain data: every mission of the course and the five incidents.

`python tests/same_course.py` writes `tests/data/same_course.json` (once, before a change
that must not change what the course shows); `tests/test_same_course.py` runs them again and
compares the messages, the traces and the grader's reports, value for value.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).parent / "data" / "same_course.json"


def _plain(value: Any, folders: list[str]) -> Any:
    """JSON data, each temporary workspace's path replaced by a fixed name."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    for k, folder in enumerate(folders):
        text = text.replace(folder, f"<espace-{k}>")
    return json.loads(text)


def _run(run: Any, folders: list[str]) -> dict[str, Any]:
    events = [asdict(e) for e in run.trace.events]
    for event in events:  # the request body is the whole messages[] again: checked once, above
        event["data"].pop("body", None)
    return _plain({"reason": run.reason, "message": run.message, "messages": run.messages,
                   "events": events}, folders)


def runs() -> dict[str, Any]:
    from harness_lib import Limits, MockModel, run
    from harness_lib.course import (
        PRICE_TASK,
        README_TASK,
        WAIT_TASK,
        example_workspace,
        grade,
        reference_loop,
        replay,
        without,
    )
    from harness_lib.course.grader.missions import FAIL_TASK, THREE_TASK
    from harness_lib.course.missions.own_loop import watch
    from harness_lib.tools import workspace_tools

    found: dict[str, Any] = {}
    for name in ("normal", "missing-call", "missing-result", "tool-error", "max-turns"):
        found[f"incident {name}"] = _run(replay(name).run, [])
    missions = [("lire", README_TASK, "mini", {}), ("docs", README_TASK, "docs", {}),
                ("prix", PRICE_TASK, "prix", {}), ("attente", WAIT_TASK, "attente", {}),
                ("trois", THREE_TASK, "docs", {}), ("echecs", FAIL_TASK, "mini", {}),
                ("interdit", "Lance `rm -rf /`", "mini", {}),
                ("budget", PRICE_TASK, "prix", {"limits": Limits(max_tokens=1500)}),
                ("cout", PRICE_TASK, "prix", {"limits": Limits(max_cost=0.0003)}),
                ("raisonne", README_TASK, "mini", {"think": True})]
    for name, task, space, options in missions:
        folder = example_workspace(space)
        model = MockModel(think=options.pop("think", False))
        found[f"run {name}"] = _run(run(task, model, workspace_tools(folder), **options),
                                    [str(folder)])
        folder = example_workspace(space)
        watched = watch(reference_loop, task, workspace_tools(folder))
        found[f"own loop {name}"] = _run(watched.run, [str(folder)])
    for rule in ("RULE 1", "RULE 2", "EXIT"):
        found[f"grade without {rule}"] = grade(without(rule)).text()
    found["grade reference"] = grade(reference_loop).text()
    return found


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parents[1]))
    GOLDEN.write_text(json.dumps(runs(), ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                      encoding="utf-8")
    print(f"écrit : {GOLDEN}")
