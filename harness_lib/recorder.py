"""The loop's bookkeeping: it watches messages[] and writes down each step; it decides nothing.

The loop owns `messages` and appends to it (loop.py, RULE 1 and RULE 2); the
`Recorder` holds the same list and never changes it. Each of its methods is one
kind of arrow of the sequence diagram (`task`, `request`, `reply`, `permission`,
`tool_call`, `tool_result`, `answer`, `stop`): it records an `Event` with the
message appended since the previous arrow (if any) and the context ledger, and
tells the `on_event` listener (the live player). It also keeps the figures that
loop.py checks the limits against: tokens and dollars spent, failed tool results
in a row, and the reasons to stop that a turn raised.

>>> from harness_lib.messages import system, user
>>> messages = [system("Tu es un agent."), user("Lis README.md")]
>>> rec = Recorder(messages, [], None, price=None)
>>> [e.kind for e in rec.trace.events], [e.message["role"] for e in rec.trace.events]
(['task'], ['user'])
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .messages import Message, ToolCall
from .models.model import Completion, Price, cost
from .policy import Decision
from .tokens import ledger, message_tokens, tools_tokens
from .tools.tool import Observation
from .trace import Event, EventKind, Run, StopReason, Trace


class Recorder:
    """Watches `messages` = [system, user, ...] (the loop's list) from its second message on."""

    def __init__(self, messages: list[Message], schemas: list[dict[str, Any]],
                 on_event: Callable[[Event], None] | None, price: Price | None) -> None:
        self.messages = messages  # the loop's own list: read here, never appended to
        self.schemas = schemas
        self.trace = Trace(system=messages[0], tools_tokens=tools_tokens(schemas), tools=schemas)
        self.on_event = on_event
        self.price = price
        self.turn = 0
        self.spent_tokens = 0
        self.spent_cost = 0.0
        self.failures = 0  # failed tool results in a row
        self.flags: list[tuple[StopReason, str]] = []  # reasons to stop raised during this turn
        # Tokens per role, kept up to date: recounting the whole context at every event
        # would make a long run quadratic.
        self.context = ledger(messages[:1], schemas)
        self._seen = 1  # messages[0], the system prompt, is the trace's starting context
        self._add("task", f"Mission : {messages[1]['content']}")

    # --- One method per arrow of the diagram. ---

    def request(self, turn: int, sent: str = "messages[] + outils") -> None:
        self.turn = turn
        self._add("request", f"Appel {turn} : {sent}", {"turn": turn})

    def reply(self, reply: Completion) -> None:
        """The assistant message the loop appended (RULE 1), and its cost.

        `data` says what a view may not see in the message at a glance: the visible
        reasoning, what the harness changed (`notes`), and who priced the call.
        """
        data: dict[str, Any] = {"usage": reply.usage, "finish_reason": reply.finish_reason}
        if reply.reasoning:
            data["reasoning"] = reply.reasoning
        if reply.notes:
            data["notes"] = reply.notes
        data["cost"], data["cost_from"] = self._bill(reply)
        self._add("reply", reply.label, data)

    def permission(self, call: ToolCall, decision: Decision) -> None:
        said = {"allow": "autorisé", "ask": "à valider", "deny": "interdit"}  # the label is French
        self._add("permission", f"Contrôle de permission : {said.get(decision.verdict, '?')}",
                  {"verdict": decision.verdict, "reason": decision.reason, "id": call.id})

    def tool_call(self, call: ToolCall, note: str = "") -> None:
        """The harness runs a tool (`note`: said after its label, « décidé par le harness »)."""
        self._add("tool_call", call.label + (f" : {note}" if note else ""),
                  {"tool": call.name, "id": call.id})

    def tool_result(self, call: ToolCall, seen: Observation) -> None:
        """The observation the loop appended (RULE 2): its text is the arrow's label."""
        self.failures = self.failures + 1 if seen.is_error else 0
        self._add("tool_result", seen.content,
                  {"tool": call.name, "id": call.id, "error": seen.is_error})

    def answer(self, reply: Completion) -> Run:
        content = reply.text  # a list of parts gives its text parts, never the reasoning
        self._add("answer", content)
        return Run(self.messages, self.trace, "answer", content)

    def stop(self, reason: StopReason, message: str) -> Run:
        self._add("stop", message, {"reason": reason})
        return Run(self.messages, self.trace, reason, message)

    # --- What the limits are checked against. ---

    def flag(self, reason: StopReason, message: str) -> None:
        """A reason to stop once this turn's results are all in messages[] (it stays valid)."""
        self.flags.append((reason, message))

    @property
    def next_call_tokens(self) -> int:
        """What the next model call would send: every call resends the whole context."""
        return sum(self.context.values())

    def _bill(self, reply: Completion) -> tuple[float, str]:
        """Add one call to the bill: the API's usage when given, else our estimate.

        Called once the reply is appended: what was sent is messages[] up to the reply.
        Returns the call's dollars and who said them: "provider" (`usage.cost`),
        "price" (tokens × the model's price) or "unknown" (no price: 0 is not a bill).
        """
        usage = reply.usage or {}
        sent = usage.get("prompt_tokens") or (
            sum(message_tokens(m) for m in self.messages[:-1]) + tools_tokens(self.schemas)
        )
        received = usage.get("completion_tokens") or message_tokens(reply.message)
        self.spent_tokens += sent + received
        dollars, source = (reply.cost, "provider") if reply.cost is not None else (
            cost(self.price, sent, received), "price" if self.price else "unknown")
        self.spent_cost += dollars
        return dollars, source

    def _add(self, kind: EventKind, text: str, data: dict[str, Any] | None = None) -> None:
        """Record one arrow, with the message the loop appended since the last one (if any)."""
        new = self.messages[self._seen:]
        self._seen = len(self.messages)
        for role, tokens in ledger(new, []).items():
            self.context[role] = self.context.get(role, 0) + tokens
        event = Event(kind, self.turn, text, new[-1] if new else None, data or {},
                      dict(self.context))
        self.trace.add(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception as err:  # a broken listener (a widget) must not lose the run
                warnings.warn(f"on_event a échoué : {err!r}", RuntimeWarning, stacklevel=3)


def bill(trace: Trace) -> tuple[float, set[str]]:
    """The dollars of a run's calls, and who priced them ({"provider"}, {"price"}...).

    >>> bill(Trace(events=[Event("reply", 1, "", data={"cost": 0.002, "cost_from": "provider"})]))
    (0.002, {'provider'})
    """
    replies = [e.data for e in trace.events if e.kind == "reply" and "cost_from" in e.data]
    return sum(float(d.get("cost") or 0.0) for d in replies), {d["cost_from"] for d in replies}

