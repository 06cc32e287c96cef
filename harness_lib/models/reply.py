"""A 200 answer of the API, read strictly: anything else than a well-formed reply is an ApiError.

A server may answer 200 with anything: `tool_calls` that is not a list, a number as
`content`, `NaN`, a lone UTF-16 surrogate in a string, nesting deep enough to crash a
program that walks it, or an error (OpenRouter: `{"error": {...}}`, or a choice that
ends with `finish_reason: "error"`). `parse_body` and `parse_completion` accept only
what the harness can keep in messages[] and send back; the message itself is read
by received.py, which keeps every field. Nothing here raises another exception
than `ApiError`.

>>> body = b'{"choices": [{"message": {"role": "assistant", "content": "Bonjour"}}]}'
>>> parse_completion(parse_body(200, body), {}).message
{'role': 'assistant', 'content': 'Bonjour'}
>>> parse_body(200, b'{"choices": NaN}')
Traceback (most recent call last):
    ...
harness_lib.errors.ApiError: HTTP 200 : invalid JSON body: '{"choices": NaN}'
>>> embedded_error({"error": {"message": "Rate limit exceeded", "code": 429}}).status
429
"""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from ..errors import ApiError
from ..text import dollars
from .http_errors import ProviderError, html_summary, http_error, too_deep
from .model import Completion
from .received import assistant_message

NOT_JSON = ("La réponse de l’API n’est pas du JSON valide (tronquée, page d’erreur d’un proxy, "
            "NaN, texte qui n’est pas de l’UTF-8, imbrication démesurée) : réessayez, ou "
            "vérifiez base_url.")
IN_200 = "Le fournisseur a répondu 200, mais avec une erreur. "


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
    shown = html_summary(text) or repr(text[:200])  # an HTML page is never shown raw
    raise ApiError(status, f"invalid JSON body: {shown}", explication=NOT_JSON,
                   body={"text": text[:2000]})


def embedded_error(data: Any, url: str = "") -> ProviderError | None:
    """The error a 200 body carries, with the provider's words and its cause, or None.

    Two places: the body itself (`{"error": ...}`, whatever its value but null), or the
    first choice, which OpenRouter ends with `finish_reason: "error"` and its own `error`
    object when the provider failed in the middle of its answer. The status is the code
    the provider wrote (429, 502...), so that a transient one is retried like an HTTP one.
    """
    choices = data.get("choices") if isinstance(data, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else {}
    first = first if isinstance(first, dict) else {}
    in_reply = not (isinstance(data, dict) and data.get("error") is not None)
    if not in_reply:
        found: Any = data["error"]
    elif first.get("error") is not None or first.get("finish_reason") == "error":
        found = first.get("error") or {"message": "finish_reason: error"}
    else:
        return None
    code = found.get("code") if isinstance(found, dict) else None
    code = int(code) if isinstance(code, str) and code.isdigit() else code
    status = code if type(code) is int and 400 <= code < 600 else 200
    error = http_error(status, json.dumps({"error": found}), url=url, in_reply=in_reply)
    if error.cause is None and status == 200:  # no known cause: the provider's words
        said = ("Le fournisseur s’est arrêté sur une erreur au milieu de sa réponse"
                if in_reply else "Son message")
        error.explication = (f"{IN_200}{said} : « {error.message} ». "
                             "Réessayez ; si elle revient, changez de modèle "
                             "(HARNESS_MODEL ou --model).")
    else:
        error.explication = IN_200 + error.explication
    return error


def parse_completion(data: Any, request: dict[str, Any], position: int = 0,
                     url: str = "") -> Completion:
    """Read `choices[0]` of a 200 answer; an error hidden in it becomes an ApiError.

    `position` is where the message will stand in messages[] (for local tool-call ids).
    """
    error = embedded_error(data, url)
    if error is not None:
        raise error
    choices = data.get("choices") if isinstance(data, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else {}
    raw = first.get("message") if isinstance(first, dict) else None
    if not isinstance(raw, dict):
        raise ApiError(200, "no choices in the response", body={"text": json.dumps(data)[:2000]},
                       explication="L’API a répondu sans aucun message (`choices` vide) : "
                       "réessayez.")
    message, notes = assistant_message(raw, position)
    if isinstance(choices, list) and len(choices) > 1:  # n=1 was asked: keep the first
        notes.append(f"{len(choices)} choix reçus : seul le premier entre dans messages[]")
    finish = first.get("finish_reason")
    if not isinstance(finish, str) or not finish:
        finish = "tool_calls" if message.get("tool_calls") else "stop"
    if finish == "function_call":  # the legacy name of the same stop: a tool call
        finish = "tool_calls"
    counts, cost = read_usage(data.get("usage"))
    upstream = byok_cost(data.get("usage"))
    if upstream is not None:  # your own provider key: it bills you, OpenRouter adds its fee
        notes.append(f"coût BYOK : {dollars(upstream)} facturé par le fournisseur de votre "
                     f"clé, plus {dollars(cost or 0.0)} par OpenRouter")
        cost = (cost or 0.0) + upstream
    return Completion(message, finish, counts or None, request, cost, notes)


def read_usage(usage: object) -> tuple[dict[str, int], float | None]:
    """The token counts (integers ≥ 0) and the provider's own price of the call, if given.

    >>> read_usage({"prompt_tokens": 10, "completion_tokens": 2, "cost": 0.00012,
    ...             "completion_tokens_details": {"reasoning_tokens": 1}})
    ({'prompt_tokens': 10, 'completion_tokens': 2}, 0.00012)
    """
    if not isinstance(usage, dict):
        return {}, None
    counts = {k: v for k, v in usage.items() if type(v) is int and v >= 0}
    cost = usage.get("cost")  # OpenRouter: dollars actually charged for this call
    counts.pop("cost", None)  # an integer cost (0) is a price, not a token count
    return counts, float(cost) if _dollars(cost) else None


def byok_cost(usage: object) -> float | None:
    """What the provider of your own key billed (OpenRouter's BYOK mode), or None.

    There `usage.cost` is only OpenRouter's fee (often 0); the spend itself is in
    `cost_details.upstream_inference_cost`. Without BYOK, that figure is `cost` again.

    >>> byok_cost({"cost": 0, "is_byok": True,
    ...            "cost_details": {"upstream_inference_cost": 0.0003253}})
    0.0003253
    """
    if not isinstance(usage, dict) or usage.get("is_byok") is not True:
        return None
    details = usage.get("cost_details")
    upstream = details.get("upstream_inference_cost") if isinstance(details, dict) else None
    return float(upstream) if _dollars(upstream) else None


def _dollars(value: object) -> TypeGuard[float]:
    """A price: a number, not a boolean, NaN, infinite or -1 for « unknown »."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and 0 <= value < float("inf"))
