"""Text shown to people: one line, short enough to read at a glance, numbers the French way.

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


NNBSP = "\u202f"  # narrow no-break space: French thousands separator, and before ; ! ?


def french_number(value: object, digits: int | None = None) -> str:
    """`value` as French writes it: a decimal comma, thousands set apart by a narrow no-break space.

    `digits` fixes the decimals; without it, up to 6 are kept and trailing zeros dropped.
    What is not a number (an odd `usage` field from an API) is shown as it is.

    >>> french_number(36000), french_number(0.3), french_number(-1234.5), french_number(2.5, 2)
    ('36\u202f000', '0,3', '-1\u202f234,5', '2,50')
    >>> french_number(None)
    'None'
    """
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    text = f"{value:_.{6 if digits is None else digits}f}"
    if digits is None and "." in text:  # 120.000000 -> 120, 0.300000 -> 0.3
        text = text.rstrip("0").rstrip(".")
    return text.replace("_", NNBSP).replace(".", ",")


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """A count and its noun, agreed as in French (plural from 2 on): never « appel(s) ».

    >>> plural(1, "appel"), plural(2, "token"), plural(3, "demande d’outil", "demandes d’outil")
    ('1 appel', '2 tokens', '3 demandes d’outil')
    """
    return f"{french_number(n)} {noun if abs(n) < 2 else nouns or noun + 's'}"


def dollars(amount: float) -> str:
    """An amount of dollars in French, in words: « 0,15 $ … 0,60 $ » is read as maths by Markdown.

    >>> dollars(0.0003), dollars(0.000412), dollars(2.5)
    ('0,0003 dollar', '0,000412 dollar', '2,5 dollars')
    """
    return french_number(amount) + (" dollars" if abs(amount) >= 2 else " dollar")


# Names that keep their capital after a colon (acronyms and CamelCase keep it anyway).
NAMES = frozenset({"Python", "Mermaid", "Jupyter", "Binder", "Anthropic", "OpenAI", "Chromium"})


def after_colon(text: str) -> str:
    """`text` made to follow a colon: French goes on in lower case, names and codes keep theirs.

    >>> after_colon("Le modèle a répondu."), after_colon("HTTP 429"), after_colon("OpenRouter")
    ('le modèle a répondu.', 'HTTP 429', 'OpenRouter')
    """
    word = text.split(" ", 1)[0]
    if word in NAMES or any(c.isupper() for c in word[1:]):  # Python, HTTP, JupyterLab
        return text
    return text[:1].lower() + text[1:]
