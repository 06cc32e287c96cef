"""The `--debug` view: the request the harness is about to send, made readable.

Options first (model, turn, timeouts), then the tools with their parameters,
then the numbered messages, long contents shortened with a visible marker.
The API key never appears: headers are already redacted by the model, and
`redact()` scrubs any known key from the text as a second line of defence.

>>> body = {"model": "mock", "messages": [{"role": "user", "content": "Bonjour"}], "tools": []}
>>> print(format_request({"body": body}, turn=1, max_turns=3).splitlines()[-1])
  [0] user : Bonjour
"""

from __future__ import annotations

import json
from typing import Any

from .. import secrets as known_secrets
from ..limits import MODEL_TIMEOUT, TOOL_TIMEOUT
from ..messages import read_call, valid_text
from ..text import french_number, one_line


def shorten(text: str, limit: int = 300) -> str:
    """One line, at most `limit` characters, with a marker saying how much was cut.

    Unlike text.shorten, the marker counts what is hidden: a debug view must say so.
    """
    flat = one_line(str(text))
    if len(flat) <= limit:
        return flat
    return f"{flat[:limit]}… [{french_number(len(flat) - limit)} caractères coupés]"


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """Replace every known secret (given, a model client's key, a secret-looking
    variable's value: see secrets.py) by ***."""
    for secret in secrets:
        text = text.replace(secret, known_secrets.HIDDEN)
    return known_secrets.redact(text)


def format_request(
    request: dict[str, Any],
    *,
    turn: int,
    max_turns: int,
    model_timeout: float = MODEL_TIMEOUT,
    tool_timeout: float = TOOL_TIMEOUT,
    limit: int = 300,
) -> str:
    body = request.get("body", {})
    tools, messages = body.get("tools") or [], body.get("messages") or []
    lines = [
        f"── Requête {turn} " + "─" * 40,
        f"options : modèle={body.get('model')} · tour {turn}/{max_turns} · "
        f"délai modèle {french_number(model_timeout)} s · "
        f"délai outil {french_number(tool_timeout)} s",
    ]
    if request.get("url"):
        lines.append(f"url : {request['url']}")
    lines.append(f"outils ({len(tools)}) :")
    lines += [f"  - {_tool_line(t)}" for t in tools]
    lines.append(f"messages ({len(messages)}) :")
    lines += [f"  [{i}] {_message_line(m, limit)}" for i, m in enumerate(messages)]
    return valid_text(redact("\n".join(lines)))  # printable in any terminal, saved as UTF-8


def _tool_line(schema: dict[str, Any]) -> str:
    try:
        return _tool_signature(schema)
    except (AttributeError, TypeError):  # a hand-written schema of any shape: shown raw
        return shorten(repr(schema), 120)


def _tool_signature(schema: dict[str, Any]) -> str:
    fn = schema.get("function", {})
    params = fn.get("parameters", {})
    required = set(params.get("required", []))
    args = ", ".join(
        f"{name}: {spec.get('type', '?')}{'' if name in required else '?'}"
        for name, spec in params.get("properties", {}).items()
    )
    return f"{fn.get('name')}({args}) — {shorten(fn.get('description', ''), 80)}"


def _message_line(message: Any, limit: int) -> str:
    if not isinstance(message, dict):
        return f"(pas un objet) {shorten(repr(message), limit)}"
    role, head = message.get("role"), ""
    if role == "tool":
        head = f" ({message.get('tool_call_id')})"
    requests = message.get("tool_calls")
    requests = requests if isinstance(requests, list) else []  # a learner's list may hold anything
    calls = [f"{call.id} {call.name}({call.text})" for call in map(read_call, requests)]
    content = message.get("content")
    text = shorten(content if isinstance(content, str) else json.dumps(content, default=repr),
                   limit)
    return f"{role}{head} : {text}" + (f" · tool_calls : {'; '.join(calls)}" if calls else "")

