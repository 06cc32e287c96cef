"""Models: anything with `complete(messages, tools, timeout) -> Completion`.

Three implementations share this protocol: `MockModel` (mock.py, offline rules),
`ReplayModel` (below, plays a saved run back) and `OpenRouterModel`
(openrouter.py, a real model over HTTP). The loop cannot tell them apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from .errors import HarnessError
from .messages import Message
from .trace import Trace

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

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return list(self.message.get("tool_calls") or [])


class Model(Protocol):
    """What the loop needs from a model. Raises ApiError / ModelTimeout on failure."""

    name: str

    def complete(
        self, messages: list[Message], tools: list[dict[str, Any]], timeout: float = 120.0
    ) -> Completion: ...


class ReplayModel:
    """Plays back the assistant turns of a saved run, in order, offline.

    >>> from harness_lib.messages import assistant
    >>> ReplayModel([assistant("Bonjour")]).complete([], []).message["content"]
    'Bonjour'
    """

    name = "replay"

    def __init__(self, replies: list[Message], finish_reasons: list[str] | None = None) -> None:
        self.replies = list(replies)
        self.finish_reasons = list(finish_reasons or [])
        self.position = 0

    @classmethod
    def from_trace(cls, trace: Trace) -> ReplayModel:
        replies = [e for e in trace.events if e.kind == "reply" and e.message]
        return cls([e.message for e in replies], [e.data.get("finish_reason", "") for e in replies])

    def complete(
        self, messages: list[Message], tools: list[dict[str, Any]], timeout: float = 120.0
    ) -> Completion:
        if self.position >= len(self.replies):
            raise HarnessError(
                "replay exhausted",
                explication=f"La trace ne contient que {len(self.replies)} réponses du modèle.",
            )
        message = self.replies[self.position]
        self.position += 1
        body = {"model": self.name, "messages": messages, "tools": tools}
        recorded = self.finish_reasons[self.position - 1] if self.position <= len(
            self.finish_reasons) else ""
        reason = recorded or ("tool_calls" if message.get("tool_calls") else "stop")
        return Completion(message, reason, None, {"url": "replay://", "headers": {}, "body": body})
