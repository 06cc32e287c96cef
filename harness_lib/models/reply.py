"""A 200 answer of the API, read strictly: anything else than a well-formed reply is an ApiError.

A server may answer 200 with anything: `tool_calls` that is not a list, a number as
`content`, `NaN`, a lone UTF-16 surrogate in a string, nesting deep enough to crash a
program that walks it. `parse_body` and `parse_completion` accept only what the
harness can keep in messages[] and send back: a reply they return is a valid
assistant message in valid UTF-8; anything else becomes an `ApiError` that says, in
French, what was wrong. Nothing here raises another exception.

>>> body = b'{"choices": [{"message": {"role": "assistant", "content": "Bonjour"}}]}'
>>> parse_completion(parse_body(200, body), {}).message
{'role': 'assistant', 'content': 'Bonjour'}
>>> parse_body(200, b'{"choices": NaN}')
Traceback (most recent call last):
    ...
harness_lib.errors.ApiError: HTTP 200 : invalid JSON body: '{"choices": NaN}'
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import ApiError
from ..messages import Message
from .http_errors import http_error, too_deep
from .model import Completion

NOT_JSON = ("La réponse de l’API n’est pas du JSON valide (tronquée, page d’erreur d’un proxy, "
            "NaN, texte qui n’est pas de l’UTF-8, imbrication démesurée) : réessayez, ou "
            "vérifiez base_url.")
MALFORMED = ("L’API a répondu 200, mais son message est mal formé ({what}) : il ne peut pas "
             "entrer dans messages[]. Réessayez, ou vérifiez base_url.")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity: Python reads them, JSON does not


def parse_body(status: int, data: bytes) -> Any:
    """The JSON of a body: strict UTF-8, no NaN/Infinity, no lone surrogate, sane nesting."""
    text = data.decode("utf-8", "replace")
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
        # A lone surrogate ("\ud800") decodes, but cannot be written as UTF-8 (trace, screen).
        json.dumps(value, ensure_ascii=False).encode("utf-8")
        if not too_deep(value):
            return value
    except (ValueError, RecursionError):  # UnicodeError is a ValueError
        pass
    raise ApiError(status, f"invalid JSON body: {text[:200]!r}", explication=NOT_JSON,
                   body={"text": text[:2000]})


def parse_completion(data: Any, request: dict[str, Any]) -> Completion:
    """Read `choices[0]` of a 200 answer; an error hidden in it becomes an ApiError."""
    if isinstance(data, dict) and data.get("error"):  # OpenRouter can do that with a 200
        code = data["error"].get("code") if isinstance(data["error"], dict) else None
        raise http_error(code if type(code) is int else 200, json.dumps(data))
    choices = data.get("choices") if isinstance(data, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else {}
    raw = first.get("message") if isinstance(first, dict) else None
    if not isinstance(raw, dict):
        raise ApiError(200, "no choices in the response", body={"text": json.dumps(data)[:2000]},
                       explication="L’API a répondu sans aucun message (`choices` vide) : "
                       "réessayez.")
    message = _assistant(raw)
    finish = first.get("finish_reason")
    if finish == "error":  # OpenRouter: the provider failed in the middle of its answer
        raise ApiError(200, "finish_reason: error", explication="Le fournisseur s’est arrêté "
                       "sur une erreur au milieu de sa réponse : réessayez.")
    if not isinstance(finish, str) or not finish:
        finish = "tool_calls" if message.get("tool_calls") else "stop"
    usage = data.get("usage")  # keep the token counts, drop nested details and costs
    counts = {k: v for k, v in usage.items() if type(v) is int and v >= 0} if isinstance(
        usage, dict) else {}
    return Completion(message, finish, counts or None, request)


def _assistant(raw: dict[str, Any]) -> Message:
    """The canonical assistant message, or ApiError naming the field that is wrong."""
    if raw.get("role") not in (None, "assistant"):
        raise _malformed(f"role {json.dumps(raw.get('role'))[:40]} au lieu de assistant")
    content, calls = raw.get("content"), raw.get("tool_calls")
    if content is not None and not isinstance(content, str):
        raise _malformed(f"content est {_kind(content)}, pas un texte")
    if calls is not None and not isinstance(calls, list):
        raise _malformed(f"tool_calls est {_kind(calls)}, pas une liste")
    tool_calls = [_tool_call(k, call) for k, call in enumerate(calls or [])]
    # No text and no tool call (cut, filtered): "" keeps the message valid for the next call.
    message: Message = {"role": "assistant", "content": "" if content is None and not
                        tool_calls else content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return message


def _tool_call(k: int, call: object) -> dict[str, Any]:
    """The canonical shape of tool_calls[k], whatever extra fields a provider adds (index...)."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(call, dict) or not isinstance(function, dict):
        raise _malformed(f"tool_calls[{k}] sans objet function")
    name, call_id = function.get("name"), call.get("id")
    if not isinstance(name, str) or not name or not isinstance(call_id, str) or not call_id:
        raise _malformed(f"tool_calls[{k}] sans id ou sans nom d’outil")
    if call.get("type") not in (None, "function"):
        raise _malformed(f"tool_calls[{k}].type vaut {json.dumps(call.get('type'))[:40]}")
    arguments = function.get("arguments")
    if not isinstance(arguments, str):  # a few servers send an object, not a JSON string
        arguments = json.dumps({} if arguments is None else arguments, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _kind(value: object) -> str:
    names = {bool: "un booléen", int: "un nombre", float: "un nombre", list: "une liste",
             dict: "un objet"}
    return next((n for t, n in names.items() if isinstance(value, t)), type(value).__name__)


def _malformed(what: str) -> ApiError:
    return ApiError(200, f"malformed reply: {what}", explication=MALFORMED.format(what=what))
