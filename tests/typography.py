"""French typography for what a learner reads: the rules, a checker and a fixer.

French puts a space before the high punctuation, and that space must not break
at the end of a line:

- before ; ! ?  a narrow no-break space (U+202F);
- before :      a no-break space (U+00A0);
- inside « »    a no-break space after « and before »;
- and the apostrophe is the typographic one: l’outil, not l'outil.

What is not prose is left alone: code (fences and `inline`), URLs, Markdown
link targets, HTML tags and their attributes, times and ratios (14:30, 1:2),
and the texts we quote byte for byte (the chapter's stop message, the API's own
English texts).

    >>> for problem in problems("Que sait le modèle ? Rien: il attend."):
    ...     print(problem)
    espace avant : « e modèle ? Rien: i »
    espace avant : « e ? Rien: il atte »
    >>> fix("Que sait le modèle ? « Rien » : il attend.") == (
    ...     "Que sait le modèle\u202f? «\u00a0Rien\u00a0»\u00a0: il attend.")
    True

Run `python tests/typography.py --fix notebooks/*.ipynb harness_lib/loop.py` to
fix the Markdown cells of notebooks, or the French strings of modules (found by
typography_python.py), in place.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

NNBSP, NBSP = "\u202f", "\u00a0"
# Quoted byte for byte, as the chapter writes it (a test checks the harness prints it so).
VERBATIM = (
    "Arrêt propre: maximum de",
    "Erreur : ",  # how a failed tool result starts, for the model, as in the chapter
)

# What is not prose: each match is kept as it is.
_SKIP = re.compile(
    r"```.*?```"  # code fences (Mermaid included: its labels follow Mermaid's rules)
    r"|`[^`\n]*`"  # inline code
    r"|<(code|pre)\b[^<>]*>.*?</\1>"  # code in HTML, with its tags
    r"|<[^<>\n]*>"  # HTML tags
    r"|\{[^{}\n]*(?:\{[^{}\n]*(?:\{[^{}\n]*\}[^{}\n]*)*\}[^{}\n]*)*\}"  # {"json": …}, {field}
    r"|\b(?:accTitle|accDescr|ctx):|%%\s*\w+:"  # Mermaid's keywords, the course's annotations
    r"|\b\w+\s*--?(?:>>|>|x|\))[+-]?\s*\w+:"  # a Mermaid arrow: H->>M: label
    r"|&#?\w+;|#\d+;"  # HTML entities, Mermaid's escapes (#59; is a ;)
    r"|\]\([^)\s]*\)"  # Markdown link targets
    r"|https?://\S+"  # URLs
    r"|\b\d{1,2}:\d{2}\b"  # times
    r"|" + "|".join(re.escape(v) for v in VERBATIM),
    re.S,
)
# A space (or none) before the high punctuation, after a letter, a digit or a closing sign;
# or a space at the start of a line (« " : " + why » goes on a sentence).
_BEFORE = re.compile(r"(?:(?<=[\w)\]}*_»’'\"%€$\ue001])|^(?= ))( ?)([;!?:])"
                     r"(?=\s|$|[)\]*_»\ue000\"])", re.M)
_QUOTES = re.compile(r"«( ?)(?=\S)|(?<=\S)( ?)»")
_APOSTROPHE = re.compile(r"(?<=[^\W\d_])'(?=[^\W\d_]|\*\*)")  # l'outil, not 'x' nor a quote


def _masked(text: str) -> tuple[str, list[str]]:
    """`text` with each non-prose part replaced by a placeholder, and those parts in order.

    A placeholder stands where the part was, so « `code` : » still has a word before « : ».
    """
    kept: list[str] = []

    def hold(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return f"\ue000{len(kept) - 1}\ue001"

    return _SKIP.sub(hold, text), kept


def _unmasked(text: str, kept: list[str]) -> str:
    return re.sub("\ue000(\\d+)\ue001", lambda m: kept[int(m.group(1))], text)


def fix(text: str) -> str:
    """`text` with the French spaces and apostrophes put right in its prose parts."""
    prose, kept = _masked(text)
    prose = _BEFORE.sub(lambda m: (NBSP if m.group(2) == ":" else NNBSP) + m.group(2), prose)
    prose = _QUOTES.sub(lambda m: "«" + NBSP if m.group(0).startswith("«") else NBSP + "»", prose)
    return _unmasked(_APOSTROPHE.sub("’", prose), kept)


def problems(text: str) -> list[str]:
    """Each place where `text` breaks a rule, with a few characters around it."""
    prose, kept = _masked(text)
    found = []
    for rule, pattern in (("apostrophe droite", _APOSTROPHE), ("espace avant", _BEFORE),
                          ("espace autour des guillemets", _QUOTES)):
        for match in pattern.finditer(prose):
            around = prose[max(0, match.start() - 8) : match.end() + 8].replace("\n", " ")
            found.append(f"{rule} : « {_unmasked(around, kept).strip()} »")
    return found


# After a colon French goes on in lower case; names, acronyms and code keep their capitals.
_CAPITAL = re.compile(r"(?<=\S)\s:\s+([A-ZÀ-Ý][^\W\d_]*)\b")
# X: an f-string's {…}
NAMES = {"JupyterLab", "Python", "Mermaid", "Markdown", "Binder", "OpenRouter", "X"}


def capitals_after_colon(text: str) -> list[str]:
    """Each word that starts a sentence after a colon, as in « Arrêt : Le modèle… »."""
    prose, _ = _masked(text)
    return [m.group(1) for m in _CAPITAL.finditer(prose)
            if m.group(1) not in NAMES and not m.group(1).isupper()]


def markdown_cells(path: Path) -> list[tuple[str, str]]:
    """(cell id, source) of each Markdown cell of a notebook."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(c.get("id", "?"), "".join(c["source"])) for c in cells if c["cell_type"] == "markdown"]


def fix_notebook(path: Path) -> int:
    """Fix the Markdown cells of a notebook in place; return how many cells changed."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    changed = 0
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        before = "".join(cell["source"])
        after = fix(before)
        if after != before:
            cell["source"] = after.splitlines(keepends=True)
            changed += 1
    if changed:
        path.write_text(json.dumps(notebook, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return changed


if __name__ == "__main__":
    from typography_python import fix_notebook_code, fix_python  # French strings, found with ast

    if sys.argv[1:2] != ["--fix"]:
        sys.exit("usage : python tests/typography.py --fix FICHIER.ipynb|FICHIER.py…")
    for name in sys.argv[2:]:
        path = Path(name)
        count = fix_notebook(path) + fix_notebook_code(path) if path.suffix == ".ipynb" else \
            fix_python(path)
        print(f"{name} : {count} correction(s)")
