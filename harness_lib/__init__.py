"""harness_lib: the small agent harness of the course « La boucle agentique ».

    >>> from harness_lib import run, MockModel, workspace_tools
    >>> from harness_lib.course.missions.scenarios import example_workspace
    >>> result = run("Lis README.md et résume le projet", MockModel(),
    ...              workspace_tools(example_workspace("mini")))
    >>> result.reason
    'answer'

The folder tells the two layers apart. This level is the harness: the loop
(loop.py) and its limits (limits.py), what it writes down (recorder.py),
messages[] and the API's rules (messages.py, rules.py), the models (models/),
the tools and their sandbox (tools/, policy.py), what a run leaves behind
(trace.py, tokens.py), the errors, short texts for people (text.py, debug.py)
and the command line. `course/` is what exists to show it to learners
(players, diagrams, exercises, scenarios); nothing at this level imports it,
except the command line.

Importing the package does nothing else: no network, no printing, and neither
httpx nor ipywidgets is imported until OpenRouterModel or a widget is used.
"""

from __future__ import annotations

from typing import Any

from .errors import ApiError, HarnessError, MissingKey, ModelTimeout, ToolError, ToolTimeout
from .limits import Limits
from .loop import SYSTEM_PROMPT, run
from .messages import (
    ToolCall,
    assistant,
    check_conversation,
    read_call,
    system,
    tool_call,
    tool_result,
    user,
    validate,
)
from .models import Completion, MockModel, Model, ReplayModel
from .policy import DEFAULT_POLICY, STRICT_POLICY, Decision, Policy
from .rules import Problem
from .tools import Observation, Tool, workspace_tools
from .trace import Event, Run, StopReason, Trace

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_POLICY", "STRICT_POLICY", "SYSTEM_PROMPT", "ApiError", "Completion", "Decision",
    "Event", "HarnessError", "Limits", "MissingKey", "MockModel", "Model", "ModelTimeout",
    "Observation", "OpenRouterModel", "Policy", "Problem", "ReplayModel", "Run", "StopReason",
    "Tool", "ToolCall", "ToolError", "ToolTimeout", "Trace", "assistant", "check_conversation",
    "read_call", "run", "system", "tool_call", "tool_result", "user", "validate",
    "workspace_tools",
]


def __getattr__(name: str) -> Any:
    # OpenRouterModel needs httpx: import it only when someone asks for it.
    if name == "OpenRouterModel":
        from .models.openrouter import OpenRouterModel

        return OpenRouterModel
    raise AttributeError(f"module 'harness_lib' has no attribute {name!r}")
