"""Models: anything with `complete(messages, tools, timeout) -> Completion`.

Three implementations share this protocol: `MockModel` (harness_lib/mock/, offline
rules), `ReplayModel` (replay.py, plays a saved run back) and `OpenRouterModel`
(openrouter.py, a real model over HTTP). The loop cannot tell them apart.

What an assistant message says, whatever shape its provider gave it (`answer_text`,
`reasoning_text`, `refusal_text`): `content` as a text or a list of parts (Mistral's
reasoning models write thinking parts before the text), the visible reasoning in
`reasoning_content` (DeepSeek, Z.ai) or `reasoning` (OpenRouter, Groq, Ollama), a refusal
in `refusal` (OpenAI) or a `refusal` part. These readers take the text out for the
person, and never change the message: it goes back to the provider whole (RULE 1).

>>> parts = [{"type": "thinking", "thinking": [{"type": "text", "text": "Je réfléchis."}]},
...          {"type": "text", "text": "Bonjour"}]
>>> answer_text({"role": "assistant", "content": parts}), reasoning_text({"content": parts})
('Bonjour', 'Je réfléchis.')

>>> cost((0.15, 0.60), sent=1_000, received=100)  # dollars
0.00021
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..limits import MODEL_TIMEOUT
from ..messages import Message, read_call, valid_message

# The real model used when none is named: cheap, and it calls tools. HARNESS_MODEL overrides it.
DEFAULT_MODEL = "openai/gpt-4o-mini"

Price = tuple[float, float]  # dollars per million tokens: (input, output)


@dataclass
class Completion:
    """One answer of the model.

    message        the assistant message with every field the API sent (reasoning,
                   signatures, refusal...): it goes back as it came (RULE 1)
    finish_reason  "stop", "tool_calls", "length", ...
    usage          the API's token counts ({"prompt_tokens", "completion_tokens", ...}) or None
    request        what was sent: {"url", "headers" (key redacted), "body"}; for --debug
    cost           dollars, as the provider billed this call (`usage.cost`); None if it did not say
    notes          what the harness had to change in the message, in French (reply.py)

    >>> reply = Completion({"role": "assistant", "content": "", "refusal": "I can't."})
    >>> reply.text, reply.refusal, reply.reasoning
    ('', "I can't.", None)
    """

    message: Message
    finish_reason: str = "stop"
    usage: dict[str, int] | None = None
    request: dict[str, Any] = field(default_factory=dict)
    cost: float | None = None
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # A lone surrogate (a model's bad escape) can be neither sent back nor saved: � instead.
        self.message = valid_message(self.message)

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return list(self.message.get("tool_calls") or [])

    @property
    def text(self) -> str:
        """The answer's text, for the person (text parts only, never the reasoning)."""
        return answer_text(self.message)

    @property
    def reasoning(self) -> str | None:
        """The reasoning the provider showed (reasoning_content, reasoning, thinking parts)."""
        return reasoning_text(self.message)

    @property
    def refusal(self) -> str | None:
        """The model's refusal, in the provider's words, or None."""
        return refusal_text(self.message)

    @property
    def label(self) -> str:
        """Its arrow in a diagram: « tool_call read_file("README.md") », or « Réponse finale »."""
        calls = [read_call(call).label for call in self.tool_calls]
        return "tool_call " + ", ".join(calls) if calls else "Réponse finale"


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


# Where providers put the reasoning they show: DeepSeek and Z.ai, then OpenRouter, Groq, Ollama.
REASONING_FIELDS = ("reasoning_content", "reasoning")


def answer_text(message: Message) -> str:
    """The answer's text: `content` itself, or its `text` parts joined (never the thinking)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part["text"] for part in _parts(content, "text")
                   if isinstance(part.get("text"), str))


def reasoning_text(message: Message) -> str | None:
    """The reasoning the provider showed, as one text; None when it showed none."""
    for name in REASONING_FIELDS:
        if isinstance(message.get(name), str) and message[name].strip():
            return str(message[name])
    # Mistral: a "thinking" part holds its own list of text parts.
    texts = [_flat(part.get("thinking")) for part in _parts(message.get("content"), "thinking")]
    return "\n".join(t for t in texts if t) or None


def refusal_text(message: Message) -> str | None:
    """The provider's words when the model refused to answer, or None."""
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal.strip():
        return refusal
    words = [p["refusal"] for p in _parts(message.get("content"), "refusal")
             if isinstance(p.get("refusal"), str)]
    return " ".join(words) or None


def _parts(content: object, kind: str) -> list[dict[str, Any]]:
    if not isinstance(content, list):
        return []
    return [part for part in content if isinstance(part, dict) and part.get("type") == kind]


def _flat(value: object) -> str:
    """A thinking part's text: a string, or a list of text parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(p.get("text", "") for p in value
                       if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""
