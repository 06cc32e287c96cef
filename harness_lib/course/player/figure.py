"""One diagram drawn by the course itself, outside a player: send()'s conversation.

A `Figure` is plain data: a Mermaid text, its text version and a title. `bundles`
turns it into what a cell displays, as a player does: the widget, drawn in the page by
the bundled Mermaid (stepper.js's "figure" part, the same drawing area and the same
drawer as a player's step: one drawing code, one library per page), then its static
copy for exports (static.py). Without widgets, or in an export, the text version says
what the diagram shows.

>>> f = Figure("sequenceDiagram\\n  U->>H: bonjour", "1. U → H : bonjour", "Conversation")
>>> widget, copy = bundles(f, cell="exemple")
>>> widget["text/plain"], 'class="harness-static"' in copy["text/html"]
('1. U → H : bonjour', True)
>>> _figure_class()(mermaid=f.mermaid).part
'figure'
>>> from harness_lib.course.player.static import _holder; _holder.clear()  # (no real cell)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from . import stepper
from .browser_widget import browser_widget
from .static import static_figure


@dataclass(frozen=True)
class Figure:
    mermaid: str  # what the page draws
    transcript: str  # the same, as text (« Version texte », viewers without widgets)
    title: str = "Diagramme"  # the image's name when Mermaid gives none (accTitle)


@cache
def _figure_class() -> type:
    import ipywidgets as widgets
    import traitlets

    # stepper.js and .css draw a figure too: one drawing code for players and figures.
    class FigureWidget(browser_widget(stepper.__file__)):  # type: ignore[misc]
        part = traitlets.Unicode("figure").tag(sync=True)  # stepper.js: which part to draw
        mermaid = traitlets.Unicode().tag(sync=True)
        transcript = traitlets.Unicode().tag(sync=True)
        alt = traitlets.Unicode("Diagramme").tag(sync=True)
        # The renderer widget that brings Mermaid to the page (renderer.py), as a player's.
        library = traitlets.Any(None).tag(sync=True, **widgets.widget_serialization)

    return FigureWidget


def widget(figure: Figure) -> Any:
    """The widget that draws `figure` (created with its whole state: docs/player.md)."""
    from .renderer import library

    return _figure_class()(mermaid=figure.mermaid, transcript=figure.transcript,
                           alt=figure.title, library=library())


def bundles(figure: Figure, cell: str | None = None) -> list[dict[str, Any]]:
    """The two outputs that show `figure`: the widget (its text version for viewers
    without widgets), then its static copy, hidden by stepper.css while the widget is
    live (`cell`: where it is shown, static.py)."""
    view = {"version_major": 2, "version_minor": 0, "model_id": widget(figure).model_id}
    return [{"application/vnd.jupyter.widget-view+json": view, "text/plain": figure.transcript},
            {"text/html": static_figure(figure.mermaid, figure.transcript, figure.title, cell)}]
