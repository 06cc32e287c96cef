"""What the player shows at step k, as data and HTML: a pure function, testable without a browser.

`state(diagram, k)` gathers everything of one step: the diagram as drawn (the last
`WINDOW` arrows, the current one highlighted), the hub view, the note (never
empty), the context and its bar, what the model knows. `player.py` prepares these
once per step and lets the browser switch between them.

>>> from harness_lib.course.drawing.mermaid import chapter_diagram
>>> s = state(chapter_diagram("deux_tours"), 3)
>>> s.step_label, s.totals
('étape 3 sur 9', {'system': 1200, 'tools': 150, 'user': 15, 'assistant': 25})
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from ...messages import Message
from ...text import one_line
from ..drawing import charts
from ..drawing.diagram import Diagram, Entry, ledger_at, peak, total_at, totals_of
from ..drawing.fit import DISPLAY, LINES, WINDOW, label_limit, shown_cut
from ..drawing.hub import hub_mermaid
from ..drawing.mermaid import to_mermaid
from . import known
from .known import run_messages
from .narration import drawing_name, step_note


@dataclass(frozen=True)
class PlayerState:
    step: int  # 0 .. total
    total: int  # number of steps (arrows)
    turn: int  # model calls so far
    turns: int  # model calls in the whole diagram
    mermaid: str  # the sequence diagram as the player draws it at this step
    note: str
    totals: dict[str, int]  # tokens per role
    added: tuple[Entry, ...]  # entries still in the context that this step added
    context: tuple[Entry, ...]  # the whole context after this step
    bar_html: str
    status: str = ""
    step_label: str = ""  # « étape k sur N »
    turn_label: str = ""  # « tour n / N », inside a loop or for a trace, else ""
    diagram: Diagram | None = field(default=None, repr=False, compare=False)

    @property
    def name(self) -> str:
        """The drawing's accessible name at this step: who sends what to whom."""
        return drawing_name(self.diagram, self.step) if self.diagram is not None else ""

    @property
    def hub(self) -> str:
        """The hub view at this step (a Mermaid flowchart), drawn only when asked for."""
        return hub_mermaid(self.diagram, self.step) if self.diagram is not None else ""

    @property
    def messages(self) -> list[Message] | None:
        """messages[] after this step (None: a hand-written diagram), copied when asked:
        a copy per prepared step of a 50 000-step run cost a third of a jump."""
        return run_messages(self.diagram, self.step) if self.diagram is not None else None


def state(diagram: Diagram, k: int, status: str = "", scale: int | None = None) -> PlayerState:
    """What the player shows at step k (raises DiagramError if k is out of range).

    `scale`: the width of the context bar in tokens; by default the larger of the
    diagram's peak and its budget (pass it when asking for many steps: it is the same).
    """
    context, steps = ledger_at(diagram, k), diagram.steps
    step = steps[k - 1] if k else None
    entries = step.entries if step else ()
    # A compaction clears what came before it: only entries from the last one on survive.
    kept = next((i for i in range(len(entries) - 1, -1, -1) if entries[i].role == "compact"), 0)
    added = entries[kept:]
    # Only a compaction removes tokens: the context before it is counted only then (a
    # long run's step counts its context once, not three times).
    replaced = total_at(diagram, k - 1) + sum(e.tokens for e in entries) \
        - sum(e.tokens for e in context) if any(e.role == "compact" for e in entries) else 0
    scale = scale or max(peak(diagram), diagram.budget or 0, 1)
    turn, turns = (step.turn if step else 0), (steps[-1].turn if steps else 0)
    limit = label_limit(diagram, k)
    return PlayerState(
        k, len(steps), turn, turns,
        DISPLAY + to_mermaid(diagram, upto=k, window=WINDOW, label_limit=limit, rows=LINES),
        _note(diagram, k, limit), totals_of(context), added, tuple(context),
        charts.context_bar(context, len(added), scale, diagram.budget, replaced), status,
        f"étape {k} sur {len(steps)}", turn_label(diagram, k), diagram)


def _note(diagram: Diagram, k: int, limit: int) -> str:
    """The step's note, and its label whole when the drawing had to cut it (unless the
    note already says it whole)."""
    step = diagram.steps[k - 1] if k else None
    note = step_note(diagram, k)
    if step is None or not shown_cut(step, limit):
        return note
    text = one_line(step.text)
    # A label already cut when the diagram was built (« … ») may be whole in the note.
    if text.removesuffix("…") in note:
        return note
    # A label the diagram already cut (« … ») is not whole here either: say it is a beginning.
    said = "Début du libellé" if text.endswith("…") else "Libellé complet"
    return f"{note}\n{said} : « {text} »"


def turn_label(diagram: Diagram, k: int) -> str:
    """« tour n / N » at step k: inside a loop frame, or anywhere in a run; else ""."""
    steps = diagram.steps
    step = steps[k - 1] if k else None
    if step is None or step.turn == 0:
        return ""
    traced = steps[0].messages is not None
    return f"tour {step.turn} / {steps[-1].turn}" if traced or step.loop is not None else ""


def text_html(s: PlayerState) -> str:
    """The step's status (live runs), its note and its context bar, as one HTML block."""
    # role="status": a screen reader announces « en attente du modèle… » by itself.
    status = f'<div role="status"><b>{html.escape(s.status)}</b></div>' if s.status else ""
    note = html.escape(s.note).replace("\n", "<br>")
    # data-context: what stepper.js announces after the note when the total changed.
    context = f"Contexte : {charts.fr(sum(s.totals.values()))} tokens"
    return (f'{status}<p class="harness-note" data-context="{context}" style="font-size:15px;'
            f'line-height:1.45;margin:4px 0">{note}</p>{s.bar_html}')


def known_html(s: PlayerState) -> str:
    """« Que sait le modèle ? » beside « messages[] maintenant » (known.py)."""
    return known.known_html(s.diagram, s.step) if s.diagram is not None else ""


def diagram_output(mermaid: str) -> dict:
    """One display_data output: Lab draws text/vnd.mermaid, Notebook 7 only the Markdown fence."""
    return {"output_type": "display_data", "metadata": {}, "data": {
        "text/vnd.mermaid": mermaid, "text/markdown": charts.mermaid_fence(mermaid),
        "text/plain": mermaid}}
