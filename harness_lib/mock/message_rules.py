"""The rules an API checks on each message, and the provider's exact texts.

`conversation.check_conversation` asks this module about each message on its own
(types, required fields, known roles), then checks who answers whom itself.
Every `Problem` carries the provider's English `message`, `param` and `code`,
word for word, plus an `explication` in French for learners.

>>> [found] = shape_problems(2, {"role": "robot", "content": "Bonjour"})
>>> found.param, found.code
('messages[2].role', 'invalid_value')
>>> print(found.explication[:48])
Message 2 : role vaut « robot », un rôle qui n’e
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ApiError
from ..messages import NAME, got
from ..text import french_number, shorten
from .api_texts import MAX_CONTENT, TEXTS

ROLES = ("system", "assistant", "user", "function", "tool", "developer")
_TEXT_ROLES = ("system", "developer", "user", "tool")  # these must carry a content
# Parts of a content list each role accepts (OpenAPI spec), with the field each type needs.
PART_FIELDS = {"text": "text", "image_url": "image_url", "input_audio": "input_audio",
               "file": "file", "refusal": "refusal", "audio": "audio"}
PARTS = {"user": ("text", "image_url", "input_audio", "file"), "assistant": ("text", "refusal"),
         **dict.fromkeys(("system", "developer", "tool", "function"), ("text",))}


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
        return f"{where}{'.' if self.field else ''}{self.field} : {self.explication}"

    def as_api_error(self) -> ApiError:
        error = {"message": self.message, "type": "invalid_request_error",
                 "param": self.param, "code": self.code}
        return ApiError(400, self.message, explication=self.explication, body={"error": error})


_CALL_SHAPE = " Une demande d’outil s’écrit {id, type: \"function\", function: {name, arguments}}."
_HINTS = {
    "": " Par exemple {\"role\": \"user\", \"content\": \"Bonjour\"}.",
    "role": " Il dit qui parle : system, user, assistant ou tool.",
    "content": " Chaque message porte un texte, même vide.",
    "arguments": " Les arguments sont du JSON écrit dans une chaîne : json.dumps(...).",
}
_CONTENT = "one of a string or array of objects"
_EXPECTED_FR = {_CONTENT: "un texte (str) ou une liste de parties", "an array of objects":
                "une liste de demandes d’outil", "a string": "une chaîne (str)",
                "an object": "un objet (dict)"}


def problem(rule: str, i: int | None, field: str = "", role: object = None,
            **facts: object) -> Problem:
    """Fill one rule's texts for message `i` (None: the list itself)."""
    message, code, french = TEXTS[rule]
    path = "messages" if i is None else f"messages[{i}]" + (f".{field}" if field else "")
    param = path if code else f"messages.[{i}].{field}"  # the API's two styles of `param`
    at = "La liste messages" if i is None else f"Message {i}"
    at += f" (role {role})" if isinstance(role, str) else ""
    last = field.rsplit(".", 1)[-1]
    hint = _HINTS.get(last, _CALL_SHAPE if field.startswith("tool_calls") else "")
    filled = {"path": path, "i": i, "at": at, "field": field, "what": field or "le message",
              "role": role, "hint": hint, **facts}
    return Problem(i, field, message.format(**filled), param, code, french.format(**filled))


def _wrong_type(i: int, field: str, value: object, expected: str, role: object = None) -> Problem:
    return problem("type", i, field, role, expected=expected,
                   expected_fr=_EXPECTED_FR[expected], **got(value))


def short(text: str) -> str:
    """A value quoted in an explanation: 40 characters at most."""
    return shorten(text, 40)


def id_list(ids: dict[str, None]) -> str:
    """At most five ids, for an explication: « call_1, call_2, … »."""
    shown = ", ".join(short(x) for x in list(ids)[:5])
    return shown + (", …" if len(ids) > 5 else "") if ids else "aucun identifiant valide"


# --- Shape: each message on its own. ---


def shape_problems(i: int, msg: object) -> list[Problem]:
    """What the API refuses in message `i` on its own: its type, role, content, tool calls."""
    if not isinstance(msg, dict):
        return [_wrong_type(i, "", msg, "an object")]
    if "role" not in msg:
        return [problem("missing", i, "role")]
    role = msg["role"]
    if not isinstance(role, str):
        return [_wrong_type(i, "role", role, "a string")]
    if role not in ROLES:
        return [problem("role", i, "role", value=role, short=short(role))]
    problems = _content_problems(i, msg, role) + _name_problems(i, msg, role)
    if role == "assistant":
        problems += _tool_calls_problems(i, msg.get("tool_calls"))
    call_id = msg.get("tool_call_id")
    if role == "tool" and call_id is not None and not isinstance(call_id, str):
        problems.append(_wrong_type(i, "tool_call_id", call_id, "a string", role))
    return problems


def _content_problems(i: int, msg: dict[Any, Any], role: str) -> list[Problem]:
    required = role in _TEXT_ROLES  # an assistant may omit its text when it calls tools
    if "content" not in msg:
        return [problem("missing", i, "content", role)] if required else []
    content = msg["content"]
    if isinstance(content, str):
        return _length(i, "content", content, role)
    if content is None:  # OpenAI's own text for null, not its "invalid type" template
        return [problem("content_null", i, "content", role)] if required else []
    if isinstance(content, list):  # a list of parts ({"type": "text", ...})
        if not content:
            return [problem("empty_parts", i, "content", role)]
        return [p for k, part in enumerate(content) for p in _part_problems(i, k, part, role)]
    return [_wrong_type(i, "content", content, _CONTENT, role)]


def _part_problems(i: int, k: int, part: object, role: str) -> list[Problem]:
    """One part of a content list: an object, a known type this role accepts, its field."""
    where = f"content[{k}]"
    if not isinstance(part, dict):
        return [_wrong_type(i, where, part, "an object", role)]
    kind = part.get("type")
    if "type" not in part or not isinstance(kind, str):
        return [problem("missing", i, f"{where}.type", role)] if "type" not in part else [
            _wrong_type(i, f"{where}.type", kind, "a string", role)]
    if kind not in PART_FIELDS:
        return [problem("part_type", i, f"{where}.type", role, value=kind, short=short(kind))]
    allowed = PARTS.get(role, ())
    if kind == "image_url" and role != "user":  # OpenAI's text names the message, not the part
        return [problem("image_role", i, "", role)]
    if kind not in allowed:
        return [problem("part_role", i, f"{where}.type", role, value=kind, short=short(kind),
                        allowed=" ou ".join(allowed))]
    field = PART_FIELDS[kind]
    if field not in part:
        return [problem("missing", i, f"{where}.{field}", role)]
    text = part[field]
    if kind == "text" and not isinstance(text, str):
        return [_wrong_type(i, f"{where}.text", text, "a string", role)]
    return _length(i, f"{where}.text", text, role) if kind == "text" else []


def _length(i: int, field: str, text: str, role: str) -> list[Problem]:
    if len(text) <= MAX_CONTENT:
        return []
    return [problem("too_long", i, field, role, length=len(text),
                    length_fr=french_number(len(text)))]  # the API's English, our French


def _name_problems(i: int, msg: dict[Any, Any], role: str) -> list[Problem]:
    """`name`: required for role function, and always letters, digits, _ and - only."""
    if "name" not in msg:
        return [problem("missing", i, "name", role)] if role == "function" else []
    name = msg["name"]
    if not isinstance(name, str):
        return [_wrong_type(i, "name", name, "a string", role)]
    if not NAME.fullmatch(name):
        return [problem("pattern", i, "name", role, short=short(name))]
    return []


def _tool_calls_problems(i: int, calls: object) -> list[Problem]:
    if calls is None:
        return []
    if not isinstance(calls, list):
        return [_wrong_type(i, "tool_calls", calls, "an array of objects", "assistant")]
    if not calls:
        return [problem("empty_calls", i, "tool_calls", "assistant")]
    return [p for j, call in enumerate(calls) for p in _call_problems(i, f"tool_calls[{j}]", call)]


def _call_problems(i: int, path: str, call: object) -> list[Problem]:
    if not isinstance(call, dict):
        return [_wrong_type(i, path, call, "an object", "assistant")]
    kind = call.get("type")
    body = "custom" if kind == "custom" else "function"  # custom tools carry `custom`
    problems = _fields(i, path, call, {"id": str, "type": str, body: dict})
    if isinstance(kind, str) and kind not in ("function", "custom"):
        problems.append(problem("call_type", i, f"{path}.type", "assistant", value=kind,
                                short=short(kind)))
    if isinstance(call.get("function"), dict):
        function = call["function"]
        problems += _fields(i, f"{path}.function", function, {"name": str, "arguments": str})
        name = function.get("name")
        if isinstance(name, str) and not NAME.fullmatch(name):  # OpenAI checks past calls too
            problems.append(problem("pattern", i, f"{path}.function.name", "assistant",
                                    short=short(name)))
    return problems


def _fields(i: int, path: str, obj: dict[Any, Any], fields: dict[str, type]) -> list[Problem]:
    """Required fields of a tool call (or of its `function`), with their types."""
    problems = []
    for name, python_type in fields.items():
        if name not in obj:
            problems.append(problem("missing", i, f"{path}.{name}", "assistant"))
        elif not isinstance(obj[name], python_type):
            expected = "a string" if python_type is str else "an object"
            problems.append(_wrong_type(i, f"{path}.{name}", obj[name], expected, "assistant"))
    return problems
