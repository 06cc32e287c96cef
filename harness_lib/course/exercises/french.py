"""French text, both ways: numbers as learners type them (`text.french_number` writes them),
short answers reduced to what they mean, and French typography for what widgets show.

>>> parse_number("234 000"), normalise("  « Tool » ")
(234000.0, 'tool')
"""

from __future__ import annotations

import re
import unicodedata

from ...text import french_number

__all__ = ["comma_hint", "normalise", "parse_number", "typography"]

_SEPARATORS = re.compile(r"[\s'’_]")  # thousands, as people type them (NFKC made them spaces)
_UNIT = re.compile(r"^[^\d.,+-]+|[^\d.,]+$")  # « ≈ » before, « tokens », « appels » after


def parse_number(typed: str | float) -> float:
    """The number a learner typed: spaces, a unit after it, a comma or a point for decimals.

    >>> [parse_number(t) for t in ("36 000", "36000", "0,5", "0.5", "1.234,5", "−3", "≈ 12 appels")]
    [36000.0, 36000.0, 0.5, 0.5, 1234.5, -3.0, 12.0]
    """
    if isinstance(typed, (int, float)) and not isinstance(typed, bool):
        return float(typed)
    text = unicodedata.normalize("NFKC", str(typed)).strip().replace("−", "-")
    text = _SEPARATORS.sub("", _UNIT.sub("", text))
    points, commas = text.count("."), text.count(",")
    if points and commas:  # the last one marks the decimals: 1.234,5 or 1,234.5
        decimal = "," if text.rfind(",") > text.rfind(".") else "."
        text = text.replace("." if decimal == "," else ",", "").replace(",", ".")
    elif points > 1 or commas > 1:  # 1.234.567: thousands only
        text = text.replace(".", "").replace(",", "")
    try:
        return float(text.replace(",", "."))
    except ValueError:
        raise ValueError(f"« {str(typed).strip()} » n’est pas un nombre : écrivez par exemple "
                         "36 000 ou 0,5.") from None


def comma_hint(typed: str | float) -> str:
    """36,000 in French is 36: say so to whoever meant thirty-six thousand."""
    if isinstance(typed, str) and re.fullmatch(r"\s*\d{1,3},\d{3}\s*", typed):
        return (f" (En français, la virgule marque les décimales : « {typed.strip()} » se lit "
                f"{french_number(parse_number(typed))}. Pour les milliers, mettez une espace.)")
    return ""


def normalise(text: str) -> str:
    """What a short answer means: no case, accents, extra spaces or surrounding quotes.

    >>> normalise("  « Tool_Call_ID » "), normalise("Modèle  simulé.")
    ('tool_call_id', 'modele simule')
    """
    plain = "".join(c for c in unicodedata.normalize("NFKD", text)
                    if not unicodedata.combining(c))
    plain = re.sub(r"\s+", " ", plain.casefold().replace("’", "'"))
    return plain.strip(" \"'«»“”`.!?;:")


_CODE = re.compile(r"(<code>.*?</code>|<pre>.*?</pre>)", re.DOTALL)
_RULES = [
    (re.compile(r" ([;!?])"), "\u202f\\1"),  # narrow no-break space before ; ! ?
    (re.compile(r" :"), "\u00a0:"),  # no-break space before :
    (re.compile(r"« "), "«\u00a0"), (re.compile(r" »"), "\u00a0»"),  # and inside « »
    (re.compile(r"(?<=\d) (?=\d{3}\b)"), "\u202f"),  # 36 000: one word, never cut
    (re.compile(r"(?<=[^\W\d_])'(?=[^\W\d_])"), "’"),  # l'API -> l’API, not 'call_9'
]


def typography(text: str) -> str:
    """French typography outside code: no-break spaces before : ; ! ?, inside « » and in
    numbers (a line never starts with a lone « ? » or « 000 »), curly apostrophes.

    >>> typography("L'API ? « <code>a : 'b'</code> » : 36 000") == (
    ...     "L’API\u202f? «\u00a0<code>a : 'b'</code>\u00a0»\u00a0: 36\u202f000")
    True
    """
    parts = _CODE.split(text)
    for i in range(0, len(parts), 2):  # even parts are prose, odd ones code
        for pattern, replacement in _RULES:
            parts[i] = pattern.sub(replacement, parts[i])
    return "".join(parts)
