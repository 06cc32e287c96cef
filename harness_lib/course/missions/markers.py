"""The marked lines of a loop (`# RULE 1`, `# RULE 2`, `# EXIT`), and the loop without one.

A learner marks a line however they like: `# RULE 1` at its end or alone on the line
above, `#RULE1`, `# règle 1 : garder la réponse`, `# exit`. `without(rule, loop)` reads
the loop's source, deletes the statement so marked (with the block it opens, for an
`if …:`), and compiles the rest; the line numbers stay those of the learner's cell.

>>> find("    messages.append(r)  #RULE1"), find("# Règle 2 : le résultat"), find("# sortie")
('RULE 1', 'RULE 2', 'EXIT')
"""

from __future__ import annotations

import ast
import inspect
import linecache
import re
import textwrap
from collections.abc import Callable
from typing import Any

MARK = re.compile(r"#\s*(?:(?:rule|r[èeé]gle)\s*[-_#n°]*\s*([12])\b|(exit|sortie)\b)",
                  re.IGNORECASE)
RULES = ("RULE 1", "RULE 2", "EXIT")


class NoMark(ValueError):
    """The loop has no line marked with that rule: said in French."""


def find(line: str) -> str | None:
    """The rule a line is marked with (`RULE 1`, `RULE 2`, `EXIT`), or None."""
    found = MARK.search(line)
    if found is None:
        return None
    return f"RULE {found[1]}" if found[1] else "EXIT"


def source_of(loop: Callable[..., Any]) -> tuple[list[str], int, str]:
    """The loop's source lines, dedented, its first line number and its file (or NoMark)."""
    try:
        lines, first = inspect.getsourcelines(loop)
    except (OSError, TypeError) as err:
        raise NoMark(f"impossible de relire le code de {getattr(loop, '__name__', loop)!r} : "
                     "définissez votre boucle avec `def` dans une cellule.") from err
    text = textwrap.dedent("".join(lines))
    return text.splitlines(), first, loop.__code__.co_filename


def marked(source: list[str], rule: str) -> list[tuple[int, int, int]]:
    """Each statement marked `rule`: its first and last lines (from 1), its indent."""
    tree = ast.parse("\n".join(source))
    statements = [node for node in ast.walk(tree) if isinstance(node, ast.stmt)]
    spans = []
    for number, line in enumerate(source, start=1):
        if find(line) != rule:
            continue
        code = line.split("#")[0].strip()
        # The mark at the end of a statement's line, or alone above the next statement.
        starts = [s for s in statements if (s.lineno == number if code else s.lineno > number)]
        if starts:
            first = min(s.lineno for s in starts)
            node = min((s for s in starts if s.lineno == first), key=lambda s: s.col_offset)
            spans.append((number, node.end_lineno or node.lineno, node.col_offset))
    return spans


def without(rule: str, loop: Callable[..., Any]) -> Callable[..., Any]:
    """The same loop, its statement marked `rule` deleted, as a learner would delete it."""
    source, first, _file = source_of(loop)
    spans = marked(source, rule)
    if not spans:
        raise NoMark(f"aucune ligne marquée « # {rule} » dans {loop.__name__} : ajoutez le "
                     f"commentaire `# {rule}` au bout de la ligne qui le fait.")
    kept = list(source)
    for start, end, indent in spans:  # `pass` where it was: a block never ends up empty
        kept[start - 1:end] = [" " * indent + "pass"] + [""] * (end - start)
    # Blank lines above keep each line at its number in the learner's cell (tracebacks).
    text, name = "\n" * (first - 1) + "\n".join(kept) + "\n", f"<{loop.__name__} sans {rule}>"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    namespace = dict(loop.__globals__)  # the loop's own names; the original stays untouched
    exec(compile(text, name, "exec"), namespace)
    made = namespace[loop.__name__]
    made.without_rule = rule  # a demonstration: 08's grader keeps no verdict of it
    return made
