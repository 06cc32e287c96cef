"""A later cell run first, in a kernel that has run nothing yet, says which cell to run.

A notebook reopened (the server restarted, the page reloaded, the kernel restarted)
keeps its outputs, not its kernel: `question("01-…")` run first reads `NameError: name
'question' is not defined`. This IPython extension adds, below that traceback, the
French sentence that names the cell to run: the notebook's first code cell (its
imports), or the whole notebook. It speaks only when the missing name is one of the
course's (`harness_lib`'s, `harness_lib.course`'s) or when none of them has been
imported yet; any other NameError keeps its traceback alone.

Loaded by every IPython kernel of an environment where the package is installed:
`jupyter-config/ipython_kernel_config.json` goes to `etc/ipython/` (pyproject.toml), which
IPython reads at start. Pyodide's kernel reads no IPython configuration: in the site,
the page adds the same sentence below such an error (site/fresh-kernel.js, written by
site/build.py from `course_names` and `hint`).

>>> " ".join(hint("question", {})[0].split()[:8])  # (split: the no-break spaces too)
'Ce noyau ne connaît pas encore « question'
>>> hint("mon_resultat", {"question": object()})
[]
"""

from __future__ import annotations

import textwrap
from typing import Any

FIRST_CELL = ("la première cellule de code du notebook (celle des « import »), puis cette "
              "cellule à nouveau ; ou tout le notebook : menu Run › Run All Cells")


def course_names() -> set[str]:
    """What the course's cells import: the harness's front door and the course's."""
    import harness_lib
    import harness_lib.course

    return {*harness_lib.__all__, *harness_lib.course.__all__, "harness_lib"}


def hint(name: str, user_ns: dict[str, Any]) -> list[str]:
    """The lines said after `NameError: name 'name'…` (none: not the course's case)."""
    names = course_names()
    if name not in names and names & user_ns.keys():
        return []
    return [f"Ce noyau ne connaît pas encore « {name} » : il vient de démarrer (notebook "
            "rouvert, page rechargée, noyau redémarré) et n’a pas exécuté les cellules du "
            f"dessus. Exécutez d’abord {FIRST_CELL}."]


def _explain(shell: Any, etype: type, value: BaseException, tb: Any,
             tb_offset: int | None = None) -> list[str]:
    """IPython's own traceback, then the hint, shown as IPython shows an error (the
    kernel sends it as the cell's error output)."""
    lines: list[str] = shell.InteractiveTB.structured_traceback(etype, value, tb,
                                                                tb_offset=tb_offset)
    name = getattr(value, "name", None)
    said = hint(name, shell.user_ns) if isinstance(name, str) else []
    # Lines of 72 characters at most: Lab wraps a long one in the middle of its words.
    shown = [*lines, "", *textwrap.wrap(" ".join(said), 72)] if said else lines
    shell._showtraceback(etype, value, shown)
    return shown


def load_ipython_extension(shell: Any) -> None:
    """What IPython calls at the kernel's start (`InteractiveShellApp.extensions`)."""
    shell.set_custom_exc((NameError,), _explain)
