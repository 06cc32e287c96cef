"""The bundled Mermaid: sent to the page once per kernel, installed once per page.

Players draw their diagrams themselves (`stepper.js` asks `renderer.js`), so that they
draw wherever anywidget runs, whatever the front end does with Mermaid. The library
(`vendor/`, Mermaid's « tiny » single-file build, gzip-compressed: 0.77 MB) travels in one widget,
`library()`, never displayed: anywidget's `_esm` is state of each widget, so the
library is not in it. Each player's text part refers to that widget; in the page,
`renderer.js` installs the library on first use in a hidden, sandboxed page of its own
(its own process in Chromium), then has it draw for every player (one cache, one
queue, Lab's light or dark theme).

The first course widget a kernel shows (the toggle, a question, a player) creates that
widget: installing the library takes about a third of a second, better spent before
the first player arrives than after it (bench/README.md).

>>> MERMAID_VERSION
'12.0.0'
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from .browser_widget import browser_widget

MERMAID_VERSION = "12.0.0"  # vendor/README.md says where it comes from
LIBRARY = Path(__file__).with_name("vendor") / "mermaid.tiny.js.gz"


def library_bytes() -> bytes:
    """Mermaid's single-file build, gzip-compressed, as shipped in the package."""
    return LIBRARY.read_bytes()


@cache
def _renderer_class() -> type:
    import traitlets

    class Renderer(browser_widget(__file__)):  # type: ignore[misc]
        source = traitlets.Bytes().tag(sync=True)  # the gzip-compressed library
        version = traitlets.Unicode(MERMAID_VERSION).tag(sync=True)

    return Renderer


@cache
def library() -> Any:
    """The one renderer widget of this kernel (created, with the library, on first use)."""
    return _renderer_class()(source=library_bytes())
