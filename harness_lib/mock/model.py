"""MockModel: an offline stand-in for a real model, for the course and the tests.

It behaves like the API on both sides of the wire:
- it first checks `messages[]` with `check_conversation` (conversation.py) and fails exactly like
  the API would (`ApiError` 400 with the provider's text);
- then it decides its next action *from what is in messages[] only*, like a real
  model: the mission (last user message) and the tool results that followed.

It never asks for a tool it was not given, and a malformed `tools` list gets the
API's 400 (tools_rules.py), like a malformed conversation. Its missions (missions.py)
are the course's; the loop treats it as any model (the same `Policy`, the same
question before bash runs where no sandbox can start).

>>> from harness_lib.messages import user
>>> read_file = {"type": "function", "function": {"name": "read_file", "parameters": {}}}
>>> reply = MockModel().complete([user("Lis README.md et résume le projet")], [read_file])
>>> reply.tool_calls[0]["function"]
{'name': 'read_file', 'arguments': '{"path": "README.md"}'}
>>> MockModel().complete([user("Lis README.md et résume le projet")], []).message["content"]
'Il me faudrait l’outil read_file, qu’on ne m’a pas donné\\xa0: je ne peux pas agir.'
"""

from __future__ import annotations

import time
from typing import Any

from ..errors import ModelTimeout
from ..limits import MODEL_TIMEOUT
from ..messages import Message, assistant, tool_call
from ..models.model import Completion, Price
from ..models.wire import encode_request
from ..tokens import message_tokens, tools_tokens
from . import missions
from .conversation import validate
from .tools_rules import tools_error


class MockModel:
    """A deterministic model: no network, no key, same input -> same output.

    latency  seconds each call takes (to show waiting, or to provoke a timeout)
    think    also write a short reasoning sentence before each tool call (ReAct)
    price    pretend dollars per million tokens (input, output), for cost budgets
    """

    name = "mock"

    def __init__(
        self, latency: float = 0.0, think: bool = False, price: Price = (0.15, 0.60)
    ) -> None:
        self.latency = latency
        self.think = think
        self.price = price

    def complete(
        self, messages: list[Message], tools: list[dict[str, Any]], timeout: float = MODEL_TIMEOUT
    ) -> Completion:
        body = {"model": self.name, "messages": messages, "tools": tools}
        # What OpenRouterModel could not send (a lone surrogate, NaN), the mock refuses too.
        encode_request(body)
        validate(messages)  # a broken conversation is refused before any "thinking"
        refused = tools_error(tools)
        if refused is not None:
            raise refused
        if self.latency > timeout:
            time.sleep(timeout)  # the caller waits as long as it allowed, then gives up
            raise ModelTimeout(timeout)
        time.sleep(self.latency)
        message = self._next_message(messages, tools)
        usage = {
            "prompt_tokens": sum(message_tokens(m) for m in messages) + tools_tokens(tools),
            "completion_tokens": message_tokens(message),
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        request = {"url": "mock://chat/completions", "headers": {}, "body": body}
        reason = "tool_calls" if message.get("tool_calls") else "stop"
        return Completion(message, reason, usage, request)

    def _next_message(self, messages: list[Message], tools: list[dict[str, Any]]) -> Message:
        mission, history = missions.read_conversation(messages)
        available = {t["function"]["name"] for t in tools}  # tools_error checked the shape
        action = missions.decide(mission, history, available)
        if isinstance(action, str):
            return assistant(action)
        missing = [name for name, _ in action.calls if name not in available]
        if missing:  # like a real model: it asks only for the tools it was given
            return assistant(without_tool(missing[0], action.thought, history))
        first_id = 1 + sum(len(m.get("tool_calls") or []) for m in messages)
        calls = [
            tool_call(f"call_{first_id + i}", name, args)
            for i, (name, args) in enumerate(action.calls)
        ]
        return assistant(action.thought if self.think else None, calls)


def without_tool(name: str, thought: str, history: list[missions.Seen]) -> str:
    """The answer when the next step needs a tool the model was not given: what it did
    already, and what it could not do, so that it never claims a step it skipped.

    >>> done = [missions.Seen("edit_file", {}, "ok")]
    >>> print(without_tool("bash", "Je teste.", done))  # doctest: +NORMALIZE_WHITESPACE
    Je m’arrête là. Déjà fait : edit_file. Pour la suite (« Je teste. »),
    il me faudrait l’outil bash, qu’on ne m’a pas donné.
    """
    if not history:
        return f"Il me faudrait l’outil {name}, qu’on ne m’a pas donné : je ne peux pas agir."
    done = ", ".join(dict.fromkeys(seen.name for seen in history))
    return (f"Je m’arrête là. Déjà fait : {done}. Pour la suite (« {thought} »), il me "
            f"faudrait l’outil {name}, qu’on ne m’a pas donné.")
