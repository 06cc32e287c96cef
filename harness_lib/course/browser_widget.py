"""The base of the course's own widgets: an anywidget whose browser code and style are
two files next to this module, `<stem>.js` and `<stem>.css` (readable, no build step).

`stepper.py` (the player's controls and text) and `question.py` (a question) subclass
`browser_widget("stepper")` and `browser_widget("question")` with their own traits.
anywidget (and ipywidgets under it) load at the first call: `import harness_lib` stays
light.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


@cache
def browser_widget(stem: str) -> type:
    """An AnyWidget class with the code and style of `<stem>.js` and `<stem>.css`."""
    import anywidget
    import ipywidgets as widgets
    import traitlets

    class BrowserWidget(anywidget.AnyWidget):  # type: ignore[misc]
        # Class traits: AnyWidget.__init__ would add them to each instance with
        # add_traits, which builds a new class every time.
        _esm = traitlets.Unicode((HERE / f"{stem}.js").read_text("utf-8")).tag(sync=True)
        _css = traitlets.Unicode((HERE / f"{stem}.css").read_text("utf-8")).tag(sync=True)
        _anywidget_id = traitlets.Unicode(f"harness_lib.course.{stem}").tag(sync=True)

        def __init__(self, **kwargs: Any) -> None:
            widgets.DOMWidget.__init__(self, **kwargs)  # the traits are already there

    return BrowserWidget
