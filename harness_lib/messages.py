"""Chat Completions messages, and the rules an API checks before it answers.

The harness keeps one list, `messages`, and sends all of it at every call.
The builders below write each kind of message. `check_conversation` lists what
an OpenAI-compatible API would refuse: the provider's own English `message`,
`param` and `code`, plus an `explication` in French for learners.

>>> call = tool_call("call_1", "read_file", {"path": "README.md"})
>>> conversation = [user("Lis README.md"), assistant(tool_calls=[call])]
>>> [problem.param for problem in check_conversation(conversation)]
['messages.[1].role']
>>> conversation.append(tool_result("call_1", "# Mini harness"))
>>> check_conversation(conversation)
[]
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .errors import ApiError

Message = dict[str, Any]

ROLES = ("system", "assistant", "user", "function", "tool", "developer")
_TEXT_ROLES = ("system", "developer", "user", "tool")  # these must carry a content


def system(content: str) -> Message:
    return {"role": "system", "content": content}


def user(content: str) -> Message:
    return {"role": "user", "content": content}


def assistant(
    content: str | None = None, tool_calls: list[dict[str, Any]] | None = None
) -> Message:
    message: Message = {"role": "assistant", "content": content}
    if tool_calls:  # never an empty list: the API refuses `tool_calls: []`
        message["tool_calls"] = list(tool_calls)
    return message


def tool_call(id: str, name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    """One tool request. The API wants `arguments` as JSON *text*, not as an object."""
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)  # keeps "é" readable
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def tool_result(tool_call_id: str, content: str) -> Message:
    return {"role": "tool", "tool_call_id": tool_call_id, "content": content}


@dataclass(frozen=True)
class Problem:
    """One thing the API would refuse, located by message `index` and `field`."""

    index: int | None  # None when the problem is the list itself
    field: str  # inside the message: "role", "tool_calls[0].id"... ("" = the message)
    message: str  # the provider's exact English text
    param: str  # the provider's `param`
    code: str | None  # the provider's `code` (None for errors in the conversation's logic)
    explication: str  # French, for learners

    def __str__(self) -> str:
        where = "messages" if self.index is None else f"messages[{self.index}]"
        return f"{where}{'.' if self.field else ''}{self.field} : {self.explication}"

    def as_api_error(self) -> ApiError:
        error = {"message": self.message, "type": "invalid_request_error",
                 "param": self.param, "code": self.code}
        return ApiError(400, self.message, explication=self.explication, body={"error": error})


def check_conversation(messages: object) -> list[Problem]:
    """Every problem an API would find in `messages`. Never raises.

    The API checks the shape of each message (types, required fields) before
    the logic of the conversation (who answers whom), and reports only the
    first problem. We list them all, in that same order.
    """
    if not isinstance(messages, (list, tuple)):
        return [_problem("messages_type", None, **_got(messages))]
    if not messages:
        return [_problem("messages_empty", None)]
    shapes = [p for i, msg in enumerate(messages) for p in _shape_problems(i, msg)]
    return shapes + _pairing_problems(list(messages))


def validate(messages: object) -> None:
    """Raise the ApiError(400) the API would answer: the first problem only, like the API."""
    problems = check_conversation(messages)
    if problems:
        raise problems[0].as_api_error()


# The provider's texts, word for word: rule -> (message, code, French explication).
# {path} is where the API points, {at} is "Message 3 (role tool)".
_RULES: dict[str, tuple[str, str | None, str]] = {
    "messages_type": ("Invalid type for 'messages': expected an array of objects, but got {got} "
                      "instead.", "invalid_type", "{at} doit être une liste de messages, pas "
                      "{got_fr}."),
    "messages_empty": ("Invalid 'messages': empty array. Expected an array with minimum length "
                       "1, but got an empty array instead.", "empty_array", "{at} est vide : il "
                       "faut au moins un message, par exemple la demande de l'utilisateur."),
    "missing": ("Missing required parameter: '{path}'.", "missing_required_parameter",
                "{at} : il manque le champ {field}.{hint}"),
    "type": ("Invalid type for '{path}': expected {expected}, but got {got} instead.",
             "invalid_type", "{at} : {what} doit être {expected_fr}, pas {got_fr}.{hint}"),
    "role": ("Invalid value: '{value}'. Supported values are: 'system', 'assistant', 'user', "
             "'function', 'tool', and 'developer'.", "invalid_value", "{at} : role vaut "
             "« {short} », un rôle qui n'existe pas. Rôles possibles : system, developer, "
             "user, assistant, tool."),
    "empty_calls": ("Invalid '{path}': empty array. Expected an array with minimum length 1, "
                    "but got an empty array instead.", "empty_array", "{at} : tool_calls est "
                    "une liste vide. Sans demande d'outil, retirez ce champ."),
    # Errors in the logic of the conversation: `param` is "messages.[i].field", code null.
    "null": ("Invalid value for 'content': expected a string, got null.", None, "{at} : content "
             "manque ou vaut null, et il n'y a pas de tool_calls. Un message assistant "
             "contient un texte, des demandes d'outil, ou les deux."),
    # OpenAI's wording for this one could not be confirmed: this is the one DeepSeek returns.
    "duplicate": ("Duplicate value for 'tool_call_id' of {value} in message[{i}]", None,
                  "{at} : l'identifiant {short} apparaît deux fois dans tool_calls. Chaque "
                  "demande a son propre id, sinon ses résultats sont ambigus."),
    "orphan": ("Invalid parameter: messages with role 'tool' must be a response to a preceeding "
               "message with 'tool_calls'.", None, "{at} : ce résultat ne répond à aucune "
               "demande, car {before}. Le modèle recevrait un résultat qu'il n'a pas demandé : "
               "gardez le message assistant complet, avec ses tool_calls."),
    "no_id": ("Missing parameter 'tool_call_id': messages with role 'tool' must have a "
              "'tool_call_id'.", None, "{at} : le champ tool_call_id manque. Sans lui, on ne sait "
              "pas à quelle demande d'outil ce résultat répond."),
    "not_found": ("Invalid parameter: 'tool_call_id' of '{value}' not found in 'tool_calls' of "
                  "previous message.", None, "{at} : son tool_call_id est {short}, mais le "
                  "message assistant {turn} n'a demandé que {asked}. Chaque résultat doit "
                  "reprendre l'identifiant d'une demande."),
    "unanswered": ("An assistant message with 'tool_calls' must be followed by tool messages "
                   "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                   "response messages: {value}", None, "{at} : il demande {asked}, mais aucun "
                   "message tool ne répond à {short} juste après. Chaque demande reçoit son "
                   "résultat (role tool, même tool_call_id) avant tout autre message."),
}
_CALL_SHAPE = " Une demande d'outil s'écrit {id, type: \"function\", function: {name, arguments}}."
_HINTS = {
    "": " Par exemple {\"role\": \"user\", \"content\": \"Bonjour\"}.",
    "role": " Il dit qui parle : system, user, assistant ou tool.",
    "content": " Chaque message porte un texte, même vide.",
    "arguments": " Les arguments sont du JSON écrit dans une chaîne : json.dumps(...).",
}
_KINDS: tuple[tuple[type | tuple[type, ...], str, str], ...] = (  # bool first: True is an int
    (bool, "a boolean", "un booléen"), (int, "an integer", "un entier"),
    (float, "a decimal number", "un nombre décimal"), (str, "a string", "une chaîne (str)"),
    ((list, tuple), "an array", "une liste"), (dict, "an object", "un objet (dict)"),
)
_CONTENT = "one of a string or array of objects"
_EXPECTED_FR = {_CONTENT: "un texte (str) ou une liste de parties", "an array of objects":
                "une liste de demandes d'outil", "a string": "une chaîne (str)",
                "an object": "un objet (dict)"}


def _problem(rule: str, i: int | None, field: str = "", role: object = None,
             **facts: object) -> Problem:
    """Fill one rule's texts for message `i` (None: the list itself)."""
    message, code, french = _RULES[rule]
    path = "messages" if i is None else f"messages[{i}]" + (f".{field}" if field else "")
    param = path if code else f"messages.[{i}].{field}"  # the API's two styles of `param`
    at = "La liste messages" if i is None else f"Message {i}"
    at += f" (role {role})" if isinstance(role, str) else ""
    last = field.rsplit(".", 1)[-1]
    hint = _HINTS.get(last, _CALL_SHAPE if field.startswith("tool_calls") else "")
    filled = {"path": path, "i": i, "at": at, "field": field, "what": field or "le message",
              "hint": hint, **facts}
    return Problem(i, field, message.format(**filled), param, code, french.format(**filled))


def _got(value: object) -> dict[str, str]:
    """How the API names the JSON type of `value` (got), and how we say it (got_fr)."""
    if value is None:
        return {"got": "null", "got_fr": "null (None)"}
    for python_type, english, french in _KINDS:
        if isinstance(value, python_type):
            return {"got": english, "got_fr": french}
    name = type(value).__name__  # could not even be sent as JSON
    return {"got": f"a {name} (not JSON)", "got_fr": f"un objet Python {name}, absent de JSON"}


def _wrong_type(i: int, field: str, value: object, expected: str, role: object = None) -> Problem:
    return _problem("type", i, field, role, expected=expected,
                    expected_fr=_EXPECTED_FR[expected], **_got(value))


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _ids(ids: dict[str, None]) -> str:
    shown = ", ".join(_short(x) for x in list(ids)[:5])
    return shown + (", …" if len(ids) > 5 else "") if ids else "aucun identifiant valide"


# --- Shape: each message on its own. ---


def _shape_problems(i: int, msg: object) -> list[Problem]:
    if not isinstance(msg, dict):
        return [_wrong_type(i, "", msg, "an object")]
    if "role" not in msg:
        return [_problem("missing", i, "role")]
    role = msg["role"]
    if not isinstance(role, str):
        return [_wrong_type(i, "role", role, "a string")]
    if role not in ROLES:
        return [_problem("role", i, "role", value=role, short=_short(role))]
    problems = _content_problems(i, msg, role)
    if role == "assistant":
        problems += _tool_calls_problems(i, msg.get("tool_calls"))
    call_id = msg.get("tool_call_id")
    if role == "tool" and call_id is not None and not isinstance(call_id, str):
        problems.append(_wrong_type(i, "tool_call_id", call_id, "a string", role))
    return problems


def _content_problems(i: int, msg: dict[Any, Any], role: str) -> list[Problem]:
    required = role in _TEXT_ROLES  # an assistant may omit its text when it calls tools
    if "content" not in msg:
        return [_problem("missing", i, "content", role)] if required else []
    content = msg["content"]
    if isinstance(content, str) or (content is None and not required):
        return []
    if isinstance(content, list):  # a list of parts ({"type": "text", ...}): objects only
        return [_wrong_type(i, f"content[{k}]", part, "an object", role)
                for k, part in enumerate(content) if not isinstance(part, dict)]
    return [_wrong_type(i, "content", content, _CONTENT, role)]


def _tool_calls_problems(i: int, calls: object) -> list[Problem]:
    if calls is None:
        return []
    if not isinstance(calls, list):
        return [_wrong_type(i, "tool_calls", calls, "an array of objects", "assistant")]
    if not calls:
        return [_problem("empty_calls", i, "tool_calls", "assistant")]
    return [p for j, call in enumerate(calls) for p in _call_problems(i, f"tool_calls[{j}]", call)]


def _call_problems(i: int, path: str, call: object) -> list[Problem]:
    if not isinstance(call, dict):
        return [_wrong_type(i, path, call, "an object", "assistant")]
    problems = _fields(i, path, call, {"id": str, "type": str, "function": dict})
    if isinstance(call.get("function"), dict):
        problems += _fields(i, f"{path}.function", call["function"], {"name": str,
                                                                       "arguments": str})
    return problems


def _fields(i: int, path: str, obj: dict[Any, Any], fields: dict[str, type]) -> list[Problem]:
    """Required fields of a tool call (or of its `function`), with their types."""
    problems = []
    for name, python_type in fields.items():
        if name not in obj:
            problems.append(_problem("missing", i, f"{path}.{name}", "assistant"))
        elif not isinstance(obj[name], python_type):
            expected = "a string" if python_type is str else "an object"
            problems.append(_wrong_type(i, f"{path}.{name}", obj[name], expected, "assistant"))
    return problems


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
    for i, msg in enumerate(messages):
        role = msg.get("role") if isinstance(msg, dict) else None
        if role == "tool":
            problems += _answer_problems(i, msg, turn, before)
            continue
        problems += _unanswered(turn)  # any other message closes the assistant's turn
        shown = f" (role {_short(role)})" if isinstance(role, str) else ""
        turn, before = None, f"le message {i}{shown} qui le précède n'a pas de tool_calls"
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
        _problem("null", i, "content", "assistant")]
    ids = [c.get("id") for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)]
    seen: set[str] = set()
    for call_id in ids:
        if call_id in seen:
            problems.append(_problem("duplicate", i, "tool_calls", "assistant",
                                     value=call_id, short=_short(call_id)))
        seen.add(call_id)
    return problems


def _answer_problems(i: int, msg: dict[Any, Any], turn: _Turn | None,
                     before: str) -> list[Problem]:
    call_id = msg.get("tool_call_id")
    problems = [_problem("no_id", i, "tool_call_id", "tool")] if call_id is None else []
    if turn is None:
        problems.append(_problem("orphan", i, "role", "tool", before=before))
    elif isinstance(call_id, str) and call_id not in turn.asked:
        problems.append(_problem("not_found", i, "tool_call_id", "tool", value=call_id,
                                 short=_short(call_id), turn=turn.index,
                                 asked=_ids(turn.asked)))
    elif isinstance(call_id, str):
        turn.pending.pop(call_id, None)  # answered (answering twice is not checked)
    return problems


def _unanswered(turn: _Turn | None) -> list[Problem]:
    if turn is None or not turn.pending:
        return []
    return [_problem("unanswered", turn.index, "role", "assistant",
                     value=", ".join(turn.pending), short=_ids(turn.pending),
                     asked=_ids(turn.asked))]
