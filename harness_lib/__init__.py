"""harness_lib: the small agent harness of the course « La boucle agentique ».

    >>> from harness_lib import run, MockModel, workspace_tools
    >>> from harness_lib.course.missions.tasks import example_workspace
    >>> result = run("Lis README.md et résume le projet", MockModel(),
    ...              workspace_tools(example_workspace("mini")))
    >>> result.reason
    'answer'

Read minimal_loop.py first (the chapter's loop in a dozen lines), then loop.py (the
same loop with its limits, its permissions and its trace). The folders tell the
layers apart:

    this level   the harness: the loops, messages[], limits, policy, what a run leaves
                 behind (recorder.py, trace.py, tokens.py), errors, secrets, files, text
    models/      the real models: the protocol, OpenRouter (any Chat Completions API), replay
    tools/       the tools the model may ask for, bash and its sandbox
    mock/        the offline stand-in: MockModel and the API checks it imitates
    cli/         the command line, the one harness place that imports the course
    course/      what exists to show the harness to learners (players, exercises...)

Importing the package does nothing else: no network, no printing, and neither
httpx nor ipywidgets is imported until OpenRouterModel or a widget is used.
"""

from __future__ import annotations

from typing import Any

from .errors import ApiError, HarnessError, MissingKey, ModelTimeout, ToolError, ToolTimeout
from .limits import Limits
from .loop import run
from .messages import (
    SYSTEM_PROMPT,
    ToolCall,
    assistant,
    read_call,
    system,
    tool_call,
    tool_result,
    user,
)
from .minimal_loop import boucle
from .mock import MockModel, Problem, check_conversation, validate
from .models import Completion, Model, ReplayModel
from .policy import DEFAULT_POLICY, STRICT_POLICY, Decision, Policy
from .tools import Observation, Tool, workspace_tools
from .trace import Event, Run, StopReason, Trace

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_POLICY", "STRICT_POLICY", "SYSTEM_PROMPT", "ApiError", "Completion", "Decision",
    "Event", "HarnessError", "Limits", "MissingKey", "MockModel", "Model", "ModelTimeout",
    "Observation", "OpenRouterModel", "Policy", "Problem", "ReplayModel", "Run", "StopReason",
    "Tool", "ToolCall", "ToolError", "ToolTimeout", "Trace", "assistant", "boucle",
    "check_conversation",
    "read_call", "run", "system", "tool_call", "tool_result", "user", "validate",
    "workspace_tools",
]


def __getattr__(name: str) -> Any:
    # OpenRouterModel needs httpx: import it only when someone asks for it.
    if name == "OpenRouterModel":
        from .models.openrouter import OpenRouterModel

        return OpenRouterModel
    raise AttributeError(f"module 'harness_lib' has no attribute {name!r}")
