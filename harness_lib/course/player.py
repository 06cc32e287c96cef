"""A step-by-step player for the course's sequence diagrams, in the notebook.

`state(diagram, k)` says everything the player shows at step k (0 = before the
first arrow): the Mermaid text up to k, the note, the context, what the model
knows. It is a pure function, testable without a browser. `Player` puts it on
screen with ipywidgets; the diagram itself is drawn by the notebook front end,
offline (JupyterLab >= 4.1 and Notebook 7 both render Mermaid).

>>> from harness_lib.course.mermaid import chapter_diagram
>>> s = state(chapter_diagram("deux_tours"), 3)
>>> s.step_label, s.totals
('étape 3 / 9', {'system': 1200, 'tools': 150, 'user': 15, 'assistant': 25})

In a notebook: `Player("deux_tours")`, `Player(run.trace)`, or
`run_live(task, model, tools)` to watch a run grow.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..loop import SYSTEM_PROMPT, run
from ..messages import Message, system
from ..tokens import tools_tokens
from ..tools import Tool
from ..trace import Event, Run, Trace
from . import charts
from .diagram import Diagram, Entry, from_trace, ledger_at, peak, total_at, totals_at, transcript
from .mermaid import CHAPTER, chapter_diagram, parse, to_mermaid

if TYPE_CHECKING:
    from ..models import Model

START_NOTE = "Étape 0 : le contexte de départ, avant la première flèche."
STATUS = {"request": "⏳ en attente du modèle…", "tool_call": "⚙ outil en cours…"}


@dataclass(frozen=True)
class PlayerState:
    step: int  # 0 .. total
    total: int  # number of steps (arrows)
    turn: int  # model calls so far
    turns: int  # model calls in the whole diagram
    mermaid: str
    note: str
    totals: dict[str, int]  # tokens per role
    added: tuple[Entry, ...]  # entries still in the context that this step added
    context: tuple[Entry, ...]  # the whole context after this step
    messages: list[Message] | None  # messages[] after this step (diagrams built from a trace)
    bar_html: str
    status: str = ""
    step_label: str = ""  # « étape k / N »
    turn_label: str = ""  # « tour n / N », inside a loop or for a trace, else ""


def state(diagram: Diagram, k: int, status: str = "") -> PlayerState:
    """What the player shows at step k (raises DiagramError if k is out of range)."""
    context, steps = ledger_at(diagram, k), diagram.steps
    step = steps[k - 1] if k else None
    entries = step.entries if step else ()
    # A compaction clears what came before it: only entries from the last one on survive.
    kept = next((i for i in range(len(entries) - 1, -1, -1) if entries[i].role == "compact"), 0)
    added = entries[kept:]
    replaced = total_at(diagram, k - 1) + sum(e.tokens for e in entries) - total_at(diagram, k) \
        if k else 0
    scale = max(peak(diagram), diagram.budget or 0, 1)
    turn, turns = (step.turn if step else 0), (steps[-1].turn if steps else 0)
    traced = bool(steps) and steps[0].messages is not None
    shows_turn = turn > 0 and (traced or (step is not None and step.loop is not None))
    return PlayerState(
        k, len(steps), turn, turns, to_mermaid(diagram, upto=k), step.note if step else START_NOTE,
        totals_at(diagram, k), added, tuple(context), _messages(diagram, k),
        charts.context_bar(context, len(added), scale, diagram.budget, replaced), status,
        f"étape {k} / {len(steps)}", f"tour {turn} / {turns}" if shows_turn else "")


def _messages(diagram: Diagram, k: int) -> list[Message] | None:
    if not diagram.steps or diagram.steps[0].messages is None:
        return None  # a hand-written diagram: the context is only described
    if k:
        return list(diagram.steps[k - 1].messages or ())
    first = diagram.steps[0]  # before step 1: its messages minus the one it added
    return list((first.messages or ())[: len(first.messages or ()) - len(first.entries)])


def _diagram(source: Diagram | str) -> Diagram:
    if isinstance(source, Diagram):
        return source
    return chapter_diagram(source) if source in CHAPTER else parse(source)


class Player:
    """Play, pause, step and scrub through a diagram; each Player owns all its widgets.

    `Player(source, interval=2.0)`: source is a Diagram, a Trace (or a Run), a
    chapter diagram name ("deux_tours", "erreur_outil", "boucle_complete") or
    annotated Mermaid text; interval is the time per step when playing, in seconds.
    """

    def __init__(self, source: Diagram | Trace | Run | str, *, interval: float = 2.0) -> None:
        source = source.trace if isinstance(source, Run) else source
        # The player's own copy of a trace: live events never touch the caller's.
        self.trace = replace(source, events=list(source.events)) \
            if isinstance(source, Trace) else None
        self.diagram = from_trace(self.trace) if self.trace else _diagram(source)  # type: ignore[arg-type]
        self.status = ""
        self.widget = self._build(interval)
        self._refresh()
        self._show(0)

    @property
    def step(self) -> int:
        return self._slider.value

    @property
    def total(self) -> int:
        return len(self.diagram.steps)

    def state(self, k: int | None = None) -> PlayerState:
        return state(self.diagram, self.step if k is None else k, self.status)

    def go(self, k: int) -> None:
        k = max(0, min(k, self.total))
        if k == self._slider.value:
            self._show(k)  # the slider does not change, so it will not call _show itself
        self._slider.value = k

    def next(self) -> None:
        self.go(self.step + 1)

    def previous(self) -> None:
        self.go(self.step - 1)

    def on_event(self, event: Event) -> None:
        """Live mode: one more event of a running loop; the player jumps to it."""
        if self.trace is None:
            raise TypeError("on_event : ce lecteur affiche un diagramme écrit à la main, "
                            "pas une trace ; créez-le avec Player(Trace(...)).")
        self.trace.add(event)
        reason = "answer" if event.kind == "answer" else event.data.get("reason")
        done = f"terminé : {reason}" if event.kind in ("answer", "stop") else "en cours…"
        self.status = STATUS.get(event.kind, done)
        self.diagram = from_trace(self.trace)
        self._refresh()
        self.go(self.total)  # the newest step, drawn once

    def _build(self, interval: float) -> Any:
        import ipywidgets as w

        self._play = w.Play(min=0, max=0, interval=round(interval * 1000), show_repeat=False,
                            description="Lecture", tooltip="Lecture / pause")
        self._slider = w.IntSlider(min=0, max=0, readout=False, description="Étape",
                                   layout=w.Layout(flex="1"))
        # Linked in the browser: playing needs no Python thread and survives a busy kernel.
        w.jslink((self._play, "value"), (self._slider, "value"))
        previous = w.Button(description="◀ Précédente", tooltip="Étape précédente")
        following = w.Button(description="Suivante ▶", tooltip="Étape suivante")
        previous.on_click(lambda _: self.previous())
        following.on_click(lambda _: self.next())
        self._slider.observe(lambda change: self._show(change["new"]), names="value")
        self._labels = (w.Label(), w.Label())  # « étape k / N », « tour n / N »
        self._out, self._status, self._note, self._bar = w.Output(), w.HTML(), w.HTML(), w.HTML()
        self._known, self._text = w.HTML(), w.HTML()
        known = w.Accordion(children=[self._known], titles=["Que sait le modèle ?"])
        text = w.Accordion(children=[self._text], titles=["Version texte"])
        controls = w.HBox([self._play, previous, following, self._slider, *self._labels])
        box = w.VBox([controls, self._status, self._out, self._note, self._bar, known, text])
        # Stable hooks for the browser test (and for anyone styling the course).
        for widget, name in [(box, "player"), (self._play, "play"), (self._slider, "slider"),
                             (previous, "previous"), (following, "next"), (self._labels[0], "step"),
                             (self._out, "diagram"), (self._note, "note"), (self._bar, "bar")]:
            widget.add_class(f"harness-{name}")
        return box

    def _refresh(self) -> None:
        """After the diagram changed: the slider's range and the transcript."""
        self._play.max = self._slider.max = self.total
        text = html.escape(transcript(self.diagram))
        self._text.value = f'<div style="white-space:pre-wrap">{text}</div>'

    def _show(self, k: int) -> None:
        s = self.state(k)
        # One assignment replaces the output in one message (like clear_output(wait=True)).
        # Lab renders text/vnd.mermaid, Notebook 7 only the Markdown fence.
        self._out.outputs = ({"output_type": "display_data", "metadata": {}, "data": {
            "text/vnd.mermaid": s.mermaid, "text/markdown": charts.mermaid_fence(s.mermaid),
            "text/plain": s.mermaid}},)
        self._labels[0].value, self._labels[1].value = s.step_label, s.turn_label
        # role="status": a screen reader announces « en attente du modèle… » by itself.
        self._status.value = f'<b role="status">{html.escape(s.status)}</b>'
        self._note.value = f"<p>{html.escape(s.note).replace(chr(10), '<br>')}</p>"
        self._bar.value = s.bar_html
        self._known.value = charts.messages_block(s.messages) if s.messages is not None \
            else charts.ledger_table(s.context, len(s.added))

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """The widget, plus a static copy for exports and viewers without a kernel."""
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/markdown"] = charts.static_markdown(self.diagram)
        bundle["text/plain"] = transcript(self.diagram)
        return bundle


def run_live(task: str, model: Model, tools: Sequence[Tool], **kwargs: Any) -> Run:
    """Run a mission while a player, displayed above, draws each step as it happens."""
    from IPython.display import display

    schemas = [t.schema() for t in tools]
    prompt = kwargs.setdefault("system_prompt", SYSTEM_PROMPT)
    player = Player(Trace(system=system(prompt), tools_tokens=tools_tokens(schemas), tools=schemas))
    shown = display(player, display_id=True)
    listener = kwargs.pop("on_event", None)

    def on_event(event: Event) -> None:
        player.on_event(event)
        if listener is not None:
            listener(event)

    done = run(task, model, tools, on_event=on_event, **kwargs)
    if shown is not None:  # refresh the static copy (exports, viewers) with the whole run
        shown.update(player)
    return done
