"""The base of the course's own widgets: an anywidget whose browser code and style are
two files next to the module that defines it, `<module>.js` and `<module>.css` (the
style is optional; readable, no build step).

`player/stepper.py` (the player's controls and text), `player/renderer.py` (the bundled
Mermaid) and `exercises/question.py` (a question) subclass `browser_widget(__file__)`
with their own traits. anywidget (and ipywidgets under it) load at the first call:
`import harness_lib` stays light.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any


@cache
def browser_widget(module_file: str) -> type:
    """An AnyWidget class with the code and style of the `.js` and `.css` beside `module_file`."""
    import anywidget
    import ipywidgets as widgets
    import traitlets
    try:  # anywidget's own Colab hook (a private module: a later anywidget may move it)
        from anywidget._util import enable_custom_widget_manager_once, in_colab
    except ImportError:  # then no hook: Colab users turn its widget manager on by hand
        def in_colab() -> bool:
            return False

        def enable_custom_widget_manager_once() -> None:
            pass

    module = Path(module_file)
    style = module.with_suffix(".css")

    class BrowserWidget(anywidget.AnyWidget):  # type: ignore[misc]
        # Class traits: AnyWidget.__init__ would add them to each instance with
        # add_traits, which builds a new class every time.
        _esm = traitlets.Unicode(module.with_suffix(".js").read_text("utf-8")).tag(sync=True)
        _css = traitlets.Unicode(style.read_text("utf-8") if style.exists() else "").tag(sync=True)
        _anywidget_id = traitlets.Unicode(f"harness_lib.course.{module.stem}").tag(sync=True)

        def __init__(self, **kwargs: Any) -> None:
            # What AnyWidget.__init__ does in Colab, without its add_traits: Colab draws
            # third-party widgets only once its custom widget manager is on.
            if in_colab():
                enable_custom_widget_manager_once()
            widgets.DOMWidget.__init__(self, **kwargs)  # the traits are already there

    return BrowserWidget
