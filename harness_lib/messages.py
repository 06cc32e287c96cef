"""Chat Completions messages, and the rules an API checks before it answers.

The harness keeps one list, `messages`, and sends all of it at every call.
The builders below write each kind of message. `check_conversation` lists what
an OpenAI-compatible API would refuse: the provider's own English `message`,
`param` and `code`, plus an `explication` in French for learners. The checks of
each message on its own, and the provider's texts, live in rules.py; the logic
of the conversation (who answers whom) is here. `read_call` is the one reader
of a tool call: every part of the harness gets a `ToolCall` from it.

>>> call = tool_call("call_1", "read_file", {"path": "README.md"})
>>> conversation = [user("Lis README.md"), assistant(tool_calls=[call])]
>>> [problem.param for problem in check_conversation(conversation)]
['messages.[1].role']
>>> conversation.append(tool_result("call_1", "# Mini harness"))
>>> check_conversation(conversation)
[]
>>> read_call(call)
ToolCall(name='read_file', arguments={'path': 'README.md'}, id='call_1', \
text='{"path": "README.md"}', problem=None)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from . import rules
from .rules import Problem  # defined with the rules that build it, importable from here too

Message = dict[str, Any]
# Half of a UTF-16 pair, alone: what Python makes of a byte that is not UTF-8 in a file name,
# a command's argument or "\udce9" in JSON. No UTF-8 encoder can write it (JSON body, trace).
_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """`text` with every lone surrogate replaced by �: valid Unicode, writable as UTF-8.

    >>> valid_text("caf\\udce9.txt")
    'caf�.txt'
    """
    return _SURROGATE.sub("\ufffd", text)


def valid_message(message: Message) -> Message:
    """`message` itself when all its texts are valid; else a copy with valid_text applied.

    >>> valid_message({"role": "assistant", "content": "fin \\udcff"})["content"]
    'fin �'
    """
    try:
        text = json.dumps(message, ensure_ascii=False)
        text.encode("utf-8")
        return message
    except UnicodeEncodeError:  # a lone surrogate somewhere in its strings
        return json.loads(valid_text(text))  # type: ignore[no-any-return]
    except (TypeError, ValueError, RecursionError):  # not JSON at all: the API will say so
        return message


def system(content: str) -> Message:
    return {"role": "system", "content": valid_text(content)}


def user(content: str) -> Message:
    return {"role": "user", "content": valid_text(content)}


def assistant(
    content: str | None = None, tool_calls: list[dict[str, Any]] | None = None
) -> Message:
    message: Message = {"role": "assistant",
                        "content": content if content is None else valid_text(content)}
    if tool_calls:  # never an empty list: the API refuses `tool_calls: []`
        message["tool_calls"] = list(tool_calls)
    return message


def tool_call(id: str, name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    """One tool request. The API wants `arguments` as JSON *text*, not as an object."""
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)  # keeps "é" readable
    return {"id": id, "type": "function",
            "function": {"name": name, "arguments": valid_text(arguments)}}


def tool_result(tool_call_id: str, content: str) -> Message:
    """The tool message answering `tool_call_id`; its text made valid (see valid_text)."""
    return {"role": "tool", "tool_call_id": tool_call_id, "content": valid_text(content)}


@dataclass(frozen=True)
class ToolCall:
    """One tool request of the model, as the harness reads it (see `read_call`).

    name       the tool asked for; None when the call has no readable name
    arguments  the arguments object, decoded; None when it cannot be (`problem` says why)
    id         the id that its result must repeat (RULE 2); "" when there is none
    text       the arguments as the model wrote them: JSON text
    """

    name: str | None
    arguments: dict[str, Any] | None = None
    id: str = ""
    text: str = ""
    problem: str | None = None  # in French: « JSON invalide (...) »

    @property
    def label(self) -> str:
        """read_file("README.md"): the name and the argument values, as the chapter writes it."""
        if self.arguments is None:  # unreadable: shown as it came
            return f"{self.name or '?'}({self.text})"
        values = (json.dumps(v, ensure_ascii=False, default=str) for v in self.arguments.values())
        return f"{self.name or '?'}({', '.join(values)})"


def read_call(call: object) -> ToolCall:
    """Read {"id", "function": {"name", "arguments"}}. Never raises, whatever the model sent."""
    fields = call if isinstance(call, dict) else {}
    function = fields.get("function")
    function = function if isinstance(function, dict) else {}
    name, call_id, raw = function.get("name"), fields.get("id"), function.get("arguments")
    arguments, problem = _decode(raw)
    text = raw if isinstance(raw, str) else "" if raw is None else _json_text(raw)
    return ToolCall(name if isinstance(name, str) else None, arguments,
                    call_id if isinstance(call_id, str) else "", text, problem)


def _decode(raw: object) -> tuple[dict[str, Any] | None, str | None]:
    """The arguments object (JSON text, or a dict: tolerated), or None and why not."""
    if raw is None or raw == "":  # some models send nothing for a tool without arguments
        return {}, None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError) as err:
            return None, f"JSON invalide ({err})"
    if not isinstance(raw, dict):
        return None, f"un objet JSON est attendu, reçu {rules.got(raw)['got_fr']}"
    return raw, None


def _json_text(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):  # not JSON at all: still something to show
        return repr(value)


def check_conversation(messages: object) -> list[Problem]:
    """Every problem an API would find in `messages`. Never raises.

    The API checks the shape of each message (types, required fields) before
    the logic of the conversation (who answers whom), and reports only the
    first problem. We list them all, in that same order.
    """
    if not isinstance(messages, (list, tuple)):
        return [rules.problem("messages_type", None, **rules.got(messages))]
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
