"""A player's prepared steps: the widgets and lists the browser switches between.

Each prepared step has its sequence diagram (one output of an `Output`, a child of
the sequence stack: the steps prepared together share one `Output`, one output each,
in order), its hub view (an `Output` shared by the steps with the same exchange, a
child of the hub stack) and two HTML texts (note and bar, « Que sait le modèle ? »)
in the lists of the player's text part (`stepper.step_text`). Each `Output` carries
the steps it draws as classes (`harness-step-k`), and a sequence `Output` its first
step too (`harness-batch-a`): the browser's style rule shows the child of class
`harness-step-k` at step k, and in it only output k − a + 1, whenever it arrives, and
the placeholder (class `harness-pending`, child 0 of each stack) while there is none.
The drawing says where each step is: no other message is needed to show it
(CONTRIBUTING.md, « No widget message decides what is shown »). Stack children are
only ever appended.

Why share: each widget is one more message for the kernel to send and for the page
to build. A 19-step run used 20 `Output`s; now one, or one per drawing in a live run.

>>> from harness_lib.course.player.player import Player
>>> p = Player("deux_tours")
>>> p._panels.prepared() == list(range(10)), len(p._panels.sequences[1].outputs)
(True, 10)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .state import PlayerState, diagram_output, known_html, text_html
from .stepper import HUB, SEQUENCE

LIGHT = 40  # up to this many steps, every step is prepared when the player is built
AROUND = 20  # above it: the steps prepared on each side of the current one
BATCH = LIGHT + 1  # the most steps one sequence Output holds (stepper.js needs it)
PENDING = "<p><i>Étape en préparation : le noyau Python la prépare dès qu’il est libre.</i></p>"


@dataclass(frozen=True)
class Panel:
    """One prepared step: its two drawings (None: that view never shown), its two texts."""

    sequence: tuple[Any, int] | None  # its Output in the sequence stack, and its place there
    hub: Any  # its Output in the hub stack (shared by steps with the same exchange)
    text: str  # status, note and context bar
    known: str  # « Que sait le modèle ? »


class Panels:
    """The prepared steps of one player; `attach` gives it the stacks and text part to fill.

    Before `attach`, preparing only computes: the player then creates those widgets
    with their whole state. An update sent right after a widget's creation may reach
    the browser before its model exists there, and be lost (seen in Notebook 7).
    """

    def __init__(self, w: Any, layout: Any, state: Callable[[int], PlayerState],
                 view: int) -> None:
        self._w, self._layout, self._state = w, layout, state
        # The children of the two stacks (sequence, hub): only ever appended.
        pending = w.Output(layout=layout, outputs=(_html_output(PENDING),),
                           _dom_classes=["harness-pending"])
        self.sequences, self.hubs = [pending], [pending]
        self._steps: dict[int, Panel] = {}
        self._hub_of: dict[str, Any] = {}  # hub text -> its Output
        # Only the view shown is drawn; the other when the learner first asks for it (one
        # kernel round trip, once): most never switch, and each drawing is a Mermaid render.
        self._ready = {view}
        self._stacks: tuple[Any, Any] | None = None
        self._text: Any = None

    def attach(self, stacks: tuple[Any, Any], text: Any) -> None:
        self._stacks, self._text = stacks, text

    def prepared(self) -> list[int]:
        return sorted(self._steps)

    def lists(self, total: int) -> dict[str, list]:
        """What the text part shows for each step 0..total ("": not prepared)."""
        panels = [self._steps.get(i) for i in range(total + 1)]
        return {"texts": [p.text if p else "" for p in panels],
                "knowns": [p.known if p else "" for p in panels]}

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
        states = {i: self._state(i) for i in todo}
        hubs = self._hubs(states) if HUB in self._ready else {}
        sequences = self._sequences(states) if SEQUENCE in self._ready else {}
        for i in todo:
            self._steps[i] = Panel(sequences.get(i), hubs.get(i), text_html(states[i]),
                                   known_html(states[i]))
        if todo and self._stacks is not None:  # one message per widget for the whole batch
            self._stacks[0].children, self._stacks[1].children = self.sequences, self.hubs
            with self._text.hold_sync():
                for name, values in self.lists(total).items():
                    setattr(self._text, name, values)

    def _sequences(self, states: dict[int, PlayerState]) -> dict[int, tuple[Any, int]]:
        """The sequence drawing of each of these steps, as (Output, place): drawn again in
        place if the step has one, else in one new Output per run of up to BATCH
        consecutive steps."""
        placed: dict[int, tuple[Any, int]] = {}
        again: dict[Any, list[dict]] = {}  # Output -> its outputs, some replaced
        new: list[list[int]] = []  # runs of consecutive steps without a drawing
        for k, s in states.items():
            old = self._steps[k].sequence if k in self._steps else None
            if old is not None:
                output, place = placed[k] = old
                again.setdefault(output, list(output.outputs))[place] = diagram_output(s.mermaid)
            elif new and new[-1][-1] == k - 1 and len(new[-1]) < BATCH:
                new[-1].append(k)
            else:
                new.append([k])
        for output, outputs in again.items():
            output.outputs = tuple(outputs)  # one message per Output, none if unchanged
        for run in new:
            output = self._child(run, tuple(diagram_output(states[k].mermaid) for k in run),
                                 f"harness-batch-{run[0]}")
            self.sequences.append(output)
            placed.update({k: (output, place) for place, k in enumerate(run)})
        return placed

    def _hubs(self, states: dict[int, PlayerState]) -> dict[int, Any]:
        """The hub drawing of each of these steps: one Output per exchange, created with
        the classes of all its steps (an update right after a creation may be lost)."""
        steps: dict[str, list[int]] = {}
        for k, s in states.items():
            steps.setdefault(s.hub, []).append(k)
        drawn = {}
        for text, ks in steps.items():
            hub = self._hub_of.get(text)
            if hub is None:
                hub = self._hub_of[text] = self._child(ks, (diagram_output(text),))
                self.hubs.append(hub)
            elif missing := [c for c in _classes(ks) if c not in hub._dom_classes]:
                hub._dom_classes = (*hub._dom_classes, *missing)
            for k in ks:  # in a live run, a step's exchange may change: the old one lets go
                old = self._steps[k].hub if k in self._steps else None
                if old is not None and old is not hub:
                    old.remove_class(f"harness-step-{k}")
                drawn[k] = hub
        return drawn

    def _child(self, steps: list[int], outputs: tuple[dict, ...], *more: str) -> Any:
        """A stack's child: an Output created with its drawings and the classes of its
        steps (and `more`)."""
        return self._w.Output(layout=self._layout, outputs=outputs,
                              _dom_classes=[*_classes(steps), *more])


def _classes(steps: list[int]) -> list[str]:
    return [f"harness-step-{k}" for k in steps]


def _html_output(text: str) -> dict:
    return {"output_type": "display_data", "metadata": {}, "data": {"text/html": text}}
