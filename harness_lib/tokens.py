"""How much of the context window each part of `messages[]` takes: an offline estimate.

Exact counts need the model's own tokenizer (often a download, and each model
family has its own). To see what weighs most in the context, an estimate is
enough, so we use the usual rule of thumb, with no download:

- about 4 characters per token for text (English and French alike, roughly);
- tool calls count as the JSON text sent to the API;
- each message costs 4 more tokens for its framing (role, separators), as in
  OpenAI's own counting recipe.

When the API answers, its `usage` gives the real figures: prefer them.

>>> estimate("Lis README.md et résume le projet")
9
>>> ledger([{"role": "system", "content": "Tu es un agent."},
...         {"role": "user", "content": "Lis README.md"}], [])
{'system': 8, 'user': 8}
"""

from __future__ import annotations

import json
from typing import Any

from .messages import Message

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4  # tokens of framing per message (role, start and end markers)
LEDGER_ROLES = ("system", "tools", "user", "assistant", "tool")
ROLE_ALIASES = {"developer": "system", "function": "tool"}  # newer or older names of a role


def estimate(text: str) -> int:
    """Tokens of `text`: one per 4 characters, rounded up (at least 1 unless empty)."""
    return -(-len(text) // CHARS_PER_TOKEN)  # ceiling division


def message_tokens(message: object) -> int:
    """Tokens one message takes in the context: its text, its tool calls, its framing.

    Tolerant: whatever is not a well-formed message is counted as the JSON it
    would be sent as, and what cannot be turned into JSON counts for nothing.
    """
    if not isinstance(message, dict):
        return estimate(_as_text(message))
    total = MESSAGE_OVERHEAD + estimate(_as_text(message.get("content")))
    if message.get("tool_calls"):  # the requests travel as JSON text
        total += estimate(_as_text(message["tool_calls"]))
    if message.get("tool_call_id") is not None:  # links a result to its request
        total += estimate(_as_text(message["tool_call_id"]))
    return total


def tools_tokens(tool_schemas: object) -> int:
    """Tokens of the tool definitions, sent with every call (the JSON schemas)."""
    if not isinstance(tool_schemas, (list, tuple)):
        return 0
    return sum(estimate(_as_text(schema)) for schema in tool_schemas)


def ledger(messages: list[Message], tool_schemas: list[dict[str, Any]]) -> dict[str, int]:
    """Tokens per role in the context, in the order system, tools, user, assistant, tool.

    Only non-zero roles appear. Messages without a known role are left out.
    """
    totals = dict.fromkeys(LEDGER_ROLES, 0)
    totals["tools"] = tools_tokens(tool_schemas)
    for message in messages if isinstance(messages, (list, tuple)) else []:
        role = message.get("role") if isinstance(message, dict) else None
        role = ROLE_ALIASES.get(role, role) if isinstance(role, str) else None
        if role in totals and role != "tools":
            totals[role] += message_tokens(message)
    return {role: tokens for role, tokens in totals.items() if tokens}


def _as_text(value: object) -> str:
    """The text the API would receive for `value` ("" if it cannot be sent)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:  # skipkeys: a dict with non-text keys still counts what it can
        return json.dumps(value, ensure_ascii=False, skipkeys=True)
    except (TypeError, ValueError, RecursionError):  # not JSON, circular, too deep
        return ""
