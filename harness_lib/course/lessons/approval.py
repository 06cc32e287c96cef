"""Human validation: the run stops and asks, then each click replays it with the answers.

With `STRICT_POLICY`, edit_file and bash need a human's yes. With no approver,
the loop cannot ask anyone: it stops with reason "human" and keeps, in its
trace, the call that was waiting. A notebook cell runs to its end before any
click is handled, so it cannot pause mid-run; the widget below therefore
replays the whole mission with the answers given so far. MockModel is
deterministic: the replay follows the same path up to the next call that asks,
which the widget shows in full before you decide it. One click decides one action.

>>> first = replay_with([])  # nobody has answered yet: the first action waits
>>> first.call.name
'edit_file'
>>> replay_with([True]).call.name  # yes to edit_file: now bash asks
'bash'
>>> done = replay_with([True, False])
>>> done.run.reason, done.asked, done.answers
('answer', ['edit_file', 'bash'], (True, False))
>>> decide(False).observations[1]  # one answer for every action: no to all
'Refusé\\xa0: la personne n’a pas autorisé cette action.'
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...loop import run
from ...messages import ToolCall, read_call
from ...mock.model import MockModel
from ...models.model import Model
from ...policy import STRICT_POLICY, Decision, Policy
from ...text import one_line, shorten
from ...tools.builtin import workspace_tools
from ...trace import Run
from ..drawing.run_notes import stop_reason
from ..missions.tasks import PRICE_TASK, example_workspace
from ..player.static import Shown


@dataclass(frozen=True)
class Pending:
    """The tool call that waited for a human, and the policy's reason for asking."""

    call: ToolCall
    decision: Decision


@dataclass(frozen=True)
class Outcome:
    """What a replay with a human's answer gave."""

    approved: bool  # every action was allowed
    run: Run
    workspace: Path
    asked: list[str]  # the tools a human was asked about, in order
    observations: list[str]  # every tool result the model received
    answers: tuple[bool, ...] = ()  # the human's answer to each of `asked`


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
    return Pending(read_call(call), Decision("ask", str(asked.data.get("reason"))))


class _Waiting(Exception):
    """Raised by the approver when the answers run out: the run stops at that action."""

    def __init__(self, waiting: Pending) -> None:
        super().__init__("validation humaine attendue")
        self.waiting = waiting


def replay_with(answers: Sequence[bool], task: str = PRICE_TASK, workspace: str = "prix",
                policy: Policy = STRICT_POLICY, model: Model | None = None) -> Outcome | Pending:
    """Replay the mission on a fresh workspace with `answers`, one per action asked, in order.

    Returns the outcome, or the next action to decide when the answers run out before the end.
    """
    try:
        return _replay(list(answers), None, task, workspace, policy, model)
    except _Waiting as stopped:
        return stopped.waiting


def decide(approve: bool | Sequence[bool], task: str = PRICE_TASK, workspace: str = "prix",
           policy: Policy = STRICT_POLICY, model: Model | None = None) -> Outcome:
    """Replay to the end: `approve` answers every action (a bool), or each one in order (a
    list; an action beyond the list is refused, since nobody said yes)."""
    answers = [] if isinstance(approve, bool) else list(approve)
    default = approve if isinstance(approve, bool) else False
    return _replay(answers, default, task, workspace, policy, model)


def _replay(answers: list[bool], default: bool | None, task: str, workspace: str,
            policy: Policy, model: Model | None) -> Outcome:
    folder, asked, given = example_workspace(workspace), [], []

    def human(call: ToolCall, decision: Decision) -> bool:
        if len(given) == len(answers) and default is None:
            raise _Waiting(Pending(call, decision))  # nobody has decided this one yet
        asked.append(str(call.name))
        given.append(answers[len(given)] if len(given) < len(answers) else bool(default))
        return given[-1]

    done = run(task, model or MockModel(), workspace_tools(folder), policy=policy, approver=human)
    seen = [str(e.message.get("content")) for e in done.trace.events
            if e.kind == "tool_result" and e.message]
    return Outcome(all(given), done, folder, asked, seen, tuple(given))


BOX = "border:1px solid #ccc;border-radius:6px;padding:8px 12px;margin:4px 0"


def visible(text: str) -> str:
    """Every character shown: line breaks kept, other control characters written out."""
    return "".join(c if c in "\n\t" or c.isprintable() else repr(c)[1:-1] for c in text)


def pending_html(waiting: Pending, number: int = 1) -> str:
    """Action `number`, waiting for a yes: tool, each argument in full, the policy's reason."""
    call = waiting.call
    # Unreadable arguments are shown raw, never hidden.
    arguments = call.arguments if call.arguments is not None else {"(illisible)": call.text}
    shown = "".join(f"<b>{html.escape(str(k))}</b>"
                    f'<pre style="margin:2px 0 6px 0">{html.escape(visible(str(v)))}</pre>'
                    for k, v in arguments.items())
    return (f'<div style="{BOX};background:#fff8e1;color:#212529"><b>Action {number} : '
            f"validation humaine nécessaire</b><br>L’agent veut appeler "
            f"<code>{html.escape(str(call.name))}</code> "
            f"({html.escape(call.id)}) avec :<br>{shown}"
            f"Raison de la politique : {html.escape(waiting.decision.reason)}</div>")


def decided_html(decided: Sequence[tuple[Pending, bool]]) -> str:
    """The actions already decided, one line each: what, and your answer."""
    rows = "".join(f"<li>{'✔ autorisé' if yes else '✘ refusé'} : action {i} "
                   f"<code>{html.escape(_one_line(_call_text(waiting.call), 100))}</code></li>"
                   for i, (waiting, yes) in enumerate(decided, start=1))
    return f"<ul style=\"margin:2px 0\">{rows}</ul>" if rows else ""


def _call_text(call: ToolCall) -> str:
    return f"{call.name}({visible(call.text)})"


def _one_line(text: str, limit: int = 120) -> str:
    return shorten(one_line(" ".join(text.split())), limit)


def outcome_html(outcome: Outcome) -> str:
    """How the replay ended, with the observations: they say what really happened."""
    answers = ", ".join(f"{name} {'autorisé' if yes else 'refusé'}"
                        for name, yes in zip(outcome.asked, outcome.answers, strict=True))
    items = "".join(f"<li><code>{html.escape(_one_line(o))}</code></li>"
                    for o in outcome.observations)
    answers = answers or "aucune"
    colour = "#e8f5e9" if outcome.approved else "#ffebee"
    return (f'<div style="{BOX};background:{colour}"><b>Vos décisions : '
            f"{html.escape(answers)}.</b> Fin : {html.escape(stop_reason(outcome.run.reason))}"
            f"<br>Observations reçues par le modèle :<ul>{items}</ul>"
            "Message de fin (la réponse du modèle, ou la raison de l’arrêt) :"
            f'<pre style="white-space:pre-wrap;margin:0">{html.escape(outcome.run.message)}</pre>'
            "</div>")


def approval_widget(task: str = PRICE_TASK, workspace: str = "prix",
                    policy: Policy = STRICT_POLICY) -> Any:
    """Each action that needs a yes, shown in full with its own Autoriser / Refuser buttons.

    A click decides that action only; the mission is replayed with the answers so far, up
    to the next action that asks (shown in turn), or to its end.
    """
    import ipywidgets as widgets  # only here: the rest of the module works without widgets

    waiting = replay_with([], task, workspace, policy)
    if not isinstance(waiting, Pending):
        nothing_waits = "Aucune action n’attend de validation : la mission va à son terme."
        return Shown(widgets.HTML(nothing_waits))
    decided: list[tuple[Pending, bool]] = []
    from ..playground.live import live_html

    # The next action and the outcome are announced when they change.
    history, current, result = widgets.HTML(), live_html(pending_html(waiting)), live_html()
    yes, no = (widgets.Button(description=f"{verb} cette action", button_style=style, icon=icon,
                              layout=widgets.Layout(width="auto"))
               for verb, style, icon in (("Autoriser", "success", "check"),
                                         ("Refuser", "danger", "times")))
    buttons = widgets.HBox([yes, no])

    def answer(approve: bool) -> None:
        nonlocal waiting
        decided.append((waiting, approve))
        history.value = decided_html(decided)
        found = replay_with([a for _, a in decided], task, workspace, policy)
        if isinstance(found, Pending):  # the next action, shown before anyone decides it
            waiting, current.value = found, pending_html(found, len(decided) + 1)
        else:
            current.value, buttons.layout.display = "", "none"
            result.value = outcome_html(found)

    yes.on_click(lambda _: answer(True))
    no.on_click(lambda _: answer(False))
    return Shown(widgets.VBox([history, current, buttons, result],
                              _dom_classes=["harness-approval"]))
