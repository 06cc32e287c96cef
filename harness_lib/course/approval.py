"""Human validation: the run stops and asks, then a click replays it with the answer.

With `STRICT_POLICY`, edit_file and bash need a human's yes. With no approver,
the loop cannot ask anyone: it stops with reason "human" and keeps, in its
trace, the call that was waiting. A notebook cell runs to its end before any
click is handled, so it cannot pause mid-run; the widget below therefore
replays the whole mission, this time with an approver that says yes (or no).
MockModel is deterministic: the replay follows the same path up to that call.

>>> outcome = decide(True)
>>> outcome.run.reason, outcome.asked
('answer', ['edit_file', 'bash'])
>>> refused = decide(False)
>>> refused.observations[1]
"Refusé : la personne n'a pas autorisé cette action."
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..loop import run
from ..messages import ToolCall, read_call
from ..models import MockModel, Model
from ..policy import STRICT_POLICY, Decision, Policy
from ..text import one_line, shorten
from ..tools import workspace_tools
from ..trace import Run
from .scenarios import PRICE_TASK, example_workspace


@dataclass(frozen=True)
class Pending:
    """The tool call that waited for a human, and the policy's reason for asking."""

    call: dict[str, Any]
    decision: Decision


@dataclass(frozen=True)
class Outcome:
    """What a replay with a human's answer gave."""

    approved: bool
    run: Run
    workspace: Path
    asked: list[str]  # the tools a human was asked about, in order
    observations: list[str]  # every tool result the model received


def stopped_for_human(task: str = PRICE_TASK, workspace: str = "prix",
                      policy: Policy = STRICT_POLICY, model: Model | None = None) -> Run:
    """Run the mission with nobody to ask: it stops at the first call that needs a yes."""
    return run(task, model or MockModel(), workspace_tools(example_workspace(workspace)),
               policy=policy)


def pending(done: Run) -> Pending | None:
    """The call a stopped run was waiting on (found in its trace), or None."""
    asked = next((e for e in done.trace.events
                  if e.kind == "permission" and e.data.get("verdict") == "ask"), None)
    if asked is None:
        return None
    calls = [c for e in done.trace.events if e.kind == "reply" and e.message
             for c in e.message.get("tool_calls") or []]
    call = next(c for c in calls if c.get("id") == asked.data.get("id"))
    return Pending(call, Decision("ask", str(asked.data.get("reason"))))


def decide(approve: bool, task: str = PRICE_TASK, workspace: str = "prix",
           policy: Policy = STRICT_POLICY, model: Model | None = None) -> Outcome:
    """Replay the mission on a fresh workspace; the human answers `approve` to every ask."""
    folder, asked = example_workspace(workspace), []

    def human(call: ToolCall, decision: Decision) -> bool:
        asked.append(str(call.name))
        return approve

    done = run(task, model or MockModel(), workspace_tools(folder), policy=policy, approver=human)
    seen = [str(e.message.get("content")) for e in done.trace.events
            if e.kind == "tool_result" and e.message]
    return Outcome(approve, done, folder, asked, seen)


BOX = "border:1px solid #ccc;border-radius:6px;padding:8px 12px;margin:4px 0"


def visible(text: str) -> str:
    """Every character shown: line breaks kept, other control characters written out."""
    return "".join(c if c in "\n\t" or c.isprintable() else repr(c)[1:-1] for c in text)


def pending_html(waiting: Pending) -> str:
    """The call waiting for a yes: tool, each argument in full, and the policy's reason."""
    call = read_call(waiting.call)
    # Unreadable arguments are shown raw, never hidden.
    arguments = call.arguments if call.arguments is not None else {"(illisible)": call.text}
    shown = "".join(f"<b>{html.escape(str(k))}</b>"
                    f'<pre style="margin:2px 0 6px 0">{html.escape(visible(str(v)))}</pre>'
                    for k, v in arguments.items())
    return (f'<div style="{BOX};background:#fff8e1"><b>Validation humaine nécessaire</b><br>'
            f"L'agent veut appeler <code>{html.escape(str(call.name))}</code> "
            f"({html.escape(call.id)}) avec :<br>{shown}"
            f"Raison de la politique : {html.escape(waiting.decision.reason)}</div>")


def outcome_html(outcome: Outcome) -> str:
    """How the replay ended, with the observations: they say what really happened."""
    verdict = "autorisé" if outcome.approved else "refusé"
    items = "".join(f"<li><code>{html.escape(shorten(one_line(o), 120))}</code></li>"
                    for o in outcome.observations)
    colour = "#e8f5e9" if outcome.approved else "#ffebee"
    return (f'<div style="{BOX};background:{colour}"><b>Vous avez {verdict}.</b> '
            f"Fin : <code>{html.escape(outcome.run.reason)}</code><br>"
            f"Demandes soumises à validation : {html.escape(', '.join(outcome.asked) or 'aucune')}"
            f"<br>Observations reçues par le modèle :<ul>{items}</ul>"
            "Message de fin (la réponse du modèle, ou la raison de l'arrêt) :"
            f'<pre style="white-space:pre-wrap;margin:0">{html.escape(outcome.run.message)}</pre>'
            "</div>")


def approval_widget(task: str = PRICE_TASK, workspace: str = "prix",
                    policy: Policy = STRICT_POLICY) -> Any:
    """Autoriser / Refuser buttons under the call that stopped the run; a click replays it."""
    import ipywidgets as widgets  # only here: the rest of the module works without widgets

    waiting = pending(stopped_for_human(task, workspace, policy))
    if waiting is None:
        return widgets.HTML("Aucune action n'attend de validation : la mission va à son terme.")
    yes = widgets.Button(description="Autoriser", button_style="success", icon="check")
    no = widgets.Button(description="Refuser", button_style="danger", icon="times")
    result = widgets.HTML()

    def answer(approve: bool) -> None:
        result.value = "<i>Nouvelle exécution de la mission…</i>"
        result.value = outcome_html(decide(approve, task, workspace, policy))

    yes.on_click(lambda _: answer(True))
    no.on_click(lambda _: answer(False))
    return widgets.VBox([widgets.HTML(pending_html(waiting)), widgets.HBox([yes, no]), result])
