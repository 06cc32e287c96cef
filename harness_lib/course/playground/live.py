"""Live regions and choices: two small course widgets that ipywidgets does not give.

`live_html(value)` is HTML in a region a screen reader reads when it changes (the
toggle's status line, a verdict, the ✏️ targets, an approval's outcome): ipywidgets'
`HTML` cannot carry `role="status"`, and an inner `<div role="status">` would be a new
region at each change, which screen readers do not announce. `choice(options, value,
label)` is one option out of a few as a named radio group (the toggle: which model
answers). Both have a `value`, as ipywidgets' `HTML` and `ToggleButtons` do; their
browser side is `live.js`, their look `live.css` (with the focus ring and the contrast of
the ipywidgets the course uses, page-wide once a course widget is shown).

>>> status = live_html("<i>Modèle simulé</i>", _dom_classes=["harness-status"])
>>> status.part, status.value
('live', '<i>Modèle simulé</i>')
>>> pick = choice([("Modèle simulé", "mock"), ("Vrai modèle", "real")], "mock", "Modèle")
>>> pick.part, pick.value, [label for label, _ in pick.options]
('choice', 'mock', ['Modèle simulé', 'Vrai modèle'])
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from ..player.browser_widget import browser_widget


@cache
def _live_class() -> type:
    import traitlets

    class Live(browser_widget(__file__)):  # type: ignore[misc]
        part = traitlets.Unicode("live").tag(sync=True)  # or "choice"
        value = traitlets.Unicode().tag(sync=True)  # HTML ("live"), the option chosen ("choice")
        options = traitlets.List().tag(sync=True)  # [label, value] pairs ("choice")
        label = traitlets.Unicode().tag(sync=True)  # the group's accessible name ("choice")

    return Live


def live_html(value: str = "", **traits: Any) -> Any:
    """HTML announced when it changes (`traits`: a layout, `_dom_classes`...)."""
    return _live_class()(value=value, **traits)


def choice(options: Sequence[tuple[str, str]], value: str, label: str, **traits: Any) -> Any:
    """One of `options` ((label, value) pairs), as a radio group named `label`."""
    return _live_class()(part="choice", options=[list(o) for o in options], value=value,
                         label=label, **traits)
