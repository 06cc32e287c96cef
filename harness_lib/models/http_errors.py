"""HTTP errors, said in French: what the provider wrote, its cause, and the way out.

OpenRouter and the providers behind it answer an error as JSON, sometimes nested
(the provider's own body kept as a string), sometimes as a list (Gemini), sometimes as
an HTML page (a proxy, Cloudflare). `http_error` turns any such answer into a
`ProviderError`: the innermost text the provider wrote (an HTML page summarised by its
title, never shown raw), its cause (causes.py: the codes and words first, the status
last) with the French explanation that leads to the fix, whether to try again, and how
long the server asks to wait (`Retry-After`).

>>> body = '{"error": {"message": "No auth credentials found", "code": 401}}'
>>> error = http_error(401, body)
>>> error.message, error.cause.name, error.transient
('No auth credentials found', 'Clé refusée', False)
>>> print(error.explication)
Clé d’API invalide ou révoquée : vérifiez OPENROUTER_API_KEY (https://openrouter.ai/keys).
>>> print(http_error(524, "<html><title>openrouter.ai | 524: A timeout occurred</title>"))
HTTP 524 : page HTML : openrouter.ai | 524: A timeout occurred
>>> http_error(429, "", retry_after_header="5").retry_after
5.0
"""

from __future__ import annotations

import email.utils
import html
import json
import re
from datetime import datetime, timezone
from typing import Any

from ..errors import ApiError
from ..text import shorten
from .causes import Cause, explanation, find_cause
from .providers import wrong_key

MAX_DEPTH = 64  # levels of nesting kept from a body: real answers have fewer than 10
REFUSED = "Requête refusée par l’API : {message}"  # a 400 no row of causes.py explains
OTHER = "L’API a répondu HTTP {status} : {message}"


class ProviderError(ApiError):
    """An error the provider answered, with its `cause` (a row of causes.py, or None)."""

    def __init__(self, status: int, message: str, *, cause: Cause | None, explication: str,
                 body: dict[str, Any], retry_after: float | None = None) -> None:
        super().__init__(status, message, explication=explication, body=body,
                         retry_after=retry_after)
        self.cause = cause

    @property
    def transient(self) -> bool:
        """Worth a second try, as its cause says (a rate limit, an overloaded provider)."""
        return self.cause is not None and self.cause.retry


def http_error(status: int, text: str, retry_after_header: str | None = None,
               url: str = "", *, in_reply: bool = False) -> ProviderError:
    """Turn an HTTP error answer into a ProviderError with the provider's own words.

    `url` is where the request went: a refused key names that provider. `in_reply`: the
    error came inside a 200 reply's choice (a filter there blocked the answer, not the
    request).
    """
    page = html_summary(text)
    try:
        body = {"text": text[:2000]} if page else json.loads(text)
    except (ValueError, RecursionError):  # an empty body, plain text...
        body = {"text": text[:2000]}
    if too_deep(body):  # kept as text: walking it (to hide the key) would crash
        body = {"text": text[:2000]}
    # A list is a body too: Gemini answers [{"error": {...}}].
    found = innermost_message(body) if isinstance(body, (dict, list)) and not page else None
    message = page or found or text[:300] or "(vide)"
    cause = find_cause(status, body, f"{message} {outer_message(body)}")
    if cause is not None:
        explication = explanation(cause, body, message, key=wrong_key(url), in_reply=in_reply)
    else:
        explication = (REFUSED if status == 400 else OTHER).format(status=status,
                                                                   message=message)
    return ProviderError(status, message, cause=cause, explication=explication,
                         body=body if isinstance(body, dict) else {"json": body},
                         retry_after=retry_after(retry_after_header))


def worth_retrying(error: ApiError, headers: dict[str, str]) -> bool:
    """A transient cause (causes.py), or the server's `x-should-retry: true` on an error of
    no known cause; never when the server says `false`, nor for a cause retrying cannot fix
    (no credit, a refused key, a context too long...).

    >>> worth_retrying(http_error(529, '{"error": {"type": "overloaded_error"}}'), {})
    True
    >>> worth_retrying(http_error(529, ""), {"x-should-retry": "false"})
    False
    """
    said = headers.get("x-should-retry", "").strip().lower()
    cause = error.cause if isinstance(error, ProviderError) else None
    if said == "false" or (cause is not None and not cause.retry):
        return False
    return said == "true" or (cause is not None and cause.retry)


def html_summary(text: str) -> str | None:
    """An HTML page (a proxy's, Cloudflare's) said in one line: its title, else its words.

    >>> print(html_summary("<html>502 Bad Gateway</html>"), html_summary('{"error": 1}'))
    page HTML : 502 Bad Gateway None
    """
    head = text[:2000].lstrip().lower()
    if not head.startswith("<") or not re.search(r"<(!doctype|html|head|body|title)", head):
        return None
    title = re.search(r"<title[^>]*>(.*?)</title>", text[:20000], re.S | re.I)
    words = title[1] if title else re.sub(r"<[^>]*>", " ", text[:4000])
    return "page HTML : " + (shorten(" ".join(html.unescape(words).split()), 150)
                             or "sans titre")


def outer_message(body: Any) -> str:
    """The top error's own message (OpenRouter's, around the provider's inner one)."""
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) else ""


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
