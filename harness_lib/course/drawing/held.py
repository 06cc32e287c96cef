"""What messages[] holds at a step of a run, counted as its messages arrive.

A run's notes say, at each call, what the harness sends: « les 5 messages de messages[]
(le prompt système, la mission et 2 résultats d’outil) ». Counting the whole list again
at every step made a long run quadratic (a 20 000-step run took seconds, bench/run.py's
« long diagrams »): `Held` looks at each message once, when it is added.

>>> held = Held()
>>> held.add({"role": "system", "content": "Agent."})
>>> held.add({"role": "user", "content": "Lis a.txt"})
>>> held.add({"role": "assistant", "content": None,
...           "tool_calls": [{"id": "call_1", "function": {"name": "read_file"}}]})
>>> len(held), held.words(), held.asked("call_1")
(3, 'le prompt système, la mission et 1 demande d’outil', True)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ...messages import Message
from ...text import plural


@dataclass
class Held:
    messages: list[Message] = field(default_factory=list)
    roles: Counter[str] = field(default_factory=Counter)
    calls: int = 0  # tool calls the assistant messages ask for
    texts: int = 0  # assistant messages without a tool call: the model's written replies
    ids: set[str] = field(default_factory=set)  # the ids of those calls

    def __len__(self) -> int:
        return len(self.messages)

    def add(self, message: Message) -> None:
        self.messages.append(message)
        if not isinstance(message, dict):  # a hand-written loop may append anything
            return
        self.roles[str(message.get("role"))] += 1
        calls = message.get("tool_calls")
        calls = calls if isinstance(calls, (list, tuple)) else []
        self.calls += len(calls)
        self.texts += message.get("role") == "assistant" and not calls
        self.ids.update(str(call.get("id")) for call in calls if isinstance(call, dict))

    def asked(self, call_id: object) -> bool:
        """Does an assistant message of messages[] carry the tool call `call_id`?"""
        return str(call_id) in self.ids

    def words(self) -> str:
        """What messages[] holds, in words: « le prompt système, la mission et 1 résultat… »."""
        users, results = self.roles["user"], self.roles["tool"]
        parts = ["le prompt système"] if self.roles["system"] else []
        parts += ["la mission"] if users == 1 else [plural(users, "message user")] if users else []
        parts += [plural(self.calls, "demande d’outil", "demandes d’outil")] if self.calls else []
        parts += [plural(results, "résultat d’outil", "résultats d’outil")] if results else []
        parts += [plural(self.texts, "réponse du modèle", "réponses du modèle")] \
            if self.texts else []
        return ", ".join(parts[:-1]) + " et " + parts[-1] if len(parts) > 1 else "".join(parts)
