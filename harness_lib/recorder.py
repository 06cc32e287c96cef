"""The loop's bookkeeping, kept out of `run()` so that the loop reads as the chapter.

A `Recorder` owns `messages[]` and the trace of a run: every `add()` appends
the message (if any), records an `Event` with the context ledger, and tells the
`on_event` listener (the live player). It also counts what the limits need:
tokens and dollars spent, failed tool results in a row, and the reasons to stop
that a turn raised (an action denied, a human needed, a tool timeout).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from . import tools as toolbox
from .messages import Message
from .policy import Decision, Policy, check
from .tokens import ledger, message_tokens, tools_tokens
from .trace import Event, EventKind, Run, Trace

if TYPE_CHECKING:
    from .loop import Limits
    from .models import Completion


Price = tuple[float, float]  # dollars per million tokens: (input, output)


class Recorder:
    def __init__(self, system: Message, tools: Sequence[toolbox.Tool],
                 on_event: Callable[[Event], None] | None, price: Price | None) -> None:
        schemas = [t.schema() for t in tools]
        self.messages: list[Message] = [system]
        self.schemas = schemas
        self.trace = Trace(system=system, tools_tokens=tools_tokens(schemas), tools=schemas)
        self.on_event = on_event
        self.price = price
        self.turn = 0
        self.spent_tokens = 0
        self.spent_cost = 0.0
        self.failures = 0  # failed tool results in a row
        self.flags: list[tuple[str, str]] = []  # (reason, message) raised during this turn
        # Tokens per role, kept up to date: recounting the whole context at every event
        # would make a long run quadratic.
        self.context = ledger([system], schemas)

    def add(self, kind: EventKind, text: str, message: Message | None = None,
            data: dict[str, Any] | None = None) -> Event:
        if message is not None:
            self.messages.append(message)
            for role, tokens in ledger([message], []).items():
                self.context[role] = self.context.get(role, 0) + tokens
        self.turn += kind == "request"
        if kind == "reply" and message is not None:
            self.account(message, (data or {}).get("usage"))
        if kind == "tool_result":
            self.failures = self.failures + 1 if (data or {}).get("error") else 0
        event = Event(kind, self.turn, text, message, data or {}, dict(self.context))
        self.trace.add(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception as err:  # a broken listener (a widget) must not lose the run
                warnings.warn(f"on_event a échoué : {err!r}", RuntimeWarning, stacklevel=2)
        return event

    def account(self, reply: Message, usage: dict[str, int] | None) -> None:
        """Add one call to the bill: the API's usage when given, else our estimate.

        Called once the reply is appended: what was sent is everything before it.
        """
        usage = usage or {}
        sent = usage.get("prompt_tokens") or (
            sum(message_tokens(m) for m in self.messages[:-1]) + tools_tokens(self.schemas)
        )
        received = usage.get("completion_tokens") or message_tokens(reply)
        self.spent_tokens += sent + received
        if self.price:
            self.spent_cost += (sent * self.price[0] + received * self.price[1]) / 1_000_000

    def over_budget(self, limits: Limits) -> str | None:
        """Would the next call go over budget? Every call resends the whole context."""
        next_call = sum(self.context.values())
        if limits.max_tokens is not None and self.spent_tokens + next_call > limits.max_tokens:
            return (
                f"Arrêt : budget de {limits.max_tokens} tokens atteint "
                f"({self.spent_tokens} déjà facturés, le prochain appel en enverrait {next_call})."
            )
        next_cost = next_call * self.price[0] / 1_000_000 if self.price else 0.0
        if limits.max_cost is not None and self.spent_cost + next_cost > limits.max_cost:
            return (
                f"Arrêt : budget de {limits.max_cost:g} $ atteint "
                f"({self.spent_cost:.6f} $ déjà dépensés)."
            )
        return None

    def permission(self, call: dict[str, Any], policy: Policy) -> Decision:
        decision = check(call, policy)
        self.add(
            "permission",
            f"Contrôle de permission : {decision.verdict}",
            data={"verdict": decision.verdict, "reason": decision.reason, "id": call.get("id")},
        )
        return decision

    def execute(
        self, call: dict[str, Any], tools: Sequence[toolbox.Tool], timeout: float
    ) -> toolbox.Observation:
        fn = call.get("function", {})
        self.add(
            "tool_call",
            f"{fn.get('name')}({fn.get('arguments', '')})",
            data={"tool": fn.get("name"), "id": call.get("id")},
        )
        seen = toolbox.execute(call, tools, timeout)
        if seen.timed_out:
            self.flag("timeout", f"Arrêt : l'outil {fn.get('name')} a dépassé {timeout:g} s.")
        return seen

    def flag(self, reason: str, message: str) -> None:
        self.flags.append((reason, message))

    def check_after_tools(self, limits: Limits) -> Run | None:
        """Stop after a turn whose results are all recorded (messages[] stays valid)."""
        if self.flags:
            return self.stop(*self.flags[0])
        if self.failures >= limits.max_failures:
            return self.stop("failures", f"Arrêt : {self.failures} échecs d'outil d'affilée.")
        return None

    def finish(self, reply: Completion) -> Run:
        content = reply.message.get("content") or ""
        if reply.finish_reason == "content_filter":  # the provider withheld the answer
            return self.stop("content_filter", "Arrêt : le fournisseur a bloqué la réponse "
                             "(filtre de contenu) : reformulez la mission, ou changez de modèle.")
        if reply.finish_reason == "length":  # cut mid-answer: not a real final answer
            return self.stop(
                "length", "Arrêt : la réponse du modèle a été coupée (limite de longueur)."
            )
        self.add("answer", content)
        return Run(self.messages, self.trace, "answer", content)

    def stop(self, reason: str, message: str) -> Run:
        self.add("stop", message, data={"reason": reason})
        return Run(self.messages, self.trace, reason, message)
