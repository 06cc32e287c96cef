"""What a course diagram is: steps (arrows), what each adds to messages[], and the context.

A `Diagram` comes from annotated Mermaid text (`mermaid.parse`, the chapter's
three diagrams) or from a real run (`trace_diagram.from_trace`). Either way each step is one
arrow, with the context entries it adds, so the context after any step can be
counted: that is the course's context bar.

>>> d = Diagram("Deux tours", "", (), (Entry("system", 1200, "Prompt système"),), (
...     Step(1, "U", "H", "->>", "Lis README.md", (Entry("user", 15, "Lis README.md"),)),
...     Step(2, "H", "M", "->>", "messages[]", turn=1)))
>>> total_at(d, 0), totals_at(d, 2), peak(d)
(1200, {'system': 1200, 'user': 15}, 1215)
>>> print(transcript(d).splitlines()[2])
Étape 1/2 — U → H : Lis README.md (contexte : 1\u202f215 tokens)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from ...errors import HarnessError
from ...messages import Message, read_call
from ...text import french_number as fr  # short: the transcripts and charts use it a lot
from ...text import one_line

ROLES = ("system", "tools", "user", "assistant", "tool", "compact")
KEPT_BY_COMPACTION = ("system", "tools")


class DiagramError(HarnessError, ValueError):
    """A diagram that breaks the grammar; `line` says where (counted from 1)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"ligne {line} : {message}" if line else message)
        self.line = line


@dataclass(frozen=True)
class Entry:
    role: str  # system, tools, user, assistant, tool, or compact (a summary)
    tokens: int
    label: str


@dataclass(frozen=True)
class Participant:
    id: str  # the name used in the arrows: H
    label: str  # the name shown: Harness
    kind: str = "participant"  # or "actor"


@dataclass(frozen=True)
class Step:
    """One arrow. `turn` counts the arrows sent to the model so far, this one included."""

    index: int  # from 1
    source: str
    target: str
    arrow: str  # ->>, -->>, -> or -->
    text: str
    entries: tuple[Entry, ...] = ()  # what this step adds to messages[]
    note: str = ""
    loop: str | None = None  # label of the enclosing loop
    turn: int = 0
    messages: Sequence[Message] | None = None  # messages[] after this step (traces only)


class MessagesView(Sequence[Message]):
    """messages[] after one step of a trace: a view on the run's growing list, not a copy.

    A copy per step made from_trace quadratic (20 000 steps: seconds). A view costs
    nothing, and compares equal to the tuple it stands for.
    """

    __hash__ = None  # type: ignore[assignment]  # like the list it looks into

    def __init__(self, every: list[Message], length: int) -> None:
        self._every, self._length = every, length

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return tuple(self._every[: self._length][k])
        if not -self._length <= k < self._length:
            raise IndexError(k)
        return self._every[k % self._length]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (tuple, MessagesView)) and tuple(self) == tuple(other)

    def __repr__(self) -> str:
        return repr(tuple(self))


@dataclass(frozen=True)
class Diagram:
    title: str
    description: str
    participants: tuple[Participant, ...]
    initial: tuple[Entry, ...]  # the context before the first arrow
    steps: tuple[Step, ...]
    budget: int | None = None
    source: str = ""  # the Mermaid text it was read from ("" when built from a trace)


def ledger_at(diagram: Diagram, k: int) -> list[Entry]:
    """The context entries after step k (k = 0: the starting context only)."""
    global _last
    if not 0 <= k <= len(diagram.steps):
        raise DiagramError(f"étape {k} hors du diagramme (0 à {len(diagram.steps)})")
    # A player asks for the steps around the one shown, in order: each ledger goes on from
    # the one before (the same diagram, an earlier step) instead of from step 0.
    last = _last
    if last and last[0] is diagram and last[1] <= k:
        done, context, first = last[1], list(last[2]), ()
    else:
        done, context, first = 0, [], diagram.initial
    for entry in chain(first, (e for step in diagram.steps[done:k] for e in step.entries)):
        if entry.role == "compact":
            # A summary replaces the conversation; the system prompt and tools stay.
            context = [e for e in context if e.role in KEPT_BY_COMPACTION]
        context.append(entry)
    _last = (diagram, k, context)
    return list(context)  # the caller's own copy


_last: tuple[Diagram, int, list[Entry]] | None = None  # the last ledger ledger_at counted


def totals_at(diagram: Diagram, k: int) -> dict[str, int]:
    """Tokens per role after step k, in the order of ROLES (absent roles left out)."""
    return totals_of(ledger_at(diagram, k))


def totals_of(context: Sequence[Entry]) -> dict[str, int]:
    """Tokens per role of these entries, in the order of ROLES (absent roles left out)."""
    totals: dict[str, int] = {}
    for entry in context:
        totals[entry.role] = totals.get(entry.role, 0) + entry.tokens
    return {role: totals[role] for role in ROLES if role in totals}


def total_at(diagram: Diagram, k: int) -> int:
    return sum(entry.tokens for entry in ledger_at(diagram, k))


def peak(diagram: Diagram) -> int:
    """The largest context of the whole diagram: the scale of the context bar."""
    return max(running_totals(diagram))


def running_totals(diagram: Diagram) -> list[int]:
    """total_at(diagram, k) for every k from 0, in one pass (counting as ledger_at does).

    total_at for every k would be quadratic: the player asks for the peak at every
    step, and the transcript says the context at every step.
    """
    kept = total = 0  # kept: the system and tools tokens that a compaction keeps
    totals = []
    for entries in (diagram.initial, *(step.entries for step in diagram.steps)):
        for entry in entries:
            total = kept if entry.role == "compact" else total
            total += entry.tokens
            kept += entry.tokens if entry.role in KEPT_BY_COMPACTION else 0
        totals.append(total)
    return totals


def transcript(diagram: Diagram) -> str:
    """Every step in plain French, for screen readers and for reading offline."""
    names = {p.id: p.label for p in diagram.participants}
    lines = [one_line(diagram.title) or "Diagramme de séquence", one_line(diagram.description)]
    totals = running_totals(diagram)  # one pass: total_at at each step would be quadratic
    if totals[0]:  # a trace read from elsewhere (OpenTelemetry) may count nothing before
        lines.append(f"Contexte de départ : {fr(totals[0])} tokens.")
    loop = None
    for step in diagram.steps:
        if step.loop != loop:  # say where loops start and end, as the picture does
            lines += [f"Fin de la boucle « {loop} »."] if loop is not None else []
            lines += [f"Début de la boucle « {step.loop} »."] if step.loop is not None else []
            loop = step.loop
        who = f"{names.get(step.source, step.source)} → {names.get(step.target, step.target)}"
        lines.append(f"Étape {step.index}/{len(diagram.steps)} — {who} : {one_line(step.text)}"
                     f" (contexte : {fr(totals[step.index])} tokens)")
        lines += [f"  Ajouté : {e.role}, {fr(e.tokens)} tokens, {one_line(e.label)}"
                  for e in step.entries]
        lines += [f"  {one_line(step.note)}"] if step.note else []
    lines += [f"Fin de la boucle « {loop} »."] if loop is not None else []
    return "\n".join(line for line in lines if line)


def message_label(message: Message) -> str:
    """What a message shows in the diagram: its tool calls, else its text."""
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        return "tool_call " + ", ".join(_call_label(call) for call in calls)
    content = message.get("content")
    text = content if isinstance(content, str) else "" if content is None else str(content)
    if message.get("role") == "tool":
        return f"Résultat de {message.get('tool_call_id')} : {text}"
    return text


def _call_label(request: object) -> str:
    """« call_1 : read_file("README.md") »: the id, the name, the argument values."""
    call = read_call(request)
    return f"{call.id} : {call.label}"
