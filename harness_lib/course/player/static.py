"""A player's (or a figure's) static copy, drawn without a kernel nor a network: for
HTML exports.

`charts.static_html` writes the whole diagram, its hub view (Mermaid text) and the
text version; `charts.static_figure_html` one diagram (send()'s, figure.py) and its
text version. This adds `static.js`, which draws them with the bundled Mermaid where
no live widget runs (an `nbconvert --to html` export, opened offline). The library
goes into the page once: base64 in the first static copy displayed in the kernel, and
again whenever that cell runs again (its old output, and the library in it, are
replaced). Known limit: clear that cell's output alone and the export shows the
copies' Mermaid text, undrawn.

>>> from harness_lib.course.drawing.mermaid import chapter_diagram
>>> d = chapter_diagram("deux_tours")
>>> _holder.clear()  # as in a fresh kernel: no cell holds the library yet
>>> [LIBRARY_TAG in static_copy(d, cell=c) for c in ("a", "b", "a")]
[True, False, True]
>>> _holder.clear()  # (this example's cells were not real ones)
"""

from __future__ import annotations

import base64
from functools import cache
from pathlib import Path

from ..drawing.charts import static_figure_html, static_html
from ..drawing.diagram import Diagram
from .renderer import library_bytes

LIBRARY_TAG = '<script type="application/x-harness-mermaid">'  # static.js looks for it
_holder: list[str] = []  # the cell whose output carries the library, once one does


@cache
def _script() -> str:
    return f"<script>{Path(__file__).with_suffix('.js').read_text('utf-8')}</script>"


@cache
def _library_block() -> str:
    """The bundled Mermaid as static.js finds it: base64 (1.0 MB) in a script block."""
    return f"{LIBRARY_TAG}{base64.b64encode(library_bytes()).decode('ascii')}</script>"


def current_cell() -> str:
    """The running cell's id (JupyterLab, Notebook 7 and nbclient send it), or the
    execution count: what tells a cell run again from another one."""
    try:
        from IPython import get_ipython

        shell = get_ipython()
        parent = shell.kernel.get_parent() if shell is not None else {}
        return str(parent.get("metadata", {}).get("cellId") or f"run-{shell.execution_count}")
    except Exception:  # no IPython, no kernel: a script
        return "script"


def static_copy(diagram: Diagram, cell: str | None = None) -> str:
    """The static copy of `diagram`, with what draws it offline (`cell`: where it is shown)."""
    return _drawn_offline(static_html(diagram), cell)


def static_figure(mermaid: str, text: str, title: str, cell: str | None = None) -> str:
    """The static copy of one diagram and its text version, with what draws it offline."""
    return _drawn_offline(static_figure_html(mermaid, text, title), cell)


def _drawn_offline(copy: str, cell: str | None) -> str:
    """`copy`, then static.js, then the library if this cell is the one that carries it."""
    cell = current_cell() if cell is None else cell
    block = ""
    if not _holder or _holder[0] == cell:  # the first copy's cell, or that cell again
        _holder[:] = [cell]
        block = _library_block()
    return copy + _script() + block
