"""Show the harness's own code in a notebook: line numbers, colours, marked places.

A *mark* is a comment such as `# RULE 1: ...` in the source. `show_source` finds
each mark, highlights the comment and the statement right below it (the line it
explains), and returns a `SourceView`: plain data plus the HTML a notebook
displays. A mark that is missing raises ValueError: the course never points at
a line that is not there. `side_by_side` pairs lines of pseudo-code with the
line of code that does it, found by content (never by a hard-coded number).

>>> from harness_lib import loop
>>> view = show_source(loop, marks=("RULE 1", "RULE 2", "EXIT"), function="run")
>>> [m.label for m in view.marks]
['RULE 1', 'RULE 2', 'EXIT']
>>> view.lines[view.mark("EXIT").last - 1].strip()
'return finish(rec, reply)'
"""

from __future__ import annotations

import ast
import html
import inspect
import io
import keyword
import re
import tokenize
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

COLOURS = ("#fff3b0", "#d8f0ff", "#ffd9d2", "#dff5d8")  # one background per mark
# The listing's own page, white whatever Lab's theme: its marks, greys and syntax colours
# are chosen for white (4.5:1), and a dark theme would put them on #111.
PAGE = "background:#fff;color:#212529"
# A table's header: Lab's own grey for its theme (its rows are striped by Lab's theme too),
# under Lab's text colour; #f0f0f0 where Lab's variables are absent (an export).
HEAD = "background:var(--jp-layout-color2,#f0f0f0)"
STYLES = {"comment": "color:#495057;font-style:italic", "string": "color:#166d2f",
          "keyword": "color:#a626a4;font-weight:bold"}
LINE = "display:flex;white-space:pre;font-family:monospace;font-size:12.5px;line-height:1.45"


@dataclass(frozen=True)
class Mark:
    label: str  # the text after "#" in the source: RULE 1
    first: int  # line of the comment (counted from 1)
    last: int  # last line of the statement the comment explains
    note: str = ""


@dataclass(frozen=True)
class SourceView:
    path: Path
    lines: tuple[str, ...]  # the whole file
    first: int  # first line shown
    last: int  # last line shown
    marks: tuple[Mark, ...]
    html: str

    def mark(self, label: str) -> Mark:
        return next(m for m in self.marks if m.label == label)

    def _repr_html_(self) -> str:
        return self.html


def source_of(module_or_path: ModuleType | str | Path) -> Path:
    """The file of a module (harness_lib.loop) or a path given as is."""
    if isinstance(module_or_path, ModuleType):
        return Path(inspect.getsourcefile(module_or_path) or "")
    return Path(module_or_path)


def locate(source: str, needle: str, occurrence: int | None = None) -> int:
    """The line (from 1) containing `needle`: the only one, or the n-th (1, 2… or -1 for the last).

    ValueError when it is absent, or ambiguous and no occurrence is given.
    """
    found = [i for i, line in enumerate(source.splitlines(), 1) if needle in line]
    if occurrence is None and len(found) != 1:
        raise ValueError(f"« {needle} » apparaît {len(found)} fois dans le code (une attendue)")
    index = 0 if occurrence is None else occurrence - 1 if occurrence > 0 else occurrence
    if not -len(found) <= index < len(found):
        raise ValueError(f"« {needle} » n’apparaît que {len(found)} fois dans le code")
    return found[index]


def find_marks(source: str, marks: Mapping[str, str] | Sequence[str]) -> list[Mark]:
    """Each mark's comment line and the end of the statement below it."""
    notes = dict(marks) if isinstance(marks, Mapping) else {m: "" for m in marks}
    ends = _statement_ends(source)
    lines, found = source.splitlines(), []
    for label, note in notes.items():
        pattern = re.compile(rf"#\s*{re.escape(label)}(?![\w])")
        hits = [i for i, line in enumerate(lines, 1) if pattern.search(line)]
        if not hits:
            raise ValueError(f"repère introuvable dans le code : « # {label} »")
        code = [i for i in range(hits[0] + 1, len(lines) + 1)
                if lines[i - 1].strip() and not lines[i - 1].strip().startswith("#")]
        below = code[0] if code else hits[0]
        found.append(Mark(label, hits[0], ends.get(below, below), note))
    return found


def _statement_ends(source: str) -> dict[int, int]:
    """Line where each statement starts -> its last line (an `if` includes its body)."""
    ends: dict[int, int] = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:  # not Python: each mark covers one line
        return ends
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.end_lineno is not None:
            ends[node.lineno] = max(ends.get(node.lineno, 0), node.end_lineno)
    return ends


def _function_span(source: str, name: str) -> tuple[int, int]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return first, node.end_lineno or node.lineno
    raise ValueError(f"fonction introuvable dans le code : {name}")


def _spans(source: str) -> dict[int, list[tuple[int, int, str]]]:
    """Per line: (start column, end column, style) of comments, strings and keywords."""
    spans: dict[int, list[tuple[int, int, str]]] = {}
    lines = source.splitlines()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):  # not Python: no colours, still readable
        return spans
    for tok in tokens:
        kind = {tokenize.COMMENT: "comment", tokenize.STRING: "string"}.get(tok.type)
        if tok.type == tokenize.NAME and keyword.iskeyword(tok.string):
            kind = "keyword"
        if kind is None:
            continue
        for row in range(tok.start[0], tok.end[0] + 1):  # a string may span several lines
            start = tok.start[1] if row == tok.start[0] else 0
            end = tok.end[1] if row == tok.end[0] else len(lines[row - 1])
            spans.setdefault(row, []).append((start, end, kind))
    return spans


def _line_html(text: str, spans: list[tuple[int, int, str]]) -> str:
    out, at = [], 0
    for start, end, kind in sorted(spans):
        out.append(html.escape(text[at:start]))
        out.append(f'<span style="{STYLES[kind]}">{html.escape(text[start:end])}</span>')
        at = end
    return "".join(out) + html.escape(text[at:])


def render(view_lines: Sequence[str], first: int, marks: Sequence[Mark], source: str) -> str:
    """HTML with inline styles only (JupyterLab's sanitizer keeps them)."""
    spans = _spans(source)
    colour = {m.label: COLOURS[i % len(COLOURS)] for i, m in enumerate(marks)}
    legend = "".join(f'<div><span style="background:{colour[m.label]};padding:0 6px">'
                     f"<b>{html.escape(m.label)}</b></span> ligne {m.first} : "
                     f"{html.escape(m.note)}</div>" for m in marks)
    rows = []
    for n, text in enumerate(view_lines, first):
        mark = next((m for m in marks if m.first <= n <= m.last), None)
        bg = f"background:{colour[mark.label]};" if mark else ""
        badge = f" ◀ {html.escape(mark.label)}" if mark and n == mark.first else ""
        rows.append(f'<div style="{LINE};{bg}"><span style="color:#495057;min-width:3.5em;'
                    f'text-align:right;padding-right:1em;user-select:none">{n}</span>'
                    f"<span>{_line_html(text, spans.get(n, []))}</span>"
                    f'<b style="color:#b00">{badge}</b></div>')
    return (f'<div style="{PAGE};padding:4px 6px">{legend}'
            f'<div style="margin-top:6px">{"".join(rows)}</div></div>')


def show_source(module_or_path: ModuleType | str | Path,
                marks: Mapping[str, str] | Sequence[str] = (),
                *, function: str | None = None) -> SourceView:
    """The file (or one function) with its marks highlighted; ValueError if a mark is missing."""
    path = source_of(module_or_path)
    source = path.read_text(encoding="utf-8")
    lines = tuple(source.splitlines())
    first, last = _function_span(source, function) if function else (1, len(lines))
    found = find_marks(source, marks)
    outside = [m.label for m in found if not first <= m.first <= last]
    if outside:
        raise ValueError(f"repère hors de la fonction {function} : {', '.join(outside)}")
    body = render(lines[first - 1:last], first, found, source)
    return SourceView(path, lines, first, last, tuple(found), body)


Needle = str | tuple[str, int] | None  # text to find, or (text, occurrence), or no code


def side_by_side(module_or_path: ModuleType | str | Path,
                 rows: Sequence[tuple[str, Needle]]) -> list[tuple[str, int | None, str]]:
    """(pseudo-code line, line number, code) for each (pseudo-code, text to find) pair."""
    source = source_of(module_or_path).read_text(encoding="utf-8")
    lines = source.splitlines()
    out: list[tuple[str, int | None, str]] = []
    for pseudo, needle in rows:
        text, occurrence = needle if isinstance(needle, tuple) else (needle, None)
        n = locate(source, text, occurrence) if text else None
        out.append((pseudo, n, lines[n - 1].strip() if n else ""))
    return out


def side_by_side_html(pairs: Sequence[tuple[str, int | None, str]], file: str = "loop.py") -> str:
    """A three-column table: pseudo-code, line number, the code on that line."""
    cell = "border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top"
    head = "".join(f'<th style="{cell};{HEAD}">{h}</th>'
                   for h in ("Pseudo-code du chapitre", "Ligne", f"Code de {html.escape(file)}"))
    rows = "".join(
        f'<tr><td style="{cell};white-space:pre;font-family:monospace">{html.escape(p)}</td>'
        f'<td style="{cell}">{n or ""}</td>'
        f'<td style="{cell}"><code>{html.escape(c)}</code></td></tr>'
        for p, n, c in pairs)
    return f'<table style="border-collapse:collapse"><tr>{head}</tr>{rows}</table>'
