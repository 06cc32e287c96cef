"""What can go on the wire: the request as JSON bytes, or nothing is sent.

`OpenRouterModel` and `MockModel` both call `encode_request`, so that they agree:
a learner's message with a lone surrogate ("\\udce9", what Python makes of a byte
that is not UTF-8), NaN or a Python object is refused before any call, by both,
with the same error. (A real API refuses it too, if a client manages to send it:
Anthropic answers "no low surrogate in string", DeepSeek "lone leading surrogate".)

>>> encode_request({"messages": [{"role": "user", "content": "é"}]})
b'{"messages": [{"role": "user", "content": "\\xc3\\xa9"}]}'
>>> encode_request({"messages": [{"role": "user", "content": "caf\\udce9"}]})
Traceback (most recent call last):
    ...
harness_lib.errors.ApiError: Pas de réponse\xa0: request is not JSON: \
'utf-8' codec can't encode character '\\udce9' in position 46: surrogates not allowed
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import ApiError

NOT_SENT = ("La requête contient une valeur que JSON ne sait pas écrire (NaN, Infinity, objet "
            "Python, texte qui n’est pas de l’UTF-8 valide) : rien n’a été envoyé.")


def encode_request(body: dict[str, Any]) -> bytes:
    """The request as JSON bytes, or ApiError: nothing is sent that JSON cannot say."""
    try:
        return json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (ValueError, TypeError, RecursionError) as err:  # NaN, an object, a lone surrogate
        raise ApiError(None, f"request is not JSON: {err}", explication=NOT_SENT) from None
