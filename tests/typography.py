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
fix the Markdown cells of notebooks, or the French strings of modules, in place.
"""

from __future__ import annotations

import ast
import io
import json
import re
import sys
import tokenize
from collections.abc import Callable, Iterator
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
NAMES = {"JupyterLab", "Python", "Mermaid", "Binder", "OpenRouter", "X"}  # X: an f-string's {…}


def capitals_after_colon(text: str) -> list[str]:
    """Each word that starts a sentence after a colon, as in « Arrêt : Le modèle… »."""
    prose, _ = _masked(text)
    return [m.group(1) for m in _CAPITAL.finditer(prose)
            if m.group(1) not in NAMES and not m.group(1).isupper()]


_FRENCH = re.compile(r"[éèêàùçôîœ«»’]|\b[cdjlmnst]'[aeiouhéèêàô]|(?:\w|^) [:;!?](?:\s|$)"  # a :
                     r"|\b(?:le|la|les|un|une|des|du|de|et|ou|est|pas|dans|pour|sur|avec|sans)\b",
                     re.I)


_REGEX_CALLS = {"compile", "sub", "subn", "search", "match", "fullmatch", "findall", "finditer",
                "split"}


def _is_code_argument(node: ast.AST) -> bool:
    """Whether `node` is a call whose first argument is code: a regex, or strip's characters."""
    if not isinstance(node, ast.Call) or not node.args or not isinstance(node.func, ast.Attribute):
        return False
    name, owner = node.func.attr, node.func.value
    return name in {"strip", "lstrip", "rstrip"} or (
        name in _REGEX_CALLS and isinstance(owner, ast.Name) and owner.id == "re")


def _french_nodes(tree: ast.AST) -> list[tuple[ast.expr, str]]:
    """Each French string node of a module with its text, docstrings left out.

    An f-string is read with each `{…}` replaced by `X`, as a learner would see it filled;
    its constant parts are not read again on their own.
    """
    skipped = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr)
    }
    skipped |= {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
                for v in node.values}
    skipped |= {id(node.args[0]) for node in ast.walk(tree) if _is_code_argument(node)}
    found: list[tuple[ast.expr, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "X" for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if id(node) not in skipped and _FRENCH.search(text):
            found.append((node, text))
    return found


def french_strings(path: Path) -> list[tuple[int, int, str]]:
    """(first line, last line, text) of each French string of a module, docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.lineno, node.end_lineno or node.lineno, text)
            for node, text in _french_nodes(tree)]


_FIELD = re.compile(r"\{(?:[^{}]|\{[^{}]*\})*\}")  # {…} of an f-string, {{…}} too


def _fix_literal(literal: str) -> str:
    """A string literal's source fixed, the `{…}` of an f-string (code) left as written."""
    if not re.match(r"[a-zA-Z]*[fF]", literal):
        return fix(literal)
    fields: list[str] = []

    def hold(match: re.Match[str]) -> str:
        fields.append(match.group(0))
        return f"\ue002{len(fields) - 1}\ue001"

    fixed = fix(_FIELD.sub(hold, literal))
    return re.sub("\ue002(\\d+)\ue001", lambda m: fields[int(m.group(1))], fixed)


def _literals(source: str, at: Callable[[int, int], int]) -> Iterator[tuple[int, int]]:
    """(start, end) offsets of each string literal, an f-string whole (Python 3.12 splits it)."""
    depth, start = 0, 0
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING and not depth:
            yield at(*token.start), at(*token.end)
        elif token.type == fstring_start:
            depth, start = depth + 1, start if depth else at(*token.start)
        elif token.type == getattr(tokenize, "FSTRING_END", None):
            depth -= 1
            if not depth:
                yield start, at(*token.end)


def fix_python(path: Path) -> int:
    """Fix the French strings of a Python module in place; return how many literals changed.

    Works on the source text of each string literal of a French string, so quotes, escapes
    and the `{…}` of f-strings stay as they were written, and an English string on the same
    line is left alone.
    """
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def at(row: int, col: int) -> int:  # tokenize's (row, column in characters) as an offset
        return offsets[row - 1] + col

    def char(row: int, byte: int) -> int:  # ast's columns count UTF-8 bytes
        return at(row, len(lines[row - 1].encode()[:byte].decode()))

    spans = [(char(n.lineno, n.col_offset), char(n.end_lineno or n.lineno, n.end_col_offset or 0))
             for n, text in _french_nodes(ast.parse(source)) if problems(text)]
    changed, out, last = 0, [], 0
    for start, end in _literals(source, at):
        if any(a <= start and end <= b for a, b in spans):
            literal = source[start:end]
            fixed = _fix_literal(literal)
            out += [source[last:start], fixed]
            last, changed = end, changed + (fixed != literal)
    if changed:
        path.write_text("".join(out) + source[last:], encoding="utf-8")
    return changed


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
    if sys.argv[1:2] != ["--fix"]:
        sys.exit("usage : python tests/typography.py --fix FICHIER.ipynb|FICHIER.py…")
    for name in sys.argv[2:]:
        fixer = fix_notebook if name.endswith(".ipynb") else fix_python
        print(f"{name} : {fixer(Path(name))} correction(s)")
