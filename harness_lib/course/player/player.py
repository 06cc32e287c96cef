"""A step-by-step player for the course's sequence diagrams, in the notebook.

Stepping happens in the browser. Each step's panels (its diagram, its hub view,
its note with the context bar, « Que sait le modèle ? ») are prepared once
(`panels.py`); the controls (`stepper.py`) hold the step number and the text part
shows that step's panels, in the browser. So « Suivante », the keys and « Lecture »
need no kernel round trip, and keep working while the kernel is busy. A long run
stays light: above `LIGHT` steps only the steps around the current one are
prepared, and the kernel prepares more as the learner moves (CONTRIBUTING.md,
« The player »).

>>> p = Player("deux_tours")
>>> p.go(3); p.step, p.state().step_label
(3, 'étape 3 sur 9')

In a notebook: `Player("deux_tours")`, `Player(run.trace)`, `Player(d, view="hub")`,
or `run_live(task, model, tools)` to watch a run grow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...loop import run
from ...messages import SYSTEM_PROMPT, system
from ...tokens import tools_tokens
from ...tools.tool import Tool
from ...trace import Event, Run, Trace, waits_after
from ..drawing.diagram import Diagram, peak, transcript
from ..drawing.fit import WINDOW
from ..drawing.mermaid import CHAPTER, chapter_diagram, parse, to_mermaid
from ..drawing.trace_diagram import from_trace
from .known import call_steps
from .narration import START_NOTE, status
from .panels import LIGHT, Panels
from .state import PlayerState, state, turn_label
from .static import static_copy
from .stepper import HUB, SEQUENCE, step_text, stepper

if TYPE_CHECKING:
    from ...models.model import Model

__all__ = ["LIGHT", "START_NOTE", "Player", "PlayerState", "run_live", "state"]
VIEWS = {"sequence": SEQUENCE, "hub": HUB}


def _view(name: str) -> int:
    if name not in VIEWS:
        raise ValueError(f"vue inconnue : {name!r} (attendu : sequence ou hub)")
    return VIEWS[name]


def _diagram(source: Diagram | str) -> Diagram:
    if isinstance(source, Diagram):
        return source
    return chapter_diagram(source) if source in CHAPTER else parse(source)


class Player:
    """Play, pause, step and scrub through a diagram; each Player owns all its widgets.

    `Player(source, interval=2.0, view="sequence")`: source is a Diagram, a Trace (or
    a Run), a chapter diagram name ("deux_tours", "erreur_outil", "boucle_complete")
    or annotated Mermaid text; interval is the time per step when playing, in
    seconds; view is "sequence" or "hub" (the harness at the centre).
    """

    def __init__(self, source: Diagram | Trace | Run | str, *, interval: float = 2.0,
                 view: str = "sequence") -> None:
        source = source.trace if isinstance(source, Run) else source
        # The player's own copy of a trace: live events never touch the caller's.
        self.trace = replace(source, events=list(source.events)) \
            if isinstance(source, Trace) else None
        self.diagram = from_trace(self.trace) if self.trace else _diagram(source)  # type: ignore[arg-type]
        self._statuses = [status(e) for e in self.trace.events] if self.trace else []
        self.widget = self._build(interval, _view(view))

    @property
    def step(self) -> int:
        return self._controls.value

    @property
    def total(self) -> int:
        return len(self.diagram.steps)

    @property
    def status(self) -> str:
        """What a live run is doing now: the status of its newest step."""
        return self._statuses[-1] if self._statuses else ""

    @property
    def view(self) -> str:
        return "hub" if self._controls.view == HUB else "sequence"

    @view.setter
    def view(self, name: str) -> None:
        self._controls.view = _view(name)

    def state(self, k: int | None = None) -> PlayerState:
        k = self.step if k is None else k
        status = self._statuses[k - 1] if 0 < k <= len(self._statuses) else ""
        return state(self.diagram, k, status, self._scale)

    def go(self, k: int) -> None:
        self._controls.value = max(0, min(k, self.total))

    def next(self) -> None:
        self.go(self.step + 1)

    def previous(self) -> None:
        self.go(self.step - 1)

    def on_event(self, event: Event) -> None:
        """Live mode: one more event of a running loop. It is drawn, with those before
        it, when the loop waits after it (for the model, a tool, a person) or the run
        ends; the events in between follow at once, and one drawing shows them all.
        The player then jumps to the newest step."""
        if self.trace is None:
            raise TypeError("on_event : ce lecteur affiche un diagramme écrit à la main, "
                            "pas une trace ; créez-le avec Player(Trace(...)).")
        self.trace.add(event)
        self._statuses.append(status(event))
        last = event.kind in ("answer", "stop")
        if not (last or waits_after(event)):
            return
        drawn = self.total
        self.diagram = from_trace(self.trace)
        # The new steps now; at the end of the run, every step again (the loop frame
        # and the bar's scale of earlier steps change as the run grows).
        new = set(range(drawn + 1, self.total + 1))
        self._refresh({*self._panels.prepared(), *new} if last else new)
        self.go(self.total)

    def _build(self, interval: float, view: int) -> Any:
        """Every widget is created with its whole state, classes included (see panels.Panels)."""
        import ipywidgets as w

        # One Layout for all: each widget would otherwise bring its own (one more message).
        self._w, self._layout = w, w.Layout()

        def shared(*names: str) -> dict[str, Any]:  # the harness-* classes: hooks for tests
            return {"layout": self._layout, "_dom_classes": [f"harness-{n}" for n in names]}

        self._scale = self._bar_scale()
        self._panels = Panels(self.state, view)
        self._panels.prepare(0, self.total)
        self._controls = stepper(self.total, interval, view, captions=self._captions(),
                                 calls=call_steps(self.diagram), **shared())
        # The text part follows the controls, in the browser, and draws the step itself.
        self._text = step_text(self._controls, **shared(), whole=self._whole_text(),
                               transcript=transcript(self.diagram),
                               description=self._description(),
                               **self._panels.lists(self.total))
        self._panels.attach(self._text)
        self._controls.observe(lambda change: self._panels.prepare(change["new"], self.total),
                               names="value")
        self._controls.observe(lambda change: self._panels.show_view(
            change["new"], self.step, self.total), names="view")
        self._box = w.VBox([self._controls, self._text], layout=self._layout,
                           _dom_classes=["harness-player"])
        return self._box

    def _description(self) -> str:
        """What the drawing shows, for a screen reader: the diagram's accDescr (a run's
        summary, from_trace), else its title."""
        return self.diagram.description or self.diagram.title or "Diagramme de séquence"

    def _whole_text(self) -> str:
        """« Diagramme complet », for diagrams longer than the window ("": none); the
        browser draws it, at its natural size (stepper.css), when it is opened."""
        return to_mermaid(self.diagram, highlight=False) if self.total > WINDOW else ""

    def _bar_scale(self) -> int:
        """The context bar's width in tokens, the same for every step: computed once."""
        return max(peak(self.diagram), self.diagram.budget or 0, 1)

    def _captions(self) -> list[str]:
        return [turn_label(self.diagram, k) for k in range(self.total + 1)]

    def _refresh(self, steps: set[int]) -> None:
        """After the diagram grew (live mode): the range, the captions, the transcript,
        and `steps`, the new ones and those already prepared that must be drawn again."""
        self._scale = self._bar_scale()
        with self._controls.hold_sync(), self._text.hold_sync():  # one message each
            self._controls.max = self.total
            self._controls.captions = self._captions()
            self._controls.calls = call_steps(self.diagram)
            self._text.transcript = transcript(self.diagram)
            self._text.whole = self._whole_text()
            self._text.description = self._description()
            self._panels.prepare(max(steps), self.total, steps)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """The widget; its text version for viewers that show neither widgets nor HTML.
        (ipywidgets' own bundle would also build a text repr of every child widget.)"""
        view = {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id}
        return {"application/vnd.jupyter.widget-view+json": view,
                "text/plain": transcript(self.diagram)}

    def _ipython_display_(self) -> None:
        """The widget, then its static copy: a second output, hidden by the player's own
        style sheet while the widget is live, and shown by exports and kernel-less
        viewers (a notebook executed by nbclient saves the widgets' state, so an
        nbconvert export would pick the widget over any fallback of the same output)."""
        from IPython.display import HTML, display

        display(self._repr_mimebundle_(), raw=True)
        display(HTML(static_copy(self.diagram)))


def run_live(task: str, model: Model, tools: Sequence[Tool], **kwargs: Any) -> Run:
    """Run a mission while a player, displayed above, draws each step as it happens."""
    from IPython.display import HTML, display

    schemas = [t.schema() for t in tools]
    prompt = kwargs.setdefault("system_prompt", SYSTEM_PROMPT)
    player = Player(Trace(system=system(prompt), tools_tokens=tools_tokens(schemas), tools=schemas))
    display(player._repr_mimebundle_(), raw=True)
    static = display(HTML(static_copy(player.diagram)), display_id=True)
    listener = kwargs.pop("on_event", None)

    def on_event(event: Event) -> None:
        player.on_event(event)
        if listener is not None:
            listener(event)

    done = run(task, model, tools, on_event=on_event, **kwargs)
    if static is not None:  # the static copy (exports, viewers) shows the whole run
        static.update(HTML(static_copy(player.diagram)))
    return done

