"""HTTP errors, said in French: what a status means and what the provider wrote.

OpenRouter and the providers behind it answer an error as JSON, sometimes nested
(the provider's own body kept as a string), sometimes as a list (Gemini). `http_error`
turns any such answer into an `ApiError`: the innermost text the provider wrote, a
French explanation that leads to the fix (providers.py reads the provider's words
and the URL; else the status decides), and how long the server asks to wait
(`Retry-After`).

>>> body = '{"error": {"message": "No auth credentials found", "code": 401}}'
>>> error = http_error(401, body)
>>> error.message
'No auth credentials found'
>>> print(error.explication)
Clé d’API invalide ou révoquée : vérifiez OPENROUTER_API_KEY (https://openrouter.ai/keys).
>>> http_error(429, "", retry_after_header="5").retry_after
5.0
"""

from __future__ import annotations

import email.utils
import json
from datetime import datetime, timezone
from typing import Any

from ..errors import ApiError
from .providers import CREDITS, explain

MAX_DEPTH = 64  # levels of nesting kept from a body: real answers have fewer than 10
UNAVAILABLE = "Le fournisseur du modèle est indisponible ou en panne : réessayez plus tard."
EXPLICATIONS = {
    400: "Requête refusée par l’API : {message}",
    401: "Clé d’API invalide ou révoquée : vérifiez OPENROUTER_API_KEY (https://openrouter.ai/keys).",
    402: CREDITS,
    403: "Requête refusée par la modération du fournisseur, ou pas le droit d’utiliser ce modèle.",
    404: "Modèle ou adresse introuvable : vérifiez le nom du modèle et base_url.",
    408: "Le fournisseur a dépassé son propre délai avant de répondre : réessayez.",
    429: "Trop de requêtes : le fournisseur limite le débit. Attendez avant de relancer.",
    **dict.fromkeys((500, 502, 503), UNAVAILABLE),
}


def http_error(status: int, text: str, retry_after_header: str | None = None,
               url: str = "") -> ApiError:
    """Turn an HTTP error answer into an ApiError with the provider's own words.

    `url` is where the request went: the explanation of a 401 names that provider.
    """
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):  # an HTML page from a proxy, an empty body...
        body = {"text": text[:2000]}
    if too_deep(body):  # kept as text: walking it (to hide the key) would crash
        body = {"text": text[:2000]}
    # A list is a body too: Gemini answers [{"error": {...}}].
    found = innermost_message(body) if isinstance(body, (dict, list)) else None
    message = found or text[:300] or "(vide)"
    template = EXPLICATIONS.get(status, "L’API a répondu HTTP {status} : {message}")
    explication = explain(status, message, url) or template.format(status=status,
                                                                   message=message)
    return ApiError(
        status,
        message,
        explication=explication,
        body=body if isinstance(body, dict) else {"json": body},
        retry_after=retry_after(retry_after_header),
    )


def innermost_message(value: Any) -> str | None:
    """The deepest error text: OpenRouter wraps the provider's body in error.metadata.raw.

    >>> raw = json.dumps({"error": {"message": "messages.1: tool_use without tool_result"}})
    >>> innermost_message({"error": {"message": "Provider returned error",
    ...                              "metadata": {"raw": raw}}})
    'messages.1: tool_use without tool_result'
    """
    if isinstance(value, str):
        try:  # `raw` is often the provider's own JSON body, kept as a string
            value = json.loads(value)
        except ValueError:
            return value.strip() or None
    if isinstance(value, list) and value:  # some providers answer a list of errors
        value = value[0]
    # {"error": {...}} (OpenAI, Anthropic), flat {"message": ...} (vLLM), {"error": "..."}
    error = value.get("error", value) if isinstance(value, dict) else value
    if not isinstance(error, dict):
        return error if isinstance(error, str) and error else None
    metadata = error.get("metadata")
    message = str(error["message"]) if error.get("message") else None
    raw = metadata.get("raw") if isinstance(metadata, dict) else None
    return innermost_message(raw) or message


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when lists and objects nest more than `limit` levels (counted without recursion).

    >>> too_deep([[[]]], limit=2), too_deep({"a": [1, {"b": 2}]}, limit=3)
    (True, False)
    """
    level: list[tuple[Any, int]] = [(value, 1)]
    while level:
        item, depth = level.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(
            item, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth >= limit:
                    return True
                level.append((child, depth + 1))
    return False


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header: "5" or an HTTP date."""
    try:
        return max(0.0, float(value or ""))
    except ValueError:
        pass
    try:  # "Wed, 21 Oct 2026 07:28:00 GMT"
        when = email.utils.parsedate_to_datetime(value or "")
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # HTTP dates are always GMT
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
