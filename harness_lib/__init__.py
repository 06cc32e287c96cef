"""harness_lib: the small agent harness of the course « La boucle agentique ».

    >>> from harness_lib import run, MockModel, workspace_tools, example_workspace
    >>> result = run("Lis README.md et résume le projet", MockModel(),
    ...              workspace_tools(example_workspace("mini")))
    >>> result.reason
    'answer'

Importing the package does nothing else: no network, no printing, and neither
httpx nor ipywidgets is imported until OpenRouterModel or a widget is used.
"""

from __future__ import annotations

from typing import Any

from .diagram import Diagram, DiagramError, from_trace
from .errors import ApiError, HarnessError, MissingKey, ModelTimeout
from .loop import SYSTEM_PROMPT, Limits, run
from .mermaid import chapter_diagram, parse, to_mermaid
from .messages import (
    Problem,
    assistant,
    check_conversation,
    system,
    tool_call,
    tool_result,
    user,
    validate,
)
from .mock import MockModel
from .models import Completion, Model, ReplayModel
from .policy import DEFAULT_POLICY, STRICT_POLICY, Decision, Policy, check
from .scenarios import INCIDENTS, PRICE_TASK, README_TASK, example_workspace, replay
from .tools import Observation, Tool, execute, workspace_tools
from .trace import Event, Run, Trace

__version__ = "0.1.0"

__all__ = [
    "SYSTEM_PROMPT", "ApiError", "Completion", "DEFAULT_POLICY", "Decision", "Diagram",
    "DiagramError", "Event", "HarnessError", "INCIDENTS", "Limits", "MissingKey", "MockModel",
    "Model", "ModelTimeout", "Observation", "OpenRouterModel", "PRICE_TASK", "Policy", "Problem",
    "README_TASK", "ReplayModel", "Run", "STRICT_POLICY", "Tool", "Trace", "assistant",
    "chapter_diagram", "check", "check_conversation", "example_workspace", "execute",
    "from_trace", "parse", "replay", "run", "system", "to_mermaid", "tool_call", "tool_result",
    "user", "validate", "workspace_tools",
]


def __getattr__(name: str) -> Any:
    # OpenRouterModel needs httpx: import it only when someone asks for it.
    if name == "OpenRouterModel":
        from .openrouter import OpenRouterModel

        return OpenRouterModel
    raise AttributeError(f"module 'harness_lib' has no attribute {name!r}")
