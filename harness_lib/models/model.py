"""Models: anything with `complete(messages, tools, timeout) -> Completion`.

Three implementations share this protocol: `MockModel` (mock.py, offline rules),
`ReplayModel` (replay.py, plays a saved run back) and `OpenRouterModel`
(openrouter.py, a real model over HTTP). The loop cannot tell them apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..messages import Message, valid_message

# The real model used when none is named: cheap, and it calls tools. HARNESS_MODEL overrides it.
DEFAULT_MODEL = "openai/gpt-4o-mini"


@dataclass
class Completion:
    """One answer of the model.

    message        the assistant message, exactly as the API returned it
    finish_reason  "stop", "tool_calls", "length", ...
    usage          the API's token counts ({"prompt_tokens", "completion_tokens", ...}) or None
    request        what was sent: {"url", "headers" (key redacted), "body"}; for --debug
    """

    message: Message
    finish_reason: str = "stop"
    usage: dict[str, int] | None = None
    request: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A lone surrogate (a model's bad escape) can be neither sent back nor saved: � instead.
        self.message = valid_message(self.message)

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return list(self.message.get("tool_calls") or [])


class Model(Protocol):
    """What the loop needs from a model. Raises ApiError / ModelTimeout on failure."""

    name: str

    def complete(
        self, messages: list[Message], tools: list[dict[str, Any]], timeout: float = 120.0
    ) -> Completion: ...
