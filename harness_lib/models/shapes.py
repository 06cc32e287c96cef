"""What an assistant message says, whatever shape its provider gave it.

Providers answer in several shapes that all go back to them unchanged (RULE 1):
`content` as a text, or as a list of parts (Mistral's reasoning models write
`[{"type": "thinking", ...}, {"type": "text", "text": ...}]`); the visible
reasoning in `reasoning_content` (DeepSeek, Z.ai), `reasoning` (OpenRouter,
Groq, Ollama) or in thinking parts; a refusal in `refusal` (OpenAI) or in a
`refusal` part. These readers take the text out for the person, and never
change the message.

>>> parts = [{"type": "thinking", "thinking": [{"type": "text", "text": "Je réfléchis."}]},
...          {"type": "text", "text": "Bonjour"}]
>>> answer_text({"role": "assistant", "content": parts}), reasoning_text({"content": parts})
('Bonjour', 'Je réfléchis.')
>>> refusal_text({"role": "assistant", "content": None, "refusal": "I can't help with that."})
"I can't help with that."
"""

from __future__ import annotations

from typing import Any

from ..messages import Message

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
    for field in REASONING_FIELDS:
        if isinstance(message.get(field), str) and message[field].strip():
            return str(message[field])
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
