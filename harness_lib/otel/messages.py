"""Messages in the shape of the GenAI conventions v1.40.0 (`role` + `parts`), and back.

Written only when content is asked for; every text through `secrets.redact` here, before
it becomes JSON (a key with a character JSON escapes would not be found after).

>>> call = {"id": "call_1", "type": "function",
...         "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'}}
>>> out = output_message({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
>>> out["parts"][0]["type"], out["parts"][0]["arguments"], out["finish_reason"]
('tool_call', {'path': 'a.txt'}, 'tool_calls')
>>> text_of(out["parts"]), [c["id"] for c in tool_calls_of(out["parts"])]
('', ['call_1'])
"""

from __future__ import annotations

import json
from typing import Any

from ..messages import Message, read_call
from ..secrets import redact


def input_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """`gen_ai.input.messages`: each message as its role and its parts."""
    return [_parts(message) for message in messages]


def output_message(message: Message, finish_reason: object) -> dict[str, Any]:
    """One element of `gen_ai.output.messages`: the reply, and why it ended."""
    return {**_parts(message), "finish_reason": str(finish_reason or "stop")}


def _parts(message: Message) -> dict[str, Any]:
    role = str(message.get("role"))
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False) \
        if content is not None else ""
    if role == "tool":
        return {"role": "tool", "parts": [{"type": "tool_call_response", "id": redact(
            str(message.get("tool_call_id"))), "response": redact(text)}]}
    parts: list[dict[str, Any]] = [{"type": "text", "content": redact(text)}] if text else []
    for call in message.get("tool_calls") or []:
        read = read_call(call)
        arguments = read.arguments if read.arguments is not None else read.text
        parts.append({"type": "tool_call", "id": redact(read.id),
                      "name": redact(str(read.name)), "arguments": _redacted(arguments)})
    return {"role": role, "parts": parts}


def _redacted(value: object) -> object:
    """`value` with every text in it through `redact`, keys included."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(k)): _redacted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v) for v in value]
    return value


def text_of(parts: object) -> str:
    """The text parts of a message's `parts`, joined ("" when none)."""
    return "\n".join(str(p.get("content")) for p in _dicts(parts)
                     if p.get("type") == "text" and p.get("content") is not None)


def tool_calls_of(parts: object) -> list[dict[str, Any]]:
    """The `tool_call` parts of a message's `parts`."""
    return [p for p in _dicts(parts) if p.get("type") == "tool_call"]


def _dicts(parts: object) -> list[dict[str, Any]]:
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
