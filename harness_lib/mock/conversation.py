"""What an OpenAI-compatible API checks in `messages[]` before it answers.

`check_conversation` lists every problem the API would refuse: the provider's own
English `message`, `param` and `code`, plus an `explication` in French for learners.
The checks of each message on its own live in message_rules.py; the logic of the
conversation (who answers whom) is here. `validate` raises the first problem, as the
API would. The loop never calls them: the real API checks for itself, and the mock
(model.py) and the course ask them before a request is sent.

>>> from harness_lib.messages import assistant, tool_call, tool_result, user
>>> call = tool_call("call_1", "read_file", {"path": "README.md"})
>>> conversation = [user("Lis README.md"), assistant(tool_calls=[call])]
>>> [problem.param for problem in check_conversation(conversation)]
['messages.[1].role']
>>> conversation.append(tool_result("call_1", "# Mini harness"))
>>> check_conversation(conversation)
[]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..messages import got
from . import message_rules as rules
from .message_rules import Problem


def check_conversation(messages: object) -> list[Problem]:
    """Every problem an API would find in `messages`. Never raises.

    The API checks the shape of each message (types, required fields) before
    the logic of the conversation (who answers whom), and reports only the
    first problem. We list them all, in that same order.
    """
    if not isinstance(messages, (list, tuple)):
        return [rules.problem("messages_type", None, **got(messages))]
    if not messages:
        return [rules.problem("messages_empty", None)]
    shapes = [p for i, msg in enumerate(messages) for p in rules.shape_problems(i, msg)]
    return shapes + _pairing_problems(list(messages))


def validate(messages: object) -> None:
    """Raise the ApiError(400) the API would answer: the first problem only, like the API."""
    problems = check_conversation(messages)
    if problems:
        raise problems[0].as_api_error()


# --- Logic: who answers whom, in the order of the conversation. ---


@dataclass
class _Turn:
    """An assistant message with tool calls, and the ids still waiting for a result."""

    index: int
    asked: dict[str, None]  # dicts as ordered sets: fast lookups, ids kept in order
    pending: dict[str, None]


def _pairing_problems(messages: list[Any]) -> list[Problem]:
    """Each tool result must answer the assistant turn still open just before it."""
    problems: list[Problem] = []
    turn: _Turn | None = None
    before = "aucun message ne le précède"  # why a tool result would answer nothing
    answered: dict[str, int] = {}  # tool_call_id -> the tool message that answered it
    for i, msg in enumerate(messages):
        role = msg.get("role") if isinstance(msg, dict) else None
        if role == "tool":
            problems += _answer_problems(i, msg, turn, before, answered)
            continue
        problems += _unanswered(turn)  # any other message closes the assistant's turn
        shown = f" (role {rules.short(role)})" if isinstance(role, str) else ""
        turn, before = None, f"le message {i}{shown} qui le précède n’a pas de tool_calls"
        if role == "assistant":
            problems += _assistant_problems(i, msg)
            turn = _open_turn(i, msg.get("tool_calls"))
    return problems + _unanswered(turn)


def _open_turn(i: int, calls: object) -> _Turn | None:
    if not isinstance(calls, list) or not calls:
        return None
    ids = [c["id"] for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)]
    return _Turn(i, dict.fromkeys(ids), dict.fromkeys(ids))


def _assistant_problems(i: int, msg: dict[Any, Any]) -> list[Problem]:
    calls = msg.get("tool_calls")
    calls = calls if isinstance(calls, list) else []
    problems = [] if calls or msg.get("content") is not None else [
        rules.problem("null", i, "content", "assistant")]
    ids = [c["id"] for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)]
    seen: set[str] = set()
    for call_id in ids:
        if call_id in seen:
            problems.append(rules.problem("duplicate", i, "tool_calls", "assistant",
                                          value=call_id, short=rules.short(call_id)))
        seen.add(call_id)
    return problems


def _answer_problems(i: int, msg: dict[Any, Any], turn: _Turn | None, before: str,
                     answered: dict[str, int]) -> list[Problem]:
    call_id = msg.get("tool_call_id")
    problems = [rules.problem("no_id", i, "tool_call_id", "tool")] if call_id is None else []
    if isinstance(call_id, str) and call_id in answered:  # a second result for one request
        problems.append(rules.problem("duplicate_result", i, "tool_call_id", "tool",
                                      value=call_id, short=rules.short(call_id),
                                      first=answered[call_id]))
    elif isinstance(call_id, str):
        answered[call_id] = i
    if turn is None:
        problems.append(rules.problem("orphan", i, "role", "tool", before=before))
    elif isinstance(call_id, str) and call_id not in turn.asked:
        problems.append(rules.problem("not_found", i, "tool_call_id", "tool", value=call_id,
                                      short=rules.short(call_id), turn=turn.index,
                                      asked=rules.id_list(turn.asked)))
    elif isinstance(call_id, str):
        turn.pending.pop(call_id, None)  # answered
    return problems


def _unanswered(turn: _Turn | None) -> list[Problem]:
    if turn is None or not turn.pending:
        return []
    return [rules.problem("unanswered", turn.index, "role", "assistant",
                          value=", ".join(turn.pending), short=rules.id_list(turn.pending),
                          asked=rules.id_list(turn.asked))]
