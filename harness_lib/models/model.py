"""Models: anything with `complete(messages, tools, timeout) -> Completion`.

Three implementations share this protocol: `MockModel` (mock.py, offline rules),
`ReplayModel` (replay.py, plays a saved run back) and `OpenRouterModel`
(openrouter.py, a real model over HTTP). The loop cannot tell them apart.

>>> cost((0.15, 0.60), sent=1_000, received=100)  # dollars
0.00021
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..limits import MODEL_TIMEOUT
from ..messages import Message, valid_message

# The real model used when none is named: cheap, and it calls tools. HARNESS_MODEL overrides it.
DEFAULT_MODEL = "openai/gpt-4o-mini"

Price = tuple[float, float]  # dollars per million tokens: (input, output)


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

    @property
    def price(self) -> Price | None:
        """Dollars per million tokens, (input, output); None when unknown (no cost budget)."""

    def complete(
        self, messages: list[Message], tools: list[dict[str, Any]], timeout: float = MODEL_TIMEOUT
    ) -> Completion: ...


def cost(price: Price | None, sent: int, received: int) -> float:
    """Dollars for `sent` input and `received` output tokens; 0 when the price is unknown."""
    if price is None:
        return 0.0
    return (sent * price[0] + received * price[1]) / 1_000_000
