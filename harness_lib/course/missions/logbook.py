"""The trace of a hand-written loop, rebuilt from outside: what `own_loop.watch` records.

The harness's Recorder writes its trace as it appends; a learner's loop appends by
itself. So the logbook records what it sees (each call, each reply, each tool run)
and, at the next call, reads messages[] to learn what the loop did append: a reply
or a result that never entered messages[] keeps its arrow, marked « jamais ajouté ».

>>> from harness_lib.messages import assistant, system, user
>>> book = Logbook([])
>>> book.sync([system("Tu es un agent."), user("Bonjour")])
>>> book.request(); book.reply(Completion(assistant("Salut")))
>>> book.sync([system("Tu es un agent."), user("Bonjour")])  # the reply was not appended
>>> [e.text for e in book.trace.events][1:]
['Appel 1\\xa0: messages[] + outils', 'Jamais ajouté à messages[]\\xa0: Réponse finale']
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ...messages import Message, ToolCall
from ...models.model import Completion
from ...tokens import LEDGER_ROLES, ROLE_ALIASES, ledger, message_tokens, tools_tokens
from ...trace import Event, EventKind, Trace
from .guard import Cut

FORGOTTEN = "Jamais ajouté à messages[] : "


class TooManyCalls(Cut):
    """Raised into a loop that keeps calling the model: it has no limit of turns."""

    reason = "too_many_calls"

    def __init__(self, calls: int) -> None:
        super().__init__(f"la boucle a appelé le modèle {calls} fois sans s’arrêter.")


class NoExit(Cut):
    """Raised into a loop that calls the model again after its final answer."""

    reason = "no_exit"

    def __init__(self) -> None:
        super().__init__("la boucle rappelle le modèle après sa réponse finale.")


class Logbook:
    """Events in the order they happened; each message found in messages[] at the next call."""

    def __init__(self, schemas: list[dict[str, Any]]) -> None:
        self.trace = Trace(tools_tokens=tools_tokens(schemas), tools=schemas)
        self.messages: list[Message] = []  # the loop's list, as last seen
        self.replies: list[Completion] = []
        self.calls = 0
        self.runs: Counter[int] = Counter()  # tools started at each turn (failed ones too)
        self.seen = 0  # messages of the list already placed in the trace
        self.waiting: list[Event] = []  # replies and results not yet found in messages[]
        self.used: set[object] = set()  # the call ids a tool run already answered

    def sync(self, messages: object) -> None:
        """Place what the loop appended since the last call; mark what it never appended."""
        if not isinstance(messages, list):
            return
        for message in messages[self.seen:]:
            self._place(message)
        self.messages, self.seen = messages, len(messages)
        for event in self.waiting:  # the loop called again (or ended) without these
            event.text = FORGOTTEN + event.text
        self.waiting = []

    def _place(self, message: object) -> None:
        role = message.get("role") if isinstance(message, dict) else None
        if role == "system" and not self.trace.events and self.trace.system is None:
            self.trace.system = message  # the starting context, as in the harness's traces
            return
        found = next((e for e in self.waiting if _answers(e, message)), None)
        if found is not None:
            found.message = message
            self.waiting.remove(found)
        elif role == "user":
            self._add("task", f"Mission : {message.get('content')}", message)
        else:  # appended by the loop, but nothing we saw produced it
            kind: EventKind = "tool_result" if role == "tool" else "reply"
            self._add(kind, f"{role} ajouté par la boucle", message)

    def request(self) -> None:
        self.calls += 1
        self._add("request", f"Appel {self.calls} : messages[] + outils", data={"turn": self.calls})

    def reply(self, reply: Completion) -> None:
        self.replies.append(reply)
        data = {"usage": reply.usage, "finish_reason": reply.finish_reason}
        self.waiting.append(self._add("reply", reply.label, data=data, reply=reply.message))

    def tool_run(self, name: str, arguments: dict[str, Any], result: str) -> None:
        """One run of a tool: its arrow, then its result (in messages[] or not, we will see)."""
        call_id = self._call_id(name, arguments)
        # Labelled as the harness labels its own calls: read_file("README.md").
        self._add("tool_call", ToolCall(name, arguments).label, data={"tool": name, "id": call_id})
        data = {"tool": name, "id": call_id, "error": result.startswith("Erreur"),
                "result": result}
        self.waiting.append(self._add("tool_result", result, data=data))

    def close(self, reason: str, message: str) -> None:
        """The last arrow, then each event's ledger: the context after it, per role."""
        self._add("answer" if reason == "answer" else "stop", message, data={"reason": reason})
        totals = ledger([self.trace.system] if self.trace.system else [], self.trace.tools)
        for event in self.trace.events:  # each ledger from the one before: linear, not quadratic
            totals = event.ledger = _plus(totals, event.message)
            for key in ("reply", "result"):  # only needed to recognise them: not saved twice
                event.data.pop(key, None)

    def _add(self, kind: EventKind, text: str, message: Message | None = None,
             data: dict[str, Any] | None = None, reply: Message | None = None) -> Event:
        event = Event(kind, self.calls, text, message, data or {})
        if reply is not None:
            event.data["reply"] = reply  # what the loop should append (RULE 1)
        self.trace.add(event)
        return event

    def _call_id(self, name: str, arguments: dict[str, Any]) -> str | None:
        """The id of the last reply's call this run answers (same tool, same arguments)."""
        calls = self.replies[-1].tool_calls if self.replies else []
        for call in calls:
            function = call.get("function") or {}
            try:
                asked = json.loads(function.get("arguments") or "{}")
            except ValueError:
                asked = None
            if function.get("name") == name and asked == arguments and \
                    call.get("id") not in self.used:
                self.used.add(call.get("id"))
                return call.get("id")
        return None


def _answers(event: Event, message: object) -> bool:
    """Is `message` the one this event should have put into messages[]?"""
    if not isinstance(message, dict):
        return False
    if event.kind == "reply":
        return message == event.data.get("reply")
    # A result under a wrong id is still this run's result: its arrow shows the wrong id.
    return message.get("role") == "tool" and message.get("content") == event.data.get("result")


def _plus(totals: dict[str, int], message: object) -> dict[str, int]:
    """The ledger `totals` with `message` added to its role (as `tokens.ledger` counts it)."""
    role = message.get("role") if isinstance(message, dict) else None
    role = ROLE_ALIASES.get(role, role) if isinstance(role, str) else None
    if role not in LEDGER_ROLES or role == "tools":
        return totals
    added = {**totals, role: totals.get(role, 0) + message_tokens(message)}
    return {name: added[name] for name in LEDGER_ROLES if added.get(name)}
