"""HTTP from a browser tab: an httpx transport that has the browser make the request.

In the course's JupyterLite site, Python runs in a web worker (Pyodide), where there is no
socket: httpx's own transport cannot connect. A worker may still ask the browser for a
request and wait for its answer (a synchronous XMLHttpRequest, allowed in workers). The
browser does the TLS and applies CORS: the server must accept calls from a web page, which
OpenRouter does (its « Sign in with OpenRouter » is made for apps with no server).

`BrowserTransport` does what httpx expects of a transport; `Xhr` is the only part that
needs a browser (tests pass their own `send`):

>>> def send(method, url, headers, body, timeout_ms):
...     assert "Host" not in headers  # the browser sets it itself
...     return 200, "Content-Type: application/json\\r\\nContent-Encoding: gzip", b'{"ok": true}'
>>> import httpx
>>> with httpx.Client(transport=BrowserTransport(send)) as client:
...     client.post("https://example.test/v1", json={}, timeout=5).json()
{'ok': True}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

# (method, url, headers, body, timeout in ms; 0: none) -> (status, raw headers, body).
# Raises BrowserRefused when the browser gives no answer.
Send = Callable[[str, str, dict[str, str], bytes, int], tuple[int, str, bytes]]
# Request headers a page may not set: the browser writes them (Fetch's forbidden names).
BROWSER_SETS = {"host", "content-length", "connection", "accept-encoding", "user-agent"}
# Response headers that describe the bytes on the wire: the browser has already decoded and
# joined them, so httpx must not decode again.
ON_THE_WIRE = {"content-encoding", "content-length", "transfer-encoding"}
NO_ANSWER = ("le navigateur n’a reçu aucune réponse : réseau coupé, ou serveur qui refuse les "
             "appels venant d’une page web (CORS)")


class BrowserRefused(Exception):
    """The browser's request ended without an answer; `name`: the DOMException's name."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class BrowserTransport(httpx.BaseTransport):
    """An httpx transport whose requests the browser makes (`send`, by default `Xhr()`)."""

    def __init__(self, send: Send | None = None) -> None:
        self.send = send or Xhr()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in BROWSER_SETS}
        # The longest of httpx's timeouts bounds the whole exchange: the browser has one.
        limits = [t for t in (request.extensions.get("timeout") or {}).values() if t]
        timeout_ms = max(1, round(max(limits) * 1000)) if limits else 0
        try:
            status, raw, body = self.send(request.method, str(request.url), headers,
                                          request.read(), timeout_ms)
        except BrowserRefused as refused:
            if refused.name == "TimeoutError":
                raise httpx.ReadTimeout("délai dépassé", request=request) from None
            raise httpx.ConnectError(f"{NO_ANSWER} ({refused.name})", request=request) from None
        if status == 0:  # what a request blocked by CORS looks like from the page
            raise httpx.ConnectError(NO_ANSWER, request=request)
        return httpx.Response(status, headers=received_headers(raw), content=body,
                              request=request)


def received_headers(raw: str) -> list[tuple[str, str]]:
    """getAllResponseHeaders()'s lines, without those of the wire (ON_THE_WIRE)."""
    pairs = [line.split(":", 1) for line in raw.splitlines() if ":" in line]
    return [(k.strip(), v.strip()) for k, v in pairs if k.strip().lower() not in ON_THE_WIRE]


class Xhr:
    """`Send` with the browser's XMLHttpRequest, synchronous (Pyodide's worker only)."""

    def __call__(self, method: str, url: str, headers: dict[str, str], body: bytes,
                 timeout_ms: int) -> tuple[int, str, bytes]:
        from js import XMLHttpRequest  # type: ignore[import-not-found]
        from pyodide.ffi import JsException, to_js  # type: ignore[import-not-found]

        xhr: Any = XMLHttpRequest.new()
        xhr.open(method, url, False)
        xhr.responseType = "arraybuffer"  # bytes as sent (a worker may ask it of a sync call)
        xhr.timeout = timeout_ms
        for name, value in headers.items():
            xhr.setRequestHeader(name, value)
        try:
            xhr.send(to_js(body) if body else None)
        except JsException as error:  # NetworkError (no answer, CORS), TimeoutError
            raise BrowserRefused(str(getattr(error, "name", "") or "NetworkError")) from None
        answer = xhr.response
        return int(xhr.status), str(xhr.getAllResponseHeaders()), \
            answer.to_bytes() if answer is not None else b""
