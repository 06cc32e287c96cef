"""A run, or an OTLP/JSON file, sent to an OTLP/HTTP receiver: a local Arize Phoenix.

A local `phoenix serve` (`pip install arize-phoenix`) takes traces at
http://localhost:6006/v1/traces, with no account and no key, in protobuf only: the
file's JSON is turned back into the OTLP request (`encode.protobuf_bytes`) and posted
straight, with no proxy (urllib, standard library). Errors in French (`HarnessError`).

>>> PHOENIX
'http://localhost:6006/v1/traces'
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import HarnessError, os_error_text
from ..files import read_capped
from ..trace import Run, Trace
from .encode import protobuf_bytes
from .export import otlp_dict
from .importer import MAX_OTLP_BYTES

PHOENIX = "http://localhost:6006/v1/traces"  # a local `phoenix serve`: no account, no key


def send_otlp(source: Trace | Run | str | Path, endpoint: str = PHOENIX, *,
              timeout: float = 10.0, **options: Any) -> int:
    """Send a run, or an OTLP/JSON file, to an OTLP/HTTP receiver (protobuf), straight, with
    no proxy: a local Arize Phoenix by default. Its HTTP status; HarnessError in French."""
    import urllib.error  # here: http.client is not needed to read or draw a trace
    import urllib.request

    body = _body(source, options)
    request = urllib.request.Request(endpoint, data=body, method="POST",
                                     headers={"Content-Type": "application/x-protobuf"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=timeout) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as err:
        raise HarnessError(f"{endpoint} a refusé la trace : HTTP {err.code}.") from None
    except OSError as err:
        reason = getattr(err, "reason", err)
        said = "connexion refusée" if isinstance(reason, ConnectionRefusedError) else \
            os_error_text(reason) if isinstance(reason, OSError) else str(reason)
        raise HarnessError(f"Impossible de joindre {endpoint} ({said}) : le serveur est-il "
                           "lancé ? Pour Phoenix : phoenix serve.") from None


def _body(source: Trace | Run | str | Path, options: dict[str, Any]) -> bytes:
    """What `send_otlp` sends: the run exported, or the file read; protobuf bytes."""
    if not isinstance(source, (str, Path)):
        return protobuf_bytes(otlp_dict(source, **options))
    try:
        return protobuf_bytes(json.loads(read_capped(Path(source), MAX_OTLP_BYTES)))
    except (ValueError, RecursionError) as err:
        raise HarnessError(f"{Path(source).name} n’est pas de l’OTLP/JSON envoyable : "
                           f"{err}") from None
