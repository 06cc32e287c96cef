"""A player's prepared steps: the widgets and lists the browser switches between.

Each prepared step has its sequence diagram (an `Output`, a child of the sequence
stack), its hub view (an `Output` shared by the steps with the same exchange, a
child of the hub stack) and two HTML texts (note and bar, « Que sait le modèle ? »)
in the lists of the player's text part (`stepper.step_text`). Stack children are
only ever appended: replacing a shown child would make the Tab select another.
Child 0 of each stack is the placeholder of the steps not prepared yet.

>>> from harness_lib.course.player import Player
>>> p = Player("deux_tours")
>>> p._panels.prepared() == list(range(10)), p._text.sequence_of[:3]
(True, [1, 2, 3])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .player_state import PlayerState, diagram_output, known_html, text_html
from .stepper import HUB, SEQUENCE

LIGHT = 40  # up to this many steps, every step is prepared when the player is built
AROUND = 20  # above it: the steps prepared on each side of the current one
PENDING = "<p><i>Étape en préparation : le noyau Python la prépare dès qu’il est libre.</i></p>"


@dataclass(frozen=True)
class Panel:
    """One prepared step: where its two drawings are, and its two HTML texts."""

    sequence: int  # its child in the sequence stack (0: not drawn, its view never shown)
    hub: int  # its child in the hub stack (shared by steps with the same exchange)
    text: str  # status, note and context bar
    known: str  # « Que sait le modèle ? »


class Panels:
    """The prepared steps of one player, with the stacks and text part they fill."""

    def __init__(self, w: Any, layout: Any, stacks: tuple[Any, Any], text: Any,
                 state: Callable[[int], PlayerState], view: int) -> None:
        self._w, self._layout, self._text, self._state = w, layout, text, state
        self._sequence, self._hub = stacks
        pending = w.Output(layout=layout, outputs=(_html_output(PENDING),))
        self._sequences, self._hubs_shown = [pending], [pending]
        self._sequence.children, self._hub.children = [pending], [pending]
        self._steps: dict[int, Panel] = {}
        self._hubs: dict[str, int] = {}  # hub text -> its child in the hub stack
        # Only the view shown is drawn; the other when the learner first asks for it (one
        # kernel round trip, once): most never switch, and each drawing is a Mermaid render.
        self._ready = {view}

    def prepared(self) -> list[int]:
        return sorted(self._steps)

    def show_view(self, view: int, k: int) -> None:
        if view not in self._ready:
            self._ready.add(view)
            self.prepare(k, len(self._text.texts) - 1, again=set(self._steps))

    def prepare(self, k: int, total: int, again: set[int] | None = None) -> None:
        """Every step (up to LIGHT), or those within AROUND of step k; and `again`."""
        if total <= LIGHT:
            wanted = range(total + 1)
        else:
            near = range(max(0, k - AROUND // 2), min(total, k + AROUND // 2) + 1)
            wanted = range(max(0, k - AROUND), min(total, k + AROUND) + 1) \
                if again is not None or any(i not in self._steps for i in near) else range(0)
        todo = sorted({*(again or ()), *(i for i in wanted if i not in self._steps)})
        for i in todo:
            self._draw(i)
        if todo:  # one message per widget for the whole batch
            self._sequence.children = self._sequences
            self._hub.children = self._hubs_shown
            panels = [self._steps.get(i) for i in range(total + 1)]
            with self._text.hold_sync():
                self._text.texts = [p.text if p else "" for p in panels]
                self._text.knowns = [p.known if p else "" for p in panels]
                self._text.sequence_of = [p.sequence if p else 0 for p in panels]
                self._text.hub_of = [p.hub if p else 0 for p in panels]

    def _draw(self, k: int) -> None:
        """Compute step k's panels: its diagram in its own Output, its hub view shared by
        the steps with the same exchange (each only once its view has been shown)."""
        s, w = self._state(k), self._w
        if HUB in self._ready and s.hub not in self._hubs:
            self._hubs[s.hub] = len(self._hubs_shown)
            self._hubs_shown.append(w.Output(layout=self._layout,
                                             outputs=(diagram_output(s.hub),)))
        child = self._steps[k].sequence if k in self._steps else 0
        if SEQUENCE in self._ready:
            drawing = (diagram_output(s.mermaid),)
            if child:
                self._sequences[child].outputs = drawing  # sends nothing if unchanged
            else:
                child = len(self._sequences)
                self._sequences.append(w.Output(layout=self._layout, outputs=drawing))
        hub = self._hubs[s.hub] if HUB in self._ready else 0
        self._steps[k] = Panel(child, hub, text_html(s), known_html(s))


def _html_output(text: str) -> dict:
    return {"output_type": "display_data", "metadata": {}, "data": {"text/html": text}}
