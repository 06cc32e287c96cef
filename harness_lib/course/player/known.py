"""« Que sait le modèle ? »: two views of the context at step k, never confused.

On the left, what the model received at its last call and what it answered:
nothing else, since the model keeps nothing between two calls. On the right,
messages[] now: what the model will receive at its next call. The difference
between the two (a result the harness appended, not yet sent) is the lesson.

A hand-written diagram knows its context from its `%% ctx` lines: the model
received everything up to its last `H->>M` arrow. A run knows its messages. A
request the API refused reached no model: it is not a call the model received.

>>> from harness_lib.course.drawing.mermaid import chapter_diagram
>>> d = chapter_diagram("deux_tours")
>>> last_call(d, 1), last_call(d, 6), answer_step(d, 2, 6)
(None, 2, 3)
>>> [e.role for e in since_call(d, 6)]
['assistant', 'tool']
"""

from __future__ import annotations

import html

from ...messages import Message
from ...text import french_number as fr
from ...text import plural
from ..drawing.charts import BOX, ledger_table
from ..drawing.diagram import Diagram, Entry, ledger_at
from ..drawing.message_json import fill, message_html, slice_html

HEAD = "margin:2px 0 4px;font-weight:bold"
COLUMN = "flex:1 1 300px;min-width:0"  # side by side at 1280 px, one above the other at 800
NOTHING = ("Aucun appel pour l’instant : le modèle ne sait encore rien de cette mission, "
           "ni même qu’elle existe.")


def _model_ids(diagram: Diagram) -> set[str]:
    return {p.id for p in diagram.participants if p.label == "Modèle" or p.id == "M"}


def call_steps(diagram: Diagram) -> list[int]:
    """The steps that reach the model (the player's « Appel précédent / suivant »)."""
    model = _model_ids(diagram)
    return [s.index for s in diagram.steps if s.target in model and s.source not in model]


def last_call(diagram: Diagram, k: int) -> int | None:
    """The last step up to k that reached the model (an arrow to it), or None."""
    model = _model_ids(diagram)
    return next((s.index for s in reversed(diagram.steps[:k])
                 if s.target in model and s.source not in model), None)


def answer_step(diagram: Diagram, call: int, k: int) -> int | None:
    """The model's answer to the call at step `call`, if it came by step k."""
    model = _model_ids(diagram)
    return next((s.index for s in diagram.steps[call:k] if s.source in model), None)


def since_call(diagram: Diagram, k: int) -> list[Entry]:
    """The context entries at step k that the model has not received yet."""
    call = last_call(diagram, k)
    received = {id(e) for e in ledger_at(diagram, call)} if call else set()
    return [e for e in ledger_at(diagram, k) if id(e) not in received]


def refused_since(diagram: Diagram, call: int | None, k: int) -> list[int]:
    """The requests after the last call, up to k, that the API refused (runs only)."""
    return [s.index for s in diagram.steps[call or 0:k] if s.target == "A"]


def known_html(diagram: Diagram, k: int) -> str:
    """The two views side by side, each under its own heading."""
    return (f'<div style="{BOX};display:flex;flex-wrap:wrap;gap:8px 20px">'
            f'<div class="harness-model-view" style="{COLUMN}">{_model_view(diagram, k)}</div>'
            f'<div class="harness-now-view" style="{COLUMN}">{_now_view(diagram, k)}</div></div>')


def shown_html(diagram: Diagram, k: int) -> str:
    """known_html as the learner reads it, once the browser has filled its slices with
    the run's messages (stepper.js does it from the text part's `messages` list)."""
    every = run_messages(diagram, len(diagram.steps)) or []
    return fill(known_html(diagram, k), [message_html(m) for m in every])


def _head(text: str) -> str:
    return f'<p style="{HEAD}">{html.escape(text)}</p>'


def _p(text: str) -> str:
    return f'<p style="margin:2px 0">{html.escape(text)}</p>'


def _model_view(diagram: Diagram, k: int) -> str:
    call = last_call(diagram, k)
    head = _head("Ce que le modèle a reçu à son dernier appel, et sa réponse")
    refused = "".join(_p(f"L’appel de l’étape {i} a été refusé par l’API : le modèle ne l’a "
                         "jamais reçu.") for i in refused_since(diagram, call, k))
    if call is None:
        return head + _p(NOTHING) + refused
    step = diagram.steps[call - 1]
    answered = answer_step(diagram, call, k)
    traced = step.messages is not None
    received = _messages(0, len(step.messages or ()), _tools(diagram)) if traced \
        else ledger_table(ledger_at(diagram, call), 0)
    body = _p(f"Appel {step.turn}, à l’étape {call} : voici tout ce qu’il a reçu.") + received
    if answered is None:
        body += _p("Il n’a pas encore répondu : le harness attend sa réponse.")
    else:
        body += _p(f"Sa réponse, à l’étape {answered} :") + _answer(diagram, answered)
    return head + body + refused


def _answer(diagram: Diagram, k: int) -> str:
    step = diagram.steps[k - 1]
    if step.messages is None:
        return ledger_table(step.entries, 0)
    if step.entries:  # a run's reply step adds one entry: the assistant message, last
        return slice_html(len(step.messages) - 1, len(step.messages))
    return _p(f"« {step.text} » : cette réponse n’a jamais été ajoutée à messages[].")


def _now_view(diagram: Diagram, k: int) -> str:
    call = last_call(diagram, k)
    head = _head("messages[] maintenant : ce que le modèle recevra au prochain appel")
    now = run_length(diagram, k)
    if now is not None:
        return head + (_now_messages(diagram, now, call) if call else
                       _messages(0, now, _tools(diagram)))
    new = [e for e in since_call(diagram, k) if e.role != "tools"]
    context = [e for e in ledger_at(diagram, k) if e.role != "tools"]  # beside, not in it
    fresh = "En gras : ajouté depuis son dernier appel ; il ne le recevra qu’au prochain."
    legend = (_p(fresh) if new and call else
              _p("Rien de nouveau depuis son dernier appel.") if call else "")
    beside = sum(e.tokens for e in ledger_at(diagram, k) if e.role == "tools")
    tools = _p(f"À côté de messages[], dans le champ tools de la requête : la définition des "
               f"outils ({fr(beside)} tokens), envoyée à chaque appel.") if beside else ""
    return (head + ledger_table(context, 0, bold={id(e) for e in new} if call else set())
            + legend + tools)


def run_length(diagram: Diagram, k: int) -> int | None:
    """How many messages messages[] holds after step k of a run (None: a hand-written
    diagram, only described). A run's steps hold prefixes of one list (`from_trace`)."""
    if not diagram.steps or diagram.steps[0].messages is None:
        return None
    if k:
        return len(diagram.steps[k - 1].messages or ())
    first = diagram.steps[0]  # before step 1: its messages minus the one it added
    return len(first.messages or ()) - len(first.entries)


def run_messages(diagram: Diagram, k: int) -> list[Message] | None:
    """messages[] after step k of a run (None: a hand-written diagram, only described)."""
    length = run_length(diagram, k)
    if length is None:
        return None
    return list((diagram.steps[k - 1] if k else diagram.steps[0]).messages or ())[:length]


def _now_messages(diagram: Diagram, now: int, call: int) -> str:
    """messages[] now: those of the last call, then the new ones, shown whole."""
    sent = len(diagram.steps[call - 1].messages or ())
    new = now - sent
    them = f"les {fr(sent)} messages" if sent > 1 else "le message"
    then = (f"puis {plural(new, 'message')} que le modèle n’a pas encore "
            f"{'reçus' if new > 1 else 'reçu'} :" if new else "et rien de nouveau.")
    return _p(f"{plural(now, 'message')} : {them} de l’appel "
              f"{diagram.steps[call - 1].turn}, {then}") + (slice_html(sent, now) if new else "")


def _tools(diagram: Diagram) -> bool:
    return any(e.role == "tools" for e in diagram.initial)


def _messages(start: int, end: int, tools: bool) -> str:
    """messages[start:end] as the API receives them: pretty JSON (drawing/message_json.py)."""
    beside = ", et à côté la définition des outils" if tools else ", sans définition d’outil"
    return _p(f"{plural(end - start, 'message')}{beside} :") + slice_html(start, end)
