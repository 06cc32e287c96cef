"""What a course widget leaves for pages where it cannot be drawn: an HTML export, a
notebook reopened without its kernel (Lab the next day, the site after a reload).

A widget lives in its kernel: reopened, its output reads « Error displaying widget:
model not found » (Lab) or « Loading widget... » for good (the site). So each course
widget is followed by a note, `NOTE`, in French, that says what to do (`show`,
`Shown`): plain HTML, which every front end shows, even in a notebook it does not
trust (there no script and no style sheet of an output runs);
`renderer.css`, loaded with any live course widget, hides it below each widget that
is drawn (`.harness-static`). A player's (or a figure's) note heads its static copy.

`static_html` writes the whole diagram, its hub view (Mermaid text) and the
text version; `static_figure_html` one diagram (send()'s, figure.py) and its
text version. `static_copy` and `static_figure` add, first, the note,
then `static.js`, which draws them with the bundled Mermaid where no live widget runs:
an `nbconvert --to html` export, opened offline; a notebook Lab or the site reopens
(they trust one they saved), once its widget says it cannot come back. Where no script
runs (a notebook not trusted), the Mermaid text stays hidden and the text version, open,
says it. The library
goes into the page once: base64 in the first static copy displayed in the kernel, and
again whenever that cell runs again (its old output, and the library in it, are
replaced). Known limit: clear that cell's output alone and the export shows the
copies' text versions, undrawn.

>>> from harness_lib.course.drawing.mermaid import chapter_diagram
>>> d = chapter_diagram("deux_tours")
>>> _holder.clear()  # as in a fresh kernel: no cell holds the library yet
>>> [LIBRARY_TAG in static_copy(d, cell=c) for c in ("a", "b", "a")]
[True, False, True]
>>> _holder.clear()  # (this example's cells were not real ones)
>>> Shown(["une", "vue"]).index("vue")  # a cell's value shown with its note: still the widget
1
"""

from __future__ import annotations

import base64
import html
from functools import cache
from pathlib import Path
from typing import Any

from ..drawing.diagram import Diagram, transcript
from ..drawing.hub import hub_mermaid
from ..drawing.mermaid import to_mermaid
from .renderer import library_bytes

LIBRARY_TAG = '<script type="application/x-harness-mermaid">'  # static.js looks for it
_holder: list[str] = []  # the cell whose output carries the library, once one does
NOTE = ("Ce contenu interactif a besoin de son noyau : relancez les cellules "
        "(menu Run › Run All Cells).")
NOTE_CLASS = "harness-static harness-reopen"  # renderer.css hides it below a live widget


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
    """The note, `copy`, then static.js, then the library if this cell is the one that
    carries it."""
    cell = current_cell() if cell is None else cell
    block = ""
    if not _holder or _holder[0] == cell:  # the first copy's cell, or that cell again
        _holder[:] = [cell]
        block = _library_block()
    return note_html() + copy + _script() + block


def note_html() -> str:
    """The note: shown where the widget above it is not drawn."""
    return (f'<div class="{NOTE_CLASS}" lang="fr" style="border-left:4px solid #b35c00;'
            f'padding:2px 8px;margin:2px 0"><p style="margin:0">{html.escape(NOTE)}</p></div>')


def show(shown: Any) -> None:
    """Display `shown` (a widget, or the output bundle that shows one), then its note."""
    from IPython.display import display

    bundle = shown if isinstance(shown, dict) else shown._repr_mimebundle_()
    display(bundle, raw=True)
    display({"text/html": note_html()}, raw=True)


class Shown:
    """A widget a notebook shows as a cell's value (`approval_widget(...)`), with its note;
    every attribute is the widget's own."""

    def __init__(self, widget: Any) -> None:
        self.widget = widget

    def _ipython_display_(self) -> None:
        show(self.widget)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["widget"], name)


STATIC_CLASS = "harness-static"  # stepper.css hides it wherever a live player is drawn


def static_html(diagram: Diagram) -> str:
    """The whole diagram, its hub view and its text version, for HTML exports and
    viewers without a kernel.

    Diagrams are Mermaid text in `<pre class="harness-mermaid" hidden="hidden">` (a value:
    Lab's sanitizer drops an empty `hidden`): never shown as text (its `%%` lines are no
    reading); `player/static.py` adds what draws them (the
    bundled Mermaid), and where nothing draws them (a page that runs no script: a
    notebook the site reopened), the text version, open, says the same. Not nbconvert's
    own `jp-Mermaid` form: its export hides that text until a CDN draws it.
    """
    whole, hub = to_mermaid(diagram, highlight=False), hub_mermaid(diagram)
    return (f'<div class="{STATIC_CLASS}" lang="fr">'
            f'<p><b>{html.escape(diagram.title or "Diagramme")}'
            f"</b> (copie statique du lecteur)</p>{_mermaid_block(whole)}"
            f"<p hidden=\"hidden\">La même exécution, le harness au centre (vue hub) :</p>"
            f"{_mermaid_block(hub)}{_text_version(transcript(diagram))}</div>")


def static_figure_html(mermaid: str, text: str, title: str) -> str:
    """One diagram (send()'s conversation) and its text version, as `static_html` writes
    a player's: for HTML exports and viewers without a kernel.

    >>> page = static_figure_html("sequenceDiagram", "1. U → H : <b>", "Conversation")
    >>> 'hidden="hidden">sequenceDiagram</pre>' in page, "&lt;b&gt;" in page
    (True, True)
    """
    return (f'<div class="{STATIC_CLASS}" lang="fr">'
            f'<p><b>{html.escape(title)}</b> (copie statique)</p>'
            f"{_mermaid_block(mermaid)}{_text_version(text)}</div>")


def _mermaid_block(mermaid: str) -> str:
    return f'<pre class="harness-mermaid" hidden="hidden">{html.escape(mermaid)}</pre>'


def _text_version(text: str) -> str:
    """Open: read where the diagrams are not drawn (static.js folds it once they are)."""
    return (f'<details open><summary>Version texte</summary><pre style="white-space:pre-wrap">'
            f"{html.escape(text)}</pre></details>")
