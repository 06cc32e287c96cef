"""A real model: Chat Completions over HTTP, to OpenRouter or any compatible server.

The same code talks to OpenRouter, OpenAI, Ollama or vLLM: only `base_url` changes. In the
browser (the course's JupyterLite site) the browser makes the requests (browser_http.py).
Error answers become `ApiError`s explained in French (http_errors.py). Tests
replace the network with `transport` (an httpx transport), so no test needs a
connection or a real key:

>>> import httpx
>>> def server(request: httpx.Request) -> httpx.Response:
...     reply = {"role": "assistant", "content": "Bonjour !"}
...     return httpx.Response(200, json={"choices": [{"message": reply,
...                                                   "finish_reason": "stop"}]})
>>> model = OpenRouterModel("openai/gpt-4o-mini", api_key="sk-or-secret",
...                         transport=httpx.MockTransport(server))
>>> completion = model.complete([{"role": "user", "content": "Salut"}], tools=[])
>>> completion.message, completion.request["headers"]["Authorization"]
({'role': 'assistant', 'content': 'Bonjour !'}, 'Bearer ***')
"""

from __future__ import annotations

import copy
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import httpx

from .. import secrets
from ..errors import ApiError, HarnessError, MissingKey, ModelTimeout, hide
from ..limits import MODEL_TIMEOUT
from ..messages import Message
from ..text import french_number
from .browser_http import BrowserTransport
from .deadline import within
from .http_errors import http_error, worth_retrying
from .model import DEFAULT_MODEL, Completion, Price
from .prices import known_price, prices_from_models_list
from .reply import embedded_error, parse_body, parse_completion
from .transfer import DEADLINE, DeadlineTransport, read_body
from .wire import encode_request

OPENROUTER_URL = "https://openrouter.ai/api/v1"
# OpenRouter shows these in its dashboards; other servers ignore them.
APP_HEADERS = {"HTTP-Referer": "http://localhost", "X-Title": "La boucle agentique"}
# What a server says about trying again: how long to wait, and whether it is worth it.
RETRY_HEADERS = ("retry-after", "x-should-retry")
MAX_WAIT = 30.0  # never wait longer than this between two tries, whatever the server says
MAX_REPLY_BYTES = 10_000_000  # a model's answer is a few kB: more is a broken or hostile server
# One compression at most, and only those transfer.py decodes within its cap.
JSON = {"Content-Type": "application/json", "Accept-Encoding": "gzip, deflate"}
# Every exception httpx raises (timeouts are handled before: they stop with `timeout`).
HTTPX_ERRORS = (httpx.HTTPError, httpx.InvalidURL, httpx.CookieConflict, httpx.StreamError)
UNREACHABLE = ("Impossible de joindre {url} : serveur arrêté, réseau coupé ou réponse "
               "interrompue. Vérifiez base_url et votre connexion.")
BROKEN = ("La réponse de {url} est illisible : elle annonce une compression (Content-Encoding) "
          "que son contenu ne respecte pas. Réessayez, ou vérifiez base_url.")

MISSING_KEY = (
    "Aucune clé d’API : créez-en une sur https://openrouter.ai/keys, puis "
    "`export OPENROUTER_API_KEY=sk-or-...` (ou passez api_key=...). "
    "Sans clé, utilisez le modèle simulé (MockModel, option --mock)."
)
BAD_KEY = "La clé d’API contient des caractères inattendus : recopiez-la telle quelle."


class OpenRouterModel:
    """A `Model` (see models.py) backed by an OpenAI-compatible HTTP API."""

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str = OPENROUTER_URL,
        transport: httpx.BaseTransport | None = None,
        max_retries: int = 3,
        price: Price | None = None,
        max_tokens: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.name = model or os.environ.get("HARNESS_MODEL") or DEFAULT_MODEL
        key = (api_key or os.environ.get("OPENROUTER_API_KEY") or "").strip()
        if not key:
            raise MissingKey("OPENROUTER_API_KEY is not set", explication=MISSING_KEY)
        if not (key.isascii() and key.isprintable()):  # a pasted “key”, with a stray accent...
            raise MissingKey("the API key has unexpected characters", explication=BAD_KEY)
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.max_retries = max_retries
        # (USD per million prompt tokens, USD per million completion tokens): given, or the
        # table's (prices.py); the provider's own `usage.cost` wins when it sends one.
        self.price = price if price is not None else known_price(self.name)
        # The longest answer allowed. OpenRouter checks the credits against it before the call
        # (402 « fewer max_tokens »): without it, against the model's own maximum.
        self.max_tokens = max_tokens
        self._sleep = sleep
        # The key lives only inside the client's headers: no attribute, repr or record has it.
        headers = {**APP_HEADERS, "Authorization": f"Bearer {key}"}
        if transport is None:  # the browser makes the request; else sockets that end in time
            transport = BrowserTransport() if sys.platform == "emscripten" else (
                DeadlineTransport())
        self._client = httpx.Client(transport=transport, headers=headers)
        secrets.register(self)  # whatever a tool prints, this key becomes *** (secrets.redact)

    def __repr__(self) -> str:
        return f"OpenRouterModel({self.name!r}, url={self.url!r}, api_key='***')"

    def complete(
        self, messages: list[Message], tools: list[dict[str, Any]], timeout: float = MODEL_TIMEOUT
    ) -> Completion:
        """Send the conversation and the tool definitions, return the assistant's answer.

        `timeout` bounds the whole call, retries and waits included.
        """
        body: dict[str, Any] = {"model": self.name, "messages": messages}
        if tools:  # some servers refuse an empty "tools" list
            body["tools"] = tools
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        headers = {**APP_HEADERS, "Authorization": "Bearer ***"}
        key = self._client.headers["Authorization"].removeprefix("Bearer ")
        try:
            # A copy: the caller keeps appending to `messages` after this call.
            record = {"url": self.url, "headers": headers, "body": copy.deepcopy(body)}
            # len(messages): where the reply will stand, for the ids of calls that had none.
            completion = parse_completion(self._post(encode_request(body), timeout), record,
                                          len(messages), self.url)
        except HarnessError as error:  # a server may quote the key back (an echo, a proxy)
            error.hide(key)
            raise
        # ...in a 200 reply too (content, tool arguments, finish_reason, usage): it never
        # enters messages[] nor the trace.
        completion.message = hide(completion.message, key)
        completion.finish_reason = hide(completion.finish_reason, key)
        completion.usage = hide(completion.usage, key)
        return completion

    def hide(self, text: str) -> str:
        """`text` with this client's key replaced by ***."""
        return str(hide(text, self._client.headers["Authorization"].removeprefix("Bearer ")))

    def close(self) -> None:
        self._client.close()

    def fetch_price(self) -> Price | None:
        """This model's price from the server's models list (OpenRouter's GET /models).

        Online only, and only when asked (the CLI does, for a model the table lacks): None
        when the server has no such list, does not answer, or does not know the model.
        """
        try:
            response = self._client.get(self.base_url + "/models", timeout=10.0)
            prices = prices_from_models_list(response.json()) if response.is_success else {}
        except (ValueError, *HTTPX_ERRORS):  # no list here: the cost stays unknown
            return None
        return prices.get(self.name)

    def _post(self, payload: bytes, timeout: float) -> Any:
        """POST, trying again on a transient error while retries and time are left."""
        deadline = time.monotonic() + timeout
        attempt = 0
        while True:
            status, headers, data = within(deadline, timeout,
                                           partial(self._exchange, payload, deadline, timeout))
            if 200 <= status < 300:
                body = parse_body(status, data)
                # An error inside a 200 (OpenRouter): retried like HTTP when its cause is.
                error = embedded_error(body, self.url)
                if error is None:
                    return body
            else:
                error = http_error(status, data.decode("utf-8", "replace"),
                                   headers.get("retry-after"), self.url)
            if not worth_retrying(error, headers) or attempt >= self.max_retries:
                raise error
            # The server's own Retry-After first, else 1 s, 2 s, 4 s...
            wait = min(error.retry_after if error.retry_after is not None else 2.0**attempt,
                       MAX_WAIT)
            if time.monotonic() + wait >= deadline:  # the caller's limit comes first
                error.explication += (f" (Attendre {french_number(wait)} s de plus "
                                      "dépasserait le délai de "
                                      f"{french_number(timeout)} s accordé à l’appel : abandon.)")
                raise error
            self._sleep(wait)
            attempt += 1

    def _exchange(self, payload: bytes, deadline: float, timeout: float
                  ) -> tuple[int, dict[str, str], bytes]:
        """One POST: its status, the headers that say when to try again, its decoded body.

        Every read of the socket ends by the deadline (transfer.DEADLINE), and the body is
        decoded as it comes, cut past MAX_REPLY_BYTES (transfer.read_body).
        """
        token = DEADLINE.set(deadline)
        try:
            with self._client.stream("POST", self.url, content=payload, headers=JSON,
                                     timeout=max(deadline - time.monotonic(), 0.001)) as response:
                data = read_body(response, deadline, timeout, MAX_REPLY_BYTES, self.url)
                said = {k: response.headers[k] for k in RETRY_HEADERS if k in response.headers}
                return response.status_code, said, data
        except httpx.TimeoutException as exc:
            raise ModelTimeout(timeout) from exc
        except HTTPX_ERRORS as exc:  # refused, DNS, connection cut...
            raise ApiError(None, f"{type(exc).__name__}: {exc}",
                           explication=UNREACHABLE.format(url=self.url)) from exc
        finally:
            DEADLINE.reset(token)

