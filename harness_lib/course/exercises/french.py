"""French text, both ways: numbers as learners type them (`text.french_number` writes them),
short answers reduced to what they mean, and French typography for what widgets show.

>>> parse_number("234 000"), normalise("  « Tool » ")
(234000.0, 'tool')
"""

from __future__ import annotations

import math
import re
import unicodedata

from ...text import french_number, shorten

__all__ = ["comma_hint", "kind", "normalise", "parse_number", "said", "typography"]

_SEPARATORS = re.compile(r"[\s'’_]")  # thousands, as people type them (NFKC made them spaces)
_UNIT = re.compile(r"^[^\d.,+-]+|[^\d.,]+$")  # « ≈ » before, « tokens », « appels » after


def parse_number(typed: str | float) -> float:
    """The number a learner typed: spaces, a unit after it, a comma or a point for decimals.

    >>> [parse_number(t) for t in ("36 000", "36000", "0,5", "0.5", "1.234,5", "−3", "≈ 12 appels")]
    [36000.0, 36000.0, 0.5, 0.5, 1234.5, -3.0, 12.0]
    """
    value = _number(typed)
    if not math.isfinite(value):  # 10**400, « 1e400 », nan: no answer of the course
        raise ValueError(f"« {shorten(said(typed), 40)} » n’est pas un nombre que l’on peut "
                         "comparer : écrivez par exemple 36 000 ou 0,5.")
    return value


def _number(typed: object) -> float:
    """The number typed, perhaps infinite; ValueError in French when it is none."""
    if isinstance(typed, (int, float)) and not isinstance(typed, bool):
        try:
            return float(typed)
        except OverflowError:  # an int too large for a float: more than any answer
            return math.inf if typed > 0 else -math.inf
    text = unicodedata.normalize("NFKC", said(typed)).strip().replace("−", "-")
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
        raise ValueError(f"« {shorten(said(typed).strip(), 40)} » n’est pas un nombre : écrivez "
                         "par exemple 36 000 ou 0,5.") from None


def kind(value: object) -> str:
    """What a value is, in French, without reading it (its str() may raise).

    >>> kind("1"), kind(None), kind(object())
    ('un texte', 'None', 'un objet object')
    """
    kinds = {str: "un texte", float: "un nombre décimal", bool: "un booléen",
             type(None): "None", dict: "un dict", list: "une liste"}
    return kinds.get(type(value), f"un objet {type(value).__name__}")


def said(answer: object) -> str:
    """An answer as text, whatever it is: an object whose str() fails is said by its type.

    >>> said(3), said(["a"]), said(None)
    ('3', "['a']", '')
    """
    if answer is None:
        return ""
    try:
        return answer if isinstance(answer, str) else str(answer)
    except Exception:  # a hostile object: its own str() raises
        return f"un objet {type(answer).__name__}"


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
