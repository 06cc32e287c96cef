"""The course machinery: everything that exists to *show* the harness to a learner.

The harness (one level up) runs the agentic loop and never imports this folder.
Here live the widgets, the diagrams and the exercises of the notebooks, and the
only imports of ipywidgets and IPython in the project. One folder per concept:

    drawing/     a run or a chapter diagram as annotated Mermaid text, the context bar, exports
    player/      the player widget: what each step shows, its controls in the browser
    missions/    the chapter's missions, incidents and example workspaces; a loop written by hand
    playground/  `send(messages)` and the mock/real toggle: what the API does with a conversation
    exercises/   questions, « jouez le rôle du harness », ✏️ targets
    grader/      notebook 08: the learner's own loop, run on the missions, bounded, explained
    lessons/     one notebook's own views: approval (05), ReAct (06), code walk, saved traces (07)
    progress/    the learner's progress file, progression.json: answers, verdicts, export
    teaching/    for the class: 09's score and « Bilan », the teacher's guide, a class's files

Imports go one way: drawing/ and missions/ use only the harness; player/ uses drawing/;
playground/ uses drawing/, missions/ and player/ (send()'s figure); exercises/ and
lessons/ may use all of these, grader/ all but playground/ and lessons/; progress/ uses
only the harness, and exercises/, lessons/ and grader/ use it; teaching/ uses exercises/
and progress/; never the reverse
(tests/test_import.py checks it).

What a notebook needs is importable from here, loaded on first use so that
`import harness_lib.course` stays light:

    >>> from harness_lib.course import README_TASK, example_workspace
    >>> README_TASK
    'Lis README.md et résume le projet'
"""

from __future__ import annotations

import warnings
from importlib import import_module
from typing import Any

from ..tools.sandbox import SandboxWarning

# Where bash waits for a yes, the course says so in its own words (00, 04, 05): the
# harness's warning would say it again, headed by a file path of this machine.
warnings.filterwarnings("ignore", category=SandboxWarning)

# name -> the module (below harness_lib.course) that defines it
_PUBLIC = {
    "drawing.charts": ("billing", "context_chart"),
    "drawing.diagram": ("ledger_at", "total_at"),
    "drawing.trace_diagram": ("from_trace",),
    "drawing.hub": ("hub_edges",),
    "drawing.mermaid": ("chapter_diagram",),
    "drawing.run_notes": ("stop_reason",),
    "player.player": ("Player", "run_live"),
    "missions.tasks": ("PRICE_TASK", "QUESTION", "README_TASK", "WAIT_TASK",
                       "example_workspace", "workspace_for"),
    "missions.scenarios": ("replay",),
    "missions.own_loop": ("reference_loop", "without"),
    "playground.toggle": ("ENV_KEY", "REAL", "Playground", "current_model", "toggle"),
    "playground.sending": ("send",),
    "playground.replies": ("default_tools",),
    "exercises.widgets": ("check_answer", "check_tool_message", "harness_exercise",
                          "question", "solution"),
    "exercises.questions": ("REFUSALS", "refusal_option"),
    "teaching.assessment": ("Evaluation",),
    "exercises.targets": ("api_targets", "stop_targets"),
    "exercises.hand_harness": ("HandHarness",),
    "grader.grade": ("grade",),
    "grader.missions": ("MISSIONS",),
    "grader.solution": ("loop_solution", "loop_to_use"),
    "lessons.approval": ("Pending", "approval_widget", "decide", "pending", "replay_with",
                         "stopped_for_human"),
    "lessons.react": ("fixed_pipeline", "react_html", "react_steps", "react_text"),
    "lessons.codeview": ("show_source", "side_by_side", "side_by_side_html"),
    "lessons.saved_trace": ("open_player", "trace_picker"),
    "lessons.course_map": ("exporter_progression", "progression", "recommencer"),
}
_WHERE = {name: module for module, names in _PUBLIC.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    """Load `name` from its module on first use (PEP 562): no widget library at import."""
    if name not in _WHERE:
        raise AttributeError(f"module 'harness_lib.course' has no attribute {name!r}")
    return getattr(import_module(f".{_WHERE[name]}", __name__), name)


def __dir__() -> list[str]:
    return __all__
