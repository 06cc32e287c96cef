"""A real model: Chat Completions over HTTP, to OpenRouter or any compatible server.

The same code talks to OpenRouter, OpenAI, Ollama or vLLM: only `base_url` changes.
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
import json
import os
import time
from collections.abc import Callable
from typing import Any

import httpx

from ..errors import ApiError, MissingKey, ModelTimeout
from ..limits import MODEL_TIMEOUT
from ..messages import Message
from .http_errors import http_error
from .model import DEFAULT_MODEL, Completion, Price

OPENROUTER_URL = "https://openrouter.ai/api/v1"
# OpenRouter shows these in its dashboards; other servers ignore them.
APP_HEADERS = {"HTTP-Referer": "http://localhost", "X-Title": "La boucle agentique"}
RETRY_STATUSES = (429, 502, 503)  # worth a second try: the request itself was fine
MAX_WAIT = 30.0  # never wait longer than this between two tries, whatever the server says

MISSING_KEY = (
    "Aucune clé d'API : créez-en une sur https://openrouter.ai/keys, puis "
    "`export OPENROUTER_API_KEY=sk-or-...` (ou passez api_key=...). "
    "Sans clé, utilisez le modèle simulé (MockModel, option --mock)."
)
BAD_KEY = "La clé d'API contient des caractères inattendus : recopiez-la telle quelle."


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
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.name = model or os.environ.get("HARNESS_MODEL") or DEFAULT_MODEL
        key = (api_key or os.environ.get("OPENROUTER_API_KEY") or "").strip()
        if not key:
            raise MissingKey("OPENROUTER_API_KEY is not set", explication=MISSING_KEY)
        if not (key.isascii() and key.isprintable()):  # a pasted “key”, with a stray accent...
            raise MissingKey("the API key has unexpected characters", explication=BAD_KEY)
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.max_retries = max_retries
        self.price = price  # (USD per million prompt tokens, USD per million completion tokens)
        self._sleep = sleep
        # The key lives only inside the client's headers: no attribute, repr or record has it.
        headers = {**APP_HEADERS, "Authorization": f"Bearer {key}"}
        self._client = httpx.Client(transport=transport, headers=headers)

    def __repr__(self) -> str:
        return f"OpenRouterModel({self.name!r}, url={self.url!r}, api_key='***')"

    def complete(
        self, messages: list[Message], tools: list[dict[str, Any]], timeout: float = MODEL_TIMEOUT
    ) -> Completion:
        """Send the conversation and the tool definitions, return the assistant's answer."""
        body: dict[str, Any] = {"model": self.name, "messages": messages}
        if tools:  # some servers refuse an empty "tools" list
            body["tools"] = tools
        headers = {**APP_HEADERS, "Authorization": "Bearer ***"}
        # A copy: the caller keeps appending to `messages` after this call.
        record = {"url": self.url, "headers": headers, "body": copy.deepcopy(body)}
        try:
            return parse_completion(_json(self._post(body, timeout)), record)
        except ApiError as error:  # a server may quote the key back (an echo, a chatty proxy)
            key = self._client.headers["Authorization"].removeprefix("Bearer ")
            error.hide(key)
            raise

    def close(self) -> None:
        self._client.close()

    def _post(self, body: dict[str, Any], timeout: float) -> httpx.Response:
        """POST, trying again on 429/502/503 as long as retries are left."""
        attempt = 0
        while True:
            response = self._send(body, timeout)
            if response.is_success:
                return response
            error = http_error(
                response.status_code, response.text, response.headers.get("Retry-After")
            )
            if response.status_code not in RETRY_STATUSES or attempt >= self.max_retries:
                raise error
            # The server's own Retry-After first, else 1 s, 2 s, 4 s...
            wait = error.retry_after if error.retry_after is not None else 2.0**attempt
            self._sleep(min(wait, MAX_WAIT))
            attempt += 1

    def _send(self, body: dict[str, Any], timeout: float) -> httpx.Response:
        try:
            return self._client.post(self.url, json=body, timeout=timeout)
        except httpx.TimeoutException as exc:
            raise ModelTimeout(timeout) from exc
        except httpx.TransportError as exc:  # refused, DNS, connection cut mid-answer
            raise ApiError(
                None,
                f"{type(exc).__name__}: {exc}",
                explication=f"Impossible de joindre {self.url} : serveur arrêté, réseau "
                "coupé ou réponse interrompue. Vérifiez base_url et votre connexion.",
            ) from exc


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        raise ApiError(
            response.status_code,
            f"invalid JSON body: {response.text[:200]!r}",
            explication="La réponse de l'API n'est pas du JSON valide (tronquée, ou page "
            "d'erreur d'un proxy) : réessayez, ou vérifiez base_url.",
            body={"text": response.text[:2000]},
        ) from None


def parse_completion(data: Any, request: dict[str, Any]) -> Completion:
    """Read `choices[0]` of a 200 answer; an error hidden in it becomes an ApiError."""
    if isinstance(data, dict) and data.get("error"):  # OpenRouter can do that with a 200
        code = data["error"].get("code") if isinstance(data["error"], dict) else None
        raise http_error(code if isinstance(code, int) else 200, json.dumps(data))
    choices = data.get("choices") if isinstance(data, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else {}
    raw = first.get("message") if isinstance(first, dict) else None
    if not isinstance(raw, dict):
        raise ApiError(
            200,
            "no choices in the response",
            explication="L'API a répondu sans aucun message (`choices` vide) : réessayez.",
            body=data if isinstance(data, dict) else {"json": data},
        )
    message: Message = {"role": raw.get("role") or "assistant", "content": raw.get("content")}
    calls = [_tool_call(c) for c in raw.get("tool_calls") or [] if isinstance(c, dict)]
    if calls:
        message["tool_calls"] = calls
    finish = first.get("finish_reason") or ("tool_calls" if calls else "stop")
    usage = data.get("usage")
    if isinstance(usage, dict):  # keep the token counts, drop nested details and costs
        usage = {k: v for k, v in usage.items() if type(v) is int}
    return Completion(message, finish, usage or None, request)


def _tool_call(call: dict[str, Any]) -> dict[str, Any]:
    """The canonical shape, whatever extra fields a provider adds (index...)."""
    function = call.get("function") or {}
    arguments = function.get("arguments")
    if not isinstance(arguments, str):  # a few servers send an object, not a JSON string
        arguments = json.dumps(arguments or {})
    name = function.get("name", "")
    return {
        "id": call.get("id", ""),
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }
