"""The French strings of a Python module, for typography.py's rules: found, and fixed in place.

A string is French when it reads so (accents, « », l'outil, a space before a colon, a
few French words); docstrings, regexes (the first argument of `re.*`) and the characters
given to `strip` are code. The fixer works on the source of each literal, so quotes,
escapes and the `{…}` of f-strings stay as written.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     module = Path(folder) / "m.py"
    ...     _ = module.write_text('STOP = f"Arrêt: {n:g} s"\\nCODE = re.compile(r"a ; b")\\n')
    ...     changed, source = fix_python(module), module.read_text()
    >>> changed, source.splitlines()[0] == 'STOP = f"Arrêt\\u00a0: {n:g} s"', "a ; b" in source
    (1, True, True)
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from typography import fix, problems

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


def code_cells(path: Path) -> list[dict[str, Any]]:
    """The code cells of a notebook (they are Python: the course uses no magics)."""
    return [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
            if c["cell_type"] == "code"]


def notebook_strings(path: Path) -> list[tuple[str, int, str]]:
    """(cell id, line, text) of each French string of a notebook's code cells: what its
    cells print, and the messages of their asserts."""
    return [(cell.get("id", "?"), node.lineno, text) for cell in code_cells(path)
            for node, text in _french_nodes(ast.parse("".join(cell["source"])))]


def fix_notebook_code(path: Path) -> int:
    """Fix the French strings of a notebook's code cells in place; return how many changed."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    total = 0
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            changed, fixed = fix_source("".join(cell["source"]))
            if changed:
                cell["source"], total = fixed.splitlines(keepends=True), total + changed
    if total:
        path.write_text(json.dumps(notebook, ensure_ascii=False, indent=1) + "\n",
                        encoding="utf-8")
    return total


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
    """Fix the French strings of a Python module in place; return how many literals changed."""
    changed, fixed = fix_source(path.read_text(encoding="utf-8"))
    if changed:
        path.write_text(fixed, encoding="utf-8")
    return changed


def fix_source(source: str) -> tuple[int, str]:
    """(how many literals changed, the source) with its French strings fixed.

    Works on the source text of each string literal of a French string, so quotes, escapes
    and the `{…}` of f-strings stay as they were written, and an English string on the same
    line is left alone.
    """
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
    return changed, "".join(out) + source[last:]
