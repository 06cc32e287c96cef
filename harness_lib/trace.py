"""What happened during a run, event by event: the material of the diagrams.

Each `Event` is one arrow of the sequence diagram (who talks to whom), plus
what it added to `messages[]` and the context ledger right after it (tokens per
role). A `Trace` is the list of events; it saves to JSON lines and loads back,
so a real run can be replayed offline (see `ReplayModel`).

>>> t = Trace(tools_tokens=150)
>>> t.add(Event("task", 0, "Lis README.md", message={"role": "user", "content": "Lis README.md"}))
>>> [e.kind for e in t.events], t.messages_at(0)
(['task'], [{'role': 'user', 'content': 'Lis README.md'}])
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from .errors import FileError, HarnessError
from .files import read_capped, write_atomically
from .messages import Message, valid_text
from .text import shorten

EventKind = Literal[
    "task",  # Personne -> Harness: the mission (adds the user message)
    "request",  # Harness -> Modèle: messages[] + tool definitions are sent
    "reply",  # Modèle -> Harness: an assistant message (tool calls or final text)
    "permission",  # Harness -> Harness: policy check of one tool call
    "tool_call",  # Harness -> Outil: the harness runs the tool
    "tool_result",  # Outil -> Harness: the observation (adds the tool message)
    "answer",  # Harness -> Personne: the final answer
    "stop",  # Harness -> Personne: the run stops for another reason
]

KINDS: tuple[str, ...] = EventKind.__args__  # type: ignore[attr-defined]

StopReason = Literal[
    "answer",  # the model answered without asking for a tool: the normal end
    "max_turns",  # Limits.max_turns model calls, and still no final answer
    "budget",  # the next call would go over Limits.max_tokens or Limits.max_cost
    "timeout",  # the model, or a tool, took longer than its Limits timeout
    "api_error",  # the model's API refused the request (or could not be reached)
    "denied",  # the policy denied an action
    "failures",  # Limits.max_failures failed tool results in a row
    "human",  # an action needs a human's yes, and nobody was there to ask
    "length",  # the final answer was cut by the model's length limit
    "content_filter",  # the provider's filter withheld the answer
    "refusal",  # the model refused to answer (OpenAI's `refusal`), its words in Run.message
    "dead_end",  # a fixed pipeline (course/lessons/react.py) has no other path to try
    "interrupted",  # the person stopped the run (Ctrl-C in the CLI)
]

# Who talks to whom at each kind of step (the arrows of the sequence diagrams).
ARROWS: dict[str, tuple[str, str]] = {
    "task": ("Personne", "Harness"),
    "request": ("Harness", "Modèle"),
    "reply": ("Modèle", "Harness"),
    "permission": ("Harness", "Harness"),
    "tool_call": ("Harness", "Outils"),
    "tool_result": ("Outils", "Harness"),
    "answer": ("Harness", "Personne"),
    "stop": ("Harness", "Personne"),
}


def waits_after(event: Event) -> bool:
    """Whether the loop may wait after this event: for the model (a request), a tool
    (a tool call) or a person (a permission that asks). Between two such events the
    others follow at once: a live view that draws only at these, and at the end of the
    run, shows the same thing in fewer drawings (tests/test_loop.py checks each wait).

    >>> [waits_after(Event(kind, 1, "")) for kind in ("request", "reply", "tool_call")]
    [True, False, True]
    """
    return event.kind in ("request", "tool_call") or (
        event.kind == "permission" and event.data.get("verdict") == "ask")


def describe(event: Event) -> str:
    """One line per event, as the CLI prints it: « [tour 1] Harness → Modèle : … »."""
    source, target = ARROWS[event.kind]
    # One line, only printable characters: a file's escape codes must not drive the terminal.
    text = " ".join("".join(c if c.isprintable() else " " for c in event.text).split())
    return f"[tour {event.turn}] {source} → {target} : {shorten(text, 200)}"


@dataclass
class Event:
    """One step of a run.

    kind     which arrow (see EventKind)
    turn     the model call this step belongs to (0 before the first call)
    text     a one-line French summary, used as the arrow's label
    message  the message this step appended to messages[], if any
    data     details by kind: `request` the request body sent (never the key),
             `reply` usage/finish_reason, `permission` verdict/reason,
             `tool_call`/`tool_result` tool name and call id, `stop` reason
    ledger   tokens per role in messages[] (plus "tools") after this step
    """

    kind: EventKind
    turn: int
    text: str
    message: Message | None = None
    data: dict[str, Any] = field(default_factory=dict)
    ledger: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"type d’événement inconnu : {self.kind!r} (attendu : {KINDS})")
        self.text = valid_text(self.text)  # a label is shown and saved: never a lone surrogate


@dataclass
class Trace:
    """The events of one run, in order, with the starting context.

    `system` is the system message the run started from (None if none) and
    `tools_tokens` the estimated size of the tool definitions sent with each call.
    """

    events: list[Event] = field(default_factory=list)
    system: Message | None = None
    tools_tokens: int = 0
    tools: list[dict[str, Any]] = field(default_factory=list)

    def add(self, event: Event) -> None:
        self.events.append(event)

    def messages_at(self, k: int) -> list[Message]:
        """messages[] as it stands after event k: what the model would get if called now."""
        start = [self.system] if self.system else []
        return start + [e.message for e in self.events[: k + 1] if e.message is not None]

    @property
    def messages(self) -> list[Message]:
        return self.messages_at(len(self.events) - 1)

    def save(self, path: str | Path) -> None:
        """One JSON object per line: a header, then one line per event. Always valid UTF-8.

        Written whole or not at all: into a temporary file beside it, then renamed over
        it (an interrupted save leaves the previous file as it was). TraceError if `path`
        is a folder, a named pipe or a device: it is never opened, so never waited on.
        """
        try:
            write_atomically(Path(path), self.text().encode("utf-8"))
        except FileError as err:
            raise TraceError(str(err)) from None

    def text(self) -> str:
        """What `save` writes: the header line, then one JSON line per event."""
        header = {"system": self.system, "tools_tokens": self.tools_tokens, "tools": self.tools}
        lines = [_json_line(header)] + [_json_line(asdict(e)) for e in self.events]
        return "\n".join(lines) + "\n"

    @classmethod
    def load(cls, path: str | Path) -> Trace:
        """The trace `save` wrote; TraceError, in French and with the line, for anything else
        (a named pipe or a device is refused unread, a file over MAX_TRACE_BYTES too)."""
        try:
            content = read_capped(Path(path), MAX_TRACE_BYTES)
        except FileError as err:
            raise TraceError(str(err)) from None
        return cls.loads(content, str(path))

    @classmethod
    def loads(cls, content: str | bytes, name: str = "la trace") -> Trace:
        """A trace from the text of its file: a header line, then one JSON event a line."""
        try:
            text = content.decode("utf-8") if isinstance(content, bytes) else content
        except UnicodeDecodeError:
            raise TraceError(f"{name} n’est pas un fichier texte (UTF-8) : une trace est faite "
                             "de lignes JSON") from None
        # "\n" only: splitlines() would also cut at U+2028, U+0085... that JSON keeps raw.
        lines = [(n, line) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]
        if not lines:
            raise TraceError(f"{name} est vide : une trace commence par une ligne d’en-tête")
        trace = cls(**_fields(*lines[0], _HEADER, ()))
        for number, line in lines[1:]:
            event = _fields(number, line, _EVENT, ("kind", "turn", "text"))
            if event["kind"] not in KINDS:
                raise TraceError(f"ligne {number} : kind vaut {event['kind']!r}, qui n’est pas "
                                 f"un type d’événement ({', '.join(KINDS)})")
            trace.add(Event(**event))
        return trace


class TraceError(HarnessError, ValueError):
    """A file that is not a trace saved by `Trace.save`: the message says which line, in French."""


MAX_TRACE_BYTES = 50_000_000  # a 15-turn run weighs a few hundred kB: more is not a trace
_HEADER = {"system": (dict, type(None)), "tools_tokens": int, "tools": list}
_EVENT = {"kind": str, "turn": int, "text": str, "message": (dict, type(None)), "data": dict,
          "ledger": dict}


def _json_line(value: dict[str, Any]) -> str:
    """One line of JSON. A lone surrogate cannot be UTF-8: escaped (\\udce9), it loads back."""
    line = json.dumps(value, ensure_ascii=False, default=repr)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(value, default=repr)
    return line


def _fields(number: int, line: str, types: dict[str, Any], required: tuple[str, ...]
            ) -> dict[str, Any]:
    """The object on line `number`, its fields checked against `types`; else TraceError."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError) as err:
        raise TraceError(f"ligne {number} : JSON illisible ({err})") from None
    if not isinstance(value, dict):
        raise TraceError(f"ligne {number} : un objet JSON {{…}} est attendu")
    for name in value:
        if name not in types:
            raise TraceError(f"ligne {number} : champ inconnu {name!r} : ce n’est pas une trace "
                             f"de harness_lib (attendu : {', '.join(types)})")
    for name in required:
        if name not in value:
            raise TraceError(f"ligne {number} : il manque le champ {name}")
    for name, kind in types.items():
        if name in value and (not isinstance(value[name], kind) or isinstance(value[name], bool)):
            raise TraceError(f"ligne {number} : {name} n’a pas le bon type "
                             f"({type(value[name]).__name__})")
    return value


@dataclass
class Run:
    """What a run leaves behind: nothing is lost, whatever the reason it stopped."""

    messages: list[Message]
    trace: Trace
    reason: StopReason
    message: str  # the final answer, or the French stop message

    @property
    def answer(self) -> str | None:
        return self.message if self.reason == "answer" else None
