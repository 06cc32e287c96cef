"""A run's messages as « Que sait le modèle ? » shows them: each written once, as HTML.

At step k the panel shows whole slices of messages[] (what the last call received,
the messages added since). Writing those slices into every step made a player's
state grow with the square of the run (a 15-turn run reading 100 kB files: 50 MB).
So each message is written once, in the text part's `messages` list, and a step's
HTML only says which slice goes where: `<pre class="harness-messages" data-from="0"
data-to="3">`, filled by the browser (`stepper.js`, when the panel is open) as
`fill` does here. A string longer than `LONG` characters shows its first `SHOWN`,
the whole text one click away (a `<details>`).

>>> items = [message_html({"role": "user", "content": "Lis a.txt"})]
>>> print(fill(slice_html(0, 1), items).removeprefix(slice_html(0, 1)[:-6]))
[
  {
    &quot;role&quot;: &quot;user&quot;,
    &quot;content&quot;: &quot;Lis a.txt&quot;
  }
]</pre>
>>> "texte complet" in message_html({"role": "tool", "content": "x" * 5000})
True
"""

from __future__ import annotations

import html
import json
import re
import uuid

from ...text import french_number as fr

PRE = "white-space:pre-wrap;max-height:360px;overflow:auto;margin:2px 0"
LONG, SHOWN = 1000, 300  # a longer string shows its first SHOWN characters, the rest folded
WHOLE = ("display:block;white-space:pre-wrap;border-left:3px solid #adb5bd;padding-left:6px;"
         "max-height:300px;overflow:auto")
_SLICE = re.compile(r'(<pre class="harness-messages" data-from="(\d+)" data-to="(\d+)"'
                    r' style="[^"]*">)(</pre>)')
# A long string's place in the escaped JSON: the message's own mark (uuid4().hex), its number.
_MARKED = re.compile(r"&quot;([0-9a-f]{32})(\d+)&quot;(,?)\n?")


def slice_html(start: int, end: int) -> str:
    """The place of messages[start:end] in a step's HTML, filled by the browser."""
    return f'<pre class="harness-messages" data-from="{start}" data-to="{end}" style="{PRE}"></pre>'


def fill(page: str, items: list[str]) -> str:
    """What the browser shows: each slice's place filled with its messages, as one JSON
    list (`json.dumps(messages, indent=2)`, long strings folded)."""
    def filled(match: re.Match[str]) -> str:
        part = items[int(match[2]):int(match[3])]
        return match[1] + ("[\n" + ",\n".join(part) + "\n]" if part else "[]") + match[4]

    return _SLICE.sub(filled, page)


def message_html(message: object) -> str:
    """One message as an item of a pretty JSON list (indented by two), escaped; each long
    string shortened, its whole text in a `<details>` beside it."""
    mark, long = uuid.uuid4().hex, []

    def cut(value: object, depth: int = 0) -> object:
        if isinstance(value, str) and len(value) > LONG:
            long.append(value)
            return f"{mark}{len(long) - 1}"
        if depth > 50:  # a hand-written loop may append anything: said, not followed
            return "…"
        if isinstance(value, dict):
            return {k if isinstance(k, str) else str(k): cut(v, depth + 1)
                    for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [cut(v, depth + 1) for v in value]
        return value

    try:
        text = json.dumps(cut(message), ensure_ascii=False, indent=2, default=str)
    except (TypeError, ValueError, RecursionError):
        text = json.dumps(repr(message)[:LONG], ensure_ascii=False)
    text = html.escape("\n".join("  " + line for line in text.split("\n")))
    # The <details> is a block: the comma goes before it, the line break it replaces. One
    # pattern for every message (a pattern made of each message's mark is compiled anew).
    return _MARKED.sub(lambda m: _folded(long[int(m[2])], m[3]) if m[1] == mark else m[0],
                       text)


def _folded(value: str, comma: str) -> str:
    """A long string: its beginning as JSON, then the whole text, one click away."""
    start = json.dumps(value[:SHOWN], ensure_ascii=False)[:-1] + '…"' + comma
    return (f'{html.escape(start)} <details class="harness-long">'
            f'<summary>texte complet ({fr(len(value))} caractères)</summary>'
            f'<span style="{WHOLE}">{html.escape(value)}</span></details>')
