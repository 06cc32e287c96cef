"""messages[] as a list under the API's refusal: one line a message, the refused one in full.

send() shows it next to the provider's text: the message the API names is framed in red,
written out as JSON, and the line of the field it names is highlighted (or, when the field
is missing, a line says which one).

>>> from harness_lib.course.playground.conversation import Mark
>>> page = messages_html([{"role": "user", "content": "Bonjour"}, {"role": "tool", "content": ""}],
...                      Mark(1, "tool_call_id"))
>>> "[0] user · Bonjour" in page, 'il manque "tool_call_id"' in page
(True, True)
"""

from __future__ import annotations

import html
import json
import re
import reprlib

from ...text import french_number, shorten
from ..drawing.diagram import message_label
from .conversation import Mark, shown

RED = "#c62828"
HIGHLIGHT = "background:#ffcdd2;font-weight:bold"


def messages_html(messages: object, mark: Mark) -> str:
    """messages[] one line each, numbered; the refused one in full, its field highlighted."""
    if not isinstance(messages, (list, tuple)):
        return ""
    rows, previous = [], -1
    for i in shown(len(messages), mark.index):
        if i != previous + 1:
            rows.append("<div>…</div>")
        rows.append(_marked(i, messages[i], mark.field) if i == mark.index else
                    f"<div>[{i}] {html.escape(_summary(messages[i]))}</div>")
        previous = i
    return ('<p>Votre messages[] : l’API désigne le message en rouge.</p>'
            f'<div style="font:12px/1.5 monospace">{"".join(rows)}</div>')


def _summary(message: object) -> str:
    if not isinstance(message, dict):
        return f"? ({type(message).__name__})"
    try:
        label = message_label(message)
    except Exception:  # whatever the learner wrote, the list is still shown
        label = "(illisible)"
    return shorten(" ".join(f"{message.get('role')} · {label}".split()), 110)


def _marked(i: int, message: object, field: str) -> str:
    """The refused message as JSON, the lines of the named field highlighted."""
    key = re.split(r"[.\[]", field.rsplit(".", 1)[-1])[0]  # tool_calls[0].id -> id
    text = _json(message)
    lines = [f'<mark style="{HIGHLIGHT}">{html.escape(line)}</mark>'
             if key and f'"{key}":' in line else html.escape(line) for line in text.splitlines()]
    if key and f'"{key}":' not in text:
        lines.append(f'<mark style="{HIGHLIGHT}">  ← il manque "{html.escape(key)}"</mark>')
    where = f"messages[{i}]" + (f".{field}" if field else "")
    return (f'<div style="border-left:4px solid {RED};background:#ffebee;color:#212529;'
            f'padding:2px 6px;margin:2px 0">[{i}] ✘ <b>{html.escape(where)}</b>'
            f'<pre style="margin:2px 0;white-space:pre-wrap">{chr(10).join(lines)}</pre></div>')


def _json(message: object, limit: int = 1500) -> str:
    """A message as indented JSON (or its repr when it is not JSON), at most `limit` characters."""
    try:
        text = json.dumps(message, ensure_ascii=False, indent=2, default=_repr)
    except (TypeError, ValueError, RecursionError):  # circular, or keys that are not text
        text = _repr(message)
    cut = len(text) - limit
    return text if cut <= 0 else f"{text[:limit]}\n… ({french_number(cut)} caractères coupés)"


def _repr(value: object) -> str:
    try:
        return reprlib.repr(value)
    except Exception:  # even repr() may fail on a learner's object
        return f"<objet {type(value).__name__} illisible>"
