"""The learner's loop of notebook 08 as the grader gets it (tests/test_grader.py,
test_grader_bounds.py, test_grader_cheats.py): the corrigé's source (`GOOD`), edited
(`edit`), compiled under a cell's file name and kept in linecache as IPython does (`cell`);
and `kernel_unchanged`, what every hostile loop must leave as it found it.

    ma_boucle = cell(edit(R1, "        pass", GOOD))   # RULE 1 forgotten
"""

from __future__ import annotations

import itertools
import linecache
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from harness_lib import SYSTEM_PROMPT
from harness_lib.course.grader.solution import solution_source
from harness_lib.messages import read_call, system, tool_result, user
from harness_lib.tools import run_tool

_cells = itertools.count(1)
GOOD = solution_source()
R1 = "        messages.append(reponse.message)                        # RULE 1"
R2 = '            messages.append(tool_result(appel["id"], resultat))  # RULE 2'


def cell(source: str, name: str = "ma_boucle") -> Any:
    """The learner's function from a cell's text, as IPython compiles a cell."""
    text = source if source.startswith("# ✏️") else "# ✏️ À vous\n" + source
    filename = f"/tmp/ipykernel_0/cellule_{next(_cells)}.py"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"system": system, "user": user, "tool_result": tool_result,
                 "read_call": read_call, "run_tool": run_tool, "SYSTEM_PROMPT": SYSTEM_PROMPT}
    exec(compile(text, filename, "exec"), namespace)
    return namespace[name]


def edit(old: str, new: str, source: str = GOOD) -> str:
    assert old in source, old
    return source.replace(old, new)


def line_of(source: str, text: str) -> int:
    """The number, in the cell, of the line holding `text` (the cell's comment is line 1)."""
    lines = ("# ✏️ À vous\n" + source).splitlines()
    return next(i for i, line in enumerate(lines, start=1) if text in line)


@contextmanager
def kernel_unchanged() -> Iterator[None]:
    """The kernel's state after the block as before: stdout, stderr, the SIGALRM handler,
    the trace and profile functions, and no timer left running."""
    before = (sys.stdout, sys.stderr, signal.getsignal(signal.SIGALRM), sys.gettrace(),
              sys.getprofile())
    yield
    assert (sys.stdout, sys.stderr, signal.getsignal(signal.SIGALRM), sys.gettrace(),
            sys.getprofile()) == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
