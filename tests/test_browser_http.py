"""The browser's transport (models/browser_http.py), outside a browser: its `send` replaced by
one that answers as the browser would, from the same server function as httpx.MockTransport.

The reference is httpx's own path: the same conversation through `BrowserTransport` and
through `httpx.MockTransport` gives the same completion. Then what only the browser path
does: the headers a page may not set, the timeout handed to the browser, a decoded body
whose headers still announce gzip, and a request with no answer (CORS, network, time).
The real XMLHttpRequest is exercised in Chromium by tests/test_site.py.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from fake_server import text_reply, tool_reply

from harness_lib.errors import ApiError, ModelTimeout
from harness_lib.models.browser_http import BROWSER_SETS, BrowserRefused, BrowserTransport
from harness_lib.models.openrouter import OpenRouterModel

KEY = "sk-or-v1-cle-factice-de-test"
URL = "https://openrouter.test/api/v1"
CONVERSATION = [{"role": "user", "content": "Lis README.md et résume le projet"}]


class Browser:
    """`send` as the browser answers: from a server function, headers as one raw string."""

    def __init__(self, server: Any, refuse: str | None = None, status: int | None = None):
        self.server, self.refuse, self.status = server, refuse, status
        self.sent: list[tuple[str, str, dict[str, str], bytes, int]] = []

    def __call__(self, method: str, url: str, headers: dict[str, str], body: bytes,
                 timeout_ms: int) -> tuple[int, str, bytes]:
        self.sent.append((method, url, headers, body, timeout_ms))
        if self.refuse:
            raise BrowserRefused(self.refuse)
        answer = self.server(httpx.Request(method, url, headers=headers, content=body))
        raw = "\r\n".join(f"{k}: {v}" for k, v in answer.headers.items())
        body = b"".join(answer.stream)  # as given, not decoded: what the browser hands over
        return (answer.status_code if self.status is None else self.status), raw, body


REPLY = tool_reply(("read_file", {"path": "README.md"}))  # one reply, one call id, for both


def server(request: httpx.Request) -> httpx.Response:
    asked = json.loads(request.content)
    assert asked["messages"] == CONVERSATION
    return httpx.Response(200, json=REPLY)


def model(transport: httpx.BaseTransport) -> OpenRouterModel:
    return OpenRouterModel("fake/model", api_key=KEY, base_url=URL, transport=transport)


def test_the_browser_path_gives_what_httpx_gives() -> None:
    through_httpx = model(httpx.MockTransport(server)).complete(CONVERSATION, tools=[])
    browser = Browser(server)
    through_browser = model(BrowserTransport(browser)).complete(CONVERSATION, tools=[])
    assert through_browser.message == through_httpx.message
    assert through_browser.request == through_httpx.request  # the record keeps no key
    method, url, headers, _, _ = browser.sent[0]
    assert (method, url) == ("POST", f"{URL}/chat/completions")
    assert headers["authorization"] == f"Bearer {KEY}"  # the browser is handed the real key


def test_the_browser_sets_its_own_headers_and_gets_the_time_left() -> None:
    browser = Browser(server)
    model(BrowserTransport(browser)).complete(CONVERSATION, tools=[], timeout=7.0)
    _, _, headers, body, timeout_ms = browser.sent[0]
    assert not {name.lower() for name in headers} & BROWSER_SETS
    assert {"http-referer", "x-title", "content-type"} <= set(headers)
    assert json.loads(body)["model"] == "fake/model"
    assert 0 < timeout_ms <= 7000  # the call's deadline, not httpx's default 5 s


def test_a_body_the_browser_decoded_is_not_decoded_again() -> None:
    def browser(method: str, url: str, headers: dict[str, str], body: bytes,
                timeout_ms: int) -> tuple[int, str, bytes]:
        # The headers as the server sent them; the body as the browser hands it over, inflated.
        raw = "Content-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 3"
        return 200, raw, json.dumps(text_reply("Bonjour")).encode()

    completion = model(BrowserTransport(browser)).complete(CONVERSATION, tools=[])
    assert completion.message["content"] == "Bonjour"


@pytest.mark.parametrize("refused", [dict(refuse="NetworkError"), dict(status=0)],
                         ids=["network-error", "status-0"])
def test_no_answer_says_network_or_cors(refused: dict[str, Any]) -> None:
    with pytest.raises(ApiError) as caught:
        model(BrowserTransport(Browser(server, **refused))).complete(CONVERSATION, tools=[])
    assert caught.value.status is None
    assert "CORS" in str(caught.value) and URL in caught.value.explication
    assert KEY not in str(caught.value) + caught.value.explication


def test_the_browser_timeout_is_the_calls() -> None:
    with pytest.raises(ModelTimeout):
        model(BrowserTransport(Browser(server, refuse="TimeoutError"))).complete(
            CONVERSATION, tools=[], timeout=2.0)
