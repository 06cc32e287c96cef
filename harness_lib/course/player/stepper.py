"""The player's browser side: its controls, and the text of the current step.

ipywidgets has no key handling, and its buttons call the kernel on each click: a busy
kernel would freeze the player. This is one small anywidget instead, `stepper.js`
(readable, no build step), used twice by each player:

- `stepper(...)`, the controls: « Début », « Précédente », « Lecture »/« Pause »,
  « Suivante », a slider, the speed of « Lecture », « Appel précédent » / « Appel
  suivant » (the model calls, `calls`), the keys (←/→, Espace, Début/Fin, Page↑/Page↓
  for the calls), the view (séquence or hub). It moves `value`, the step shown;
- `step_text(controls)`, below the controls: follows them in the browser, draws the
  current step's diagram from its Mermaid text (the bundled Mermaid of
  `renderer.py`, once per page) and shows its note and context bar, « Que sait le
  modèle ? », the text version and « Diagramme complet », from lists prepared by
  the kernel.

`stepper.js` has a third part, "figure", for one diagram outside a player (send()'s
conversation): `figure.py` defines its traits.

Python only holds traits:

>>> s = stepper(total=9, interval=2.0)
>>> s.part, s.value, s.max, s.interval, s.view, len(s.captions)
('controls', 0, 9, 2000, 0, 10)
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .browser_widget import browser_widget

SEQUENCE, HUB = 0, 1  # the values of `view`


@cache
def _stepper_class() -> type:
    import ipywidgets as widgets
    import traitlets

    class Stepper(browser_widget(__file__)):  # type: ignore[misc]
        value = traitlets.Int(0).tag(sync=True)  # the step shown, 0 .. max
        max = traitlets.Int(0).tag(sync=True)  # the number of steps
        interval = traitlets.Int(2000).tag(sync=True)  # ms per step while playing
        view = traitlets.Int(SEQUENCE).tag(sync=True)  # SEQUENCE or HUB
        captions = traitlets.List(traitlets.Unicode()).tag(sync=True)  # « tour 2 / 4 », per step
        calls = traitlets.List(traitlets.Int()).tag(sync=True)  # the steps that call the model
        part = traitlets.Unicode("controls").tag(sync=True)  # or "text"
        # The "text" part: per step, HTML and Mermaid text ("" while not prepared); the
        # transcript, the whole diagram ("": none), the player's controls, and the
        # renderer widget that brings Mermaid to the page.
        # Lists of str, unchecked item by item: a 50 000-step run's four lists took a
        # third of a jump to check (bench/run.py, « player jump »).
        texts = traitlets.List().tag(sync=True)
        knowns = traitlets.List().tag(sync=True)
        sequences = traitlets.List().tag(sync=True)
        hubs = traitlets.List().tag(sync=True)
        names = traitlets.List().tag(sync=True)  # each drawing's accessible name
        # The diagram's description (accDescr, or a run's summary), for aria-describedby.
        description = traitlets.Unicode().tag(sync=True)
        # A run's messages, each once (HTML): « Que sait le modèle ? » shows slices of it.
        messages = traitlets.List().tag(sync=True)
        transcript = traitlets.Unicode().tag(sync=True)
        whole = traitlets.Unicode().tag(sync=True)
        controls = traitlets.Any(None).tag(sync=True, **widgets.widget_serialization)
        library = traitlets.Any(None).tag(sync=True, **widgets.widget_serialization)

    return Stepper


def stepper(total: int, interval: float, view: int = SEQUENCE, **traits: Any) -> Any:
    """The controls of a player of `total` steps, `interval` seconds per step when playing.

    `traits`: more of them at creation, such as `captions`, or a Layout the player
    shares between its widgets.
    """
    return _stepper_class()(**{"max": total, "interval": round(interval * 1000), "view": view,
                               "captions": [""] * (total + 1), **traits})


def step_text(controls: Any, **traits: Any) -> Any:
    """The text part: follows `controls`, draws the current step and shows its texts;
    `traits`: its lists."""
    from .renderer import library

    return _stepper_class()(part="text", controls=controls, library=library(), **traits)
