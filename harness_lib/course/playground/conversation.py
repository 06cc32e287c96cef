"""A learner's messages[] as a sequence diagram: what send() draws under its verdict.

One arrow per message, numbered as in messages[], then the call and what came back:
the model's reply (Harness → Modèle → Harness), or the API's refusal (Harness → API,
a crossed arrow back): the API refuses before any model sees the request, so the
model is not the one who answers. The refused message is framed in red, with a note
that names the field. The context bar is what the call carries: every message and
the tool definitions, per role. The text is drawn at the players' size (15 px, at
least 12.5 px in an 800 px window): labels are cut to keep the drawing narrow enough.

>>> from harness_lib.messages import user
>>> from harness_lib.mock import check_conversation
>>> conversation = [user("Bonjour"), {"role": "tool", "content": "?"}]
>>> mark = locate(check_conversation(conversation), None)
>>> mark
Mark(index=1, field='tool_call_id', why='')
>>> d = conversation_diagram(conversation, [], outcome="HTTP 400 : refusé", refused=True)
>>> [(s.source, s.target, s.text) for s in d.steps][2:]
[('H', 'A', 'Appel\\xa0: 2 messages + 0 outil'), ('A', 'H', 'HTTP 400 : refusé')]
>>> d.description
'2 messages, refusés par l’API\\xa0: le modèle ne verra jamais cette conversation.'
>>> "Note over T,H: ✘ messages[1].tool_call_id" in mermaid_text(d, mark)
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import ApiError
from ...mock.message_rules import Problem
from ...text import one_line, plural, shorten
from ...tokens import message_tokens, tools_tokens
from ..drawing import charts
from ..drawing.diagram import Diagram, Entry, Participant, Step, ledger_at, message_label
from ..drawing.fit import DISPLAY, FIT, drawn_width  # the players' text fitting
from ..drawing.mermaid import arrow_line, escape, to_mermaid

FIRST, LAST = 10, 29  # a long conversation: its first and last messages are drawn
LABEL = 64  # characters of an arrow's label: the diagram stays readable on a narrow screen
MARKED = "rgba(229, 57, 53, 0.18)"  # the frame around the message the API refuses
# role -> (source, target, arrow): who wrote that kind of message
ROUTES = {"system": ("H", "H", "->>"), "developer": ("H", "H", "->>"), "user": ("U", "H", "->>"),
          "assistant": ("M", "H", "-->>"), "tool": ("T", "H", "-->>"),
          "function": ("T", "H", "-->>")}
SAME_AS = {"developer": "system", "function": "tool"}  # the bar's role for older names
PARTICIPANTS = (Participant("U", "Personne"), Participant("H", "Harness"),
                Participant("A", "API"), Participant("M", "Modèle"), Participant("T", "Outils"))
_PARAM = re.compile(r"messages\.?\[(\d+)\]\.?(.*)")  # messages[3].role, messages.[3].role
# The provider's words -> what the note beside the refused message says, in short.
WHY = {"did not have response messages": "une demande sans résultat",
       "preceeding message": "un résultat sans demande", "not found in 'tool_calls'":
       "un id qui ne répond à aucune demande", "Missing": "un champ manque",
       "Invalid value": "valeur refusée", "Invalid type": "mauvais type",
       "expected a string, got null": "content vaut null"}


@dataclass(frozen=True)
class Mark:
    """The message the API refuses (its index in messages[]), the field it names, and why."""

    index: int
    field: str
    why: str = ""


def locate(problems: Sequence[Problem], result: object) -> Mark | None:
    """Where the refusal points: our first problem, else the provider's own `param`."""
    text = result.message if isinstance(result, ApiError) else ""
    why = next((short for words, short in WHY.items() if words in text), "")
    if problems:
        first = problems[0]
        return Mark(first.index, first.field, why) if first.index is not None else None
    body = result.body.get("error") if isinstance(result, ApiError) else None
    param = body.get("param") if isinstance(body, dict) else None
    found = _PARAM.fullmatch(param) if isinstance(param, str) else None
    return Mark(int(found[1]), found[2], why) if found else None


def conversation_diagram(messages: Sequence[object], tools: object, outcome: str = "",
                         refused: bool = False, keep: int | None = None) -> Diagram:
    """One arrow per message, then the call and its `outcome` (a crossed arrow if refused).

    A long list is drawn by its first and last messages, and message `keep` (the refused one).
    """
    steps: list[Step] = []
    previous = -1
    for i in shown(len(messages), keep):
        if i != previous + 1:  # messages left out: one arrow says so
            steps.append(Step(len(steps) + 1, "H", "H", "->>", "… messages non dessinés …"))
        steps.append(_message_step(len(steps) + 1, i, messages[i]))
        previous = i
    names = _tool_names(tools)
    sent = f"Appel : {plural(len(messages), 'message')} + {plural(len(names), 'outil')}"
    answerer = "A" if refused else "M"  # a refusal comes from the API: no model saw the call
    steps.append(Step(len(steps) + 1, "H", answerer, "->>", sent, turn=1))
    if outcome:
        steps.append(Step(len(steps) + 1, answerer, "H", "--x" if refused else "-->>",
                          shorten(one_line(outcome), LABEL)))
    tokens = tools_tokens(tools) if isinstance(tools, list) else 0
    initial = (Entry("tools", tokens, shorten("Définitions de " + ", ".join(names))),) \
        if tokens else ()
    used = {who for step in steps for who in (step.source, step.target)}
    return Diagram("Votre messages[]", _description(len(messages), outcome, refused),
                   tuple(p for p in PARTICIPANTS if p.id in used), initial, tuple(steps))


def _description(n: int, outcome: str, refused: bool) -> str:
    """What became of the call, as the API decided it: never « envoyés » after a refusal."""
    messages = plural(n, "message")
    agreed = "s" if n > 1 else ""  # refusés, envoyés
    if refused:
        return f"{messages}, refusé{agreed} par l’API : le modèle ne verra jamais cette " \
            "conversation."
    if outcome.startswith("Réponse"):
        return f"{messages}, envoyé{agreed} au modèle avec la définition des outils."
    return f"{messages} : l’appel n’a pas abouti, aucune réponse du modèle."


def shown(n: int, keep: int | None = None) -> list[int]:
    """The indices drawn: all of a short list, else the first and last ones (and `keep`)."""
    if n <= FIRST + LAST:
        return list(range(n))
    return sorted({*range(FIRST), *range(n - LAST, n), *([keep] if keep is not None else [])})


def _message_step(number: int, i: int, message: object) -> Step:
    role = message.get("role") if isinstance(message, dict) else None
    if not isinstance(role, str) or not isinstance(message, dict):
        what = type(message).__name__ if not isinstance(message, dict) else "sans role valide"
        return Step(number, "H", "H", "->>", f"[{i}] ? ({what})")
    source, target, arrow = ROUTES.get(role, ("H", "H", "->>"))
    try:
        label = message_label(message)
    except Exception:  # a learner's strange message: its role is still worth drawing
        label = "(illisible)"
    text = shorten(one_line(f"[{i}] {role} : {label}"), LABEL)
    kind = SAME_AS.get(role, role)
    entries = (Entry(kind, message_tokens(message), shorten(one_line(label)) or kind),) \
        if kind in ("system", "user", "assistant", "tool") else ()
    return Step(number, source, target, arrow, text, entries)


def _tool_names(tools: object) -> list[str]:
    functions = [t.get("function") for t in tools if isinstance(t, dict)] \
        if isinstance(tools, list) else []
    return [str(f.get("name")) for f in functions if isinstance(f, dict)]


def label_limit(diagram: Diagram) -> int:
    """The longest label that keeps the whole drawing within the players' width (FIT px),
    so that its text stays at least 12.5 px high in an 800 px window (docs/player.md)."""
    column = {p.id: i for i, p in enumerate(diagram.participants)}
    arrows = [(column[s.source], column[s.target], one_line(s.text)) for s in diagram.steps]
    for limit in range(LABEL, 13, -2):
        if drawn_width(arrows, len(column), limit, rows=1) <= FIT:  # labels on one line
            return limit
    return 12  # as narrow as the players go: four participants' boxes still fit


def mermaid_text(diagram: Diagram, mark: Mark | None = None) -> str:
    """The Mermaid text, the refused message framed in red with a note naming the field,
    drawn with the players' settings (their text size) and labels fitted to the width."""
    limit = label_limit(diagram)
    lines = [line for line in to_mermaid(diagram, highlight=False, label_limit=limit)
             .splitlines() if line.strip() != "autonumber"]  # arrows carry their index
    lines.insert(0, DISPLAY.rstrip("\n"))
    step = next((s for s in diagram.steps if mark and s.text.startswith(f"[{mark.index}] ")),
                None)
    if step is None or mark is None:
        return "\n".join(lines) + "\n"
    head = f"  {arrow_line(step, limit)}"
    start = lines.index(head)
    end = start + 1
    while end < len(lines) and lines[end].lstrip().startswith("%%"):
        end += 1  # the step's own annotations stay inside the frame
    where = step.source if step.source == step.target else f"{step.source},{step.target}"
    field = f".{mark.field}" if mark.field else ""
    why = f" : {mark.why}" if mark.why else ""
    note = f"    Note over {where}: {escape(f'✘ messages[{mark.index}]{field}{why}')}"
    framed = [f"  rect {MARKED}", *("  " + line for line in lines[start:end]), note, "  end"]
    return "\n".join(lines[:start] + framed + lines[end:]) + "\n"


def sent_context(diagram: Diagram) -> list[Entry]:
    """What the call carries: the context at the call (Harness → Modèle, or → API)."""
    call = next(s.index for s in diagram.steps if s.target in "MA" and s.source == "H")
    return ledger_at(diagram, call)


def context_html(diagram: Diagram) -> str:
    """The context bar of the call: tools, system, user, assistant, tool, per role."""
    entries = sent_context(diagram)
    return charts.context_bar(entries, 0, max(sum(e.tokens for e in entries), 1))
