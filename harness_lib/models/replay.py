"""ReplayModel: plays back the assistant turns of a saved run, in order, offline."""

from __future__ import annotations

from typing import Any

from ..errors import HarnessError
from ..limits import MODEL_TIMEOUT
from ..messages import Message
from ..trace import Trace
from .model import Completion


class ReplayModel:
    """Plays back the assistant turns of a saved run, in order, offline.

    >>> from harness_lib.messages import assistant
    >>> ReplayModel([assistant("Bonjour")]).complete([], []).message["content"]
    'Bonjour'
    """

    name = "replay"
    price = None  # a replay costs nothing

    def __init__(self, replies: list[Message], finish_reasons: list[str] | None = None) -> None:
        self.replies = list(replies)
        self.finish_reasons = list(finish_reasons or [])
        self.position = 0

    @classmethod
    def from_trace(cls, trace: Trace) -> ReplayModel:
        replies = [e for e in trace.events if e.kind == "reply" and e.message]
        return cls([e.message or {} for e in replies],
                   [e.data.get("finish_reason", "") for e in replies])

    def complete(
        self, messages: list[Message], tools: list[dict[str, Any]], timeout: float = MODEL_TIMEOUT
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
