"""Text shown to people: one line, and short enough to read at a glance.

Labels, explanations and terminal lines all need the same two things: a text
on one line (a line break would break a diagram's arrow or the CLI's layout,
an escape code would drive the terminal), and a bounded length.

>>> one_line("# Mini harness\\nUne boucle\\x1b[31m et un outil.")
'# Mini harness Une boucle [31m et un outil.'
>>> shorten("Corrige formatPrice pour les montants négatifs", 20)
'Corrige formatPrice…'
"""

from __future__ import annotations

import re

# Control characters (terminal escape codes included) and the Unicode line separators.
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def one_line(text: str) -> str:
    """`text` on one line: each run of line breaks or control characters becomes one space."""
    return _BREAKS.sub(" ", text).strip()


LABEL_LIMIT = 80  # characters: a diagram's label must stay readable at a glance


def shorten(text: str, limit: int = LABEL_LIMIT) -> str:
    """`text` if it fits in `limit` characters, else cut to `limit` with « … » as the last one.

    80 characters by default: a diagram's label must stay readable at a glance.
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def dollars(amount: float) -> str:
    """An amount of dollars in French, in words: « 0,15 $ … 0,60 $ » is read as maths by Markdown.

    >>> dollars(0.0003), dollars(0.000412), dollars(2.5)
    ('0,0003 dollar', '0,000412 dollar', '2,5 dollars')
    """
    digits = f"{amount:.6f}".rstrip("0").rstrip(".") or "0"
    return digits.replace(".", ",") + (" dollars" if abs(amount) >= 2 else " dollar")
