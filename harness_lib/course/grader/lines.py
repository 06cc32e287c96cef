"""The learner's own lines: found in their loop's source, named by their number in the cell
(the harness's own loop, 08's corrigé, by its number in its file, named).

>>> from harness_lib.course.missions.own_loop import reference_loop
>>> code_line(reference_loop, r"tool_result\\(").split("`")[1]
'messages.append(tool_result(appel["id"], resultat))'
>>> "de harness_lib/minimal_loop.py" in code_line(reference_loop, r"tool_result\\(")
True
>>> code_line(reference_loop, r"nulle part")
''
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from typing import Any


def numbered(loop: Any) -> list[tuple[int, str]]:
    """The loop's lines with their numbers (as a traceback counts them); [] without source."""
    try:
        lines, first = inspect.getsourcelines(loop)
    except (OSError, TypeError):
        return []
    return [(first + i, line.rstrip("\n")) for i, line in enumerate(lines)]


def code_only(line: str) -> str:
    """A line as shown to the learner: its code, without the comment aligned after it."""
    return re.sub(r"\s{2,}#.*$", "", line).strip()


def find_lines(loop: Any, pattern: str) -> list[tuple[int, str]]:
    """The lines of code (comments aside) that match `pattern`."""
    found = re.compile(pattern)
    return [(n, code_only(line)) for n, line in numbered(loop)
            if found.search(line.split("#")[0])]


def code_line(loop: Any, pattern: str) -> str:
    """« (ligne 7 : `…`) » for the one line that matches; "" if none or several do."""
    lines = find_lines(loop, pattern)
    return f" (ligne {lines[0][0]}{_place(loop)} : `{lines[0][1]}`)" if len(lines) == 1 else ""


def source_line(loop: Any, text: str) -> str:
    """« , après la ligne 6 (`…`) »: where a missing line goes, after the one holding `text`."""
    lines = find_lines(loop, re.escape(text))
    return f", après la ligne {lines[0][0]}{_place(loop)} (`{lines[0][1]}`)" if len(lines) == 1 \
        else ""


def _place(loop: Any) -> str:
    """« de harness_lib/minimal_loop.py » for the harness's own loop (or a copy of it made by
    `without`): its lines are not the learner's cell's, so the file is named; "" for a cell."""
    module = getattr(loop, "__globals__", {}).get("__name__")
    if isinstance(module, str) and module.startswith("harness_lib."):
        return " de " + module.replace(".", "/") + ".py"
    return ""


def ellipses(loop: Any) -> list[int]:
    """The lines where the skeleton's `...` is still there (in code: not in a comment)."""
    try:
        lines, first = inspect.getsourcelines(loop)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return []
    return sorted({first + node.lineno - 1 for node in ast.walk(tree)
                   if isinstance(node, ast.Constant) and node.value is Ellipsis})
