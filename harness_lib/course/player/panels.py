"""A player's prepared steps: the lists the browser draws and shows from.

Each prepared step has four texts, one per list of the player's text part
(`stepper.step_text`): its sequence diagram and its hub view (Mermaid text, "" while
that view was never shown), its note with the context bar, and « Que sait le
modèle ? » (HTML). A run's messages are written once, in a fifth list (`messages`):
« Que sait le modèle ? » says which of them it shows, and the browser puts them there
(`drawing/message_json.py`), so the state grows with the run, not with its square.

The browser draws a step's Mermaid text itself when the step is shown (`renderer.js`,
the bundled Mermaid), and the steps ahead when it is idle. Step k's drawing and text
are item k of lists of the same widget: no other message is needed to show them
together (CONTRIBUTING.md, « No widget message decides what is shown »), and no widget
per drawing.

>>> from harness_lib.course.player.player import Player
>>> p = Player("deux_tours")
>>> p._panels.prepared() == list(range(10)), p._text.sequences[3].count("->>") > 0
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..drawing.message_json import message_html
from .known import run_length
from .state import PlayerState, known_html, text_html
from .stepper import HUB, SEQUENCE

LIGHT = 40  # up to this many steps, every step is prepared when the player is built
AROUND = 20  # above it: the steps prepared on each side of the current one


@dataclass(frozen=True)
class Panel:
    """One prepared step: its two drawings ("": that view not prepared), its two texts."""

    sequence: str  # the sequence diagram, Mermaid text
    hub: str  # the hub view, Mermaid text
    text: str  # status, note and context bar
    known: str  # « Que sait le modèle ? »
    name: str = ""  # the drawing's accessible name: who sends what to whom


class Panels:
    """The prepared steps of one player; `attach` gives it the text part to fill.

    Before `attach`, preparing only computes: the player then creates the text part
    with its whole state. An update sent right after a widget's creation may reach the
    browser before its model exists there, and be lost (seen in Notebook 7).
    """

    def __init__(self, state: Callable[[int], PlayerState], view: int) -> None:
        self._state = state
        self._steps: dict[int, Panel] = {}
        # Only the view shown is prepared; the other when the learner first asks for it
        # (one kernel round trip, once): most never switch.
        self._ready = {view}
        self._text: Any = None
        self._messages: list[str] = []  # the run's messages, each written once

    def attach(self, text: Any) -> None:
        self._text = text

    def prepared(self) -> list[int]:
        return sorted(self._steps)

    def lists(self, total: int) -> dict[str, list[str]]:
        """What the text part shows for each step 0..total ("": not prepared)."""
        panels = [self._steps.get(i) for i in range(total + 1)]
        return {"texts": [p.text if p else "" for p in panels],
                "knowns": [p.known if p else "" for p in panels],
                "sequences": [p.sequence if p else "" for p in panels],
                "hubs": [p.hub if p else "" for p in panels],
                "names": [p.name if p else "" for p in panels],
                "messages": list(self._messages)}

    def show_view(self, view: int, k: int, total: int) -> None:
        if view not in self._ready:
            self._ready.add(view)
            self.prepare(k, total, again=set(self._steps))

    def prepare(self, k: int, total: int, again: set[int] | None = None) -> None:
        """Every step (up to LIGHT), or those within AROUND of step k; and `again`."""
        if total <= LIGHT:
            wanted = range(total + 1)
        else:
            near = range(max(0, k - AROUND // 2), min(total, k + AROUND // 2) + 1)
            wanted = range(max(0, k - AROUND), min(total, k + AROUND) + 1) \
                if again is not None or any(i not in self._steps for i in near) else range(0)
        todo = sorted({*(again or ()), *(i for i in wanted if i not in self._steps)})
        s = None
        for i in todo:
            s = self._state(i)
            self._steps[i] = Panel(s.mermaid if SEQUENCE in self._ready else "",
                                   s.hub if HUB in self._ready else "",
                                   text_html(s), known_html(s), s.name)
        grew = s is not None and self._write_messages(s.diagram, max(todo))
        if todo and self._text is not None:  # one message for the whole batch
            with self._text.hold_sync():
                for name, values in self.lists(total).items():
                    if name != "messages" or grew:  # sent again only when the run grew
                        setattr(self._text, name, values)

    def _write_messages(self, diagram: Any, k: int) -> bool:
        """The run's messages up to step k not written yet, each written once (none: a
        hand-written diagram); whether there were any."""
        length = run_length(diagram, k) if diagram is not None else None
        if length is None or length <= len(self._messages):
            return False
        every = diagram.steps[max(k, 1) - 1].messages  # step 0: a prefix of step 1's
        self._messages += [message_html(m) for m in every[len(self._messages):length]]
        return True
