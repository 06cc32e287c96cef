"""The player's browser side: its controls, and the text of the current step.

ipywidgets has no key handling, and its buttons call the kernel on each click: a busy
kernel would freeze the player. This is one small anywidget instead, `stepper.js`
(readable, no build step), used twice by each player:

- `stepper(...)`, the controls: « Début », « Précédente », « Lecture »/« Pause »,
  « Suivante », a slider, the speed of « Lecture », « Appel précédent » / « Appel
  suivant » (the model calls, `calls`), the keys (←/→, Espace, Début/Fin, Page↑/Page↓
  for the calls), the view (séquence or hub). It moves `value`, the step shown;
- `step_text(controls, scope)`, below the diagram: follows the controls in the
  browser, and shows the current step's note and context bar, « Que sait le
  modèle ? » and the text version, from lists prepared by the kernel; a style rule
  of its own shows, in the player whose class is `scope`, the drawing of that step.

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
        # The "text" part: HTML per step ("" while not prepared), and the transcript;
        # the player's controls, and the player's own class (its style rules name it).
        texts = traitlets.List(traitlets.Unicode()).tag(sync=True)
        knowns = traitlets.List(traitlets.Unicode()).tag(sync=True)
        batch = traitlets.Int(1).tag(sync=True)  # the most steps one sequence drawing holds
        transcript = traitlets.Unicode().tag(sync=True)
        controls = traitlets.Any(None).tag(sync=True, **widgets.widget_serialization)
        scope = traitlets.Unicode().tag(sync=True)

    return Stepper


def stepper(total: int, interval: float, view: int = SEQUENCE, **traits: Any) -> Any:
    """The controls of a player of `total` steps, `interval` seconds per step when playing.

    `traits`: more of them at creation, such as `captions`, or a Layout the player
    shares between its widgets.
    """
    return _stepper_class()(**{"max": total, "interval": round(interval * 1000), "view": view,
                               "captions": [""] * (total + 1), **traits})


def step_text(controls: Any, scope: str, **traits: Any) -> Any:
    """The text part: follows `controls`, and shows, in the player whose class is
    `scope`, the drawing of the current step; `traits`: its lists."""
    return _stepper_class()(part="text", controls=controls, scope=scope, **traits)
