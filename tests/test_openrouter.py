"""OpenRouterModel against httpx.MockTransport, a real local HTTP server, and openai's own types."""

from __future__ import annotations

import doctest
import email.utils
import json
import logging
import socket
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fake_server import FakeServer, error_body, text_reply, tool_reply

from harness_lib.errors import ApiError, MissingKey, ModelTimeout
from harness_lib.models import openrouter
from harness_lib.models.http_errors import innermost_message
from harness_lib.models.model import cost
from harness_lib.models.openrouter import DEFAULT_MODEL, OpenRouterModel

KEY = "sk-or-v1-SECRET-0123456789abcdef"
USER = [{"role": "user", "content": "Lis README.md"}]
READ_FILE = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Lit un fichier du dossier de travail.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
}
# A whole exchange: the model asked for a tool, the harness answered with its result.
CONVERSATION = [
    {"role": "system", "content": "Tu es un assistant de code."},
    *USER,
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "README.md"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "# Projet\nUn exemple."},
]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own key or model must not change what the tests see."""
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    monkeypatch.delenv("HARNESS_MODEL", raising=False)


Handler = Callable[[httpx.Request], httpx.Response]


def mocked(
    *answers: httpx.Response | Handler, **kwargs: Any
) -> tuple[OpenRouterModel, list[httpx.Request], list[float]]:
    """A model whose server gives `answers` in order; returns it, the requests, the waits."""
    sent: list[httpx.Request] = []
    sleeps: list[float] = []
    queue = list(answers)

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        answer = queue.pop(0)
        return answer(request) if callable(answer) else answer

    transport = httpx.MockTransport(handler)
    model = OpenRouterModel(
        "test/model", api_key=KEY, transport=transport, sleep=sleeps.append, **kwargs
    )
    return model, sent, sleeps


def on_fake(fake: FakeServer, **kwargs: Any) -> tuple[OpenRouterModel, list[float]]:
    sleeps: list[float] = []
    model = OpenRouterModel(
        "test/model", api_key=KEY, base_url=fake.url, sleep=sleeps.append, **kwargs
    )
    return model, sleeps


def closed_port_url() -> str:
    with socket.socket() as sock:  # a port that was free a moment ago: nobody listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# --- happy path -------------------------------------------------------------------------


def test_text_answer_finish_reason_and_usage() -> None:
    counts = {"prompt_tokens": 30, "completion_tokens": 4, "total_tokens": 34}
    usage = {**counts, "cost": 0.0001, "prompt_tokens_details": {"cached_tokens": 0}}
    reply = text_reply("Bonjour !", finish_reason="length", usage=usage)
    reply["choices"][0]["message"]["reasoning"] = "Je salue."  # kept: it goes back (RULE 1)
    model, _, _ = mocked(httpx.Response(200, json=reply))
    completion = model.complete(USER, [])
    assert completion.message == {"role": "assistant", "content": "Bonjour !",
                                  "reasoning": "Je salue."}
    assert completion.reasoning == "Je salue." and completion.text == "Bonjour !"
    assert completion.finish_reason == "length"
    assert completion.usage == counts  # token counts only; the details are not counts
    assert completion.cost == 0.0001  # OpenRouter's own price of the call
    assert completion.tool_calls == []


def test_tool_calls_come_back_in_canonical_shape() -> None:
    reply = tool_reply(("read_file", {"path": "README.md"}))
    call = reply["choices"][0]["message"]["tool_calls"][0]
    call["index"] = 0  # some providers add this: kept, it goes back to them (RULE 1)
    call["function"]["arguments"] = {"path": "README.md"}  # and a few send an object
    model, _, _ = mocked(httpx.Response(200, json=reply))
    completion = model.complete(USER, [READ_FILE])
    assert completion.message["content"] is None
    assert completion.finish_reason == "tool_calls"
    assert completion.tool_calls == [
        {
            "id": call["id"],
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "README.md"}'},
            "index": 0,
        }
    ]
    assert completion.notes == ["tool_calls[0].function.arguments : objet écrit en texte JSON"]


@pytest.mark.parametrize("missing", [{"id": ""}, {"id": None}, {}])
def test_a_call_without_id_gets_a_local_one_its_result_can_answer(missing: dict[str, Any]
                                                                  ) -> None:
    reply = tool_reply(("read_file", {"path": "a"}), ("read_file", {"path": "b"}))
    for call in reply["choices"][0]["message"]["tool_calls"]:
        call.pop("id")
        call.update(missing)
    model, _, _ = mocked(httpx.Response(200, json=reply))
    completion = model.complete([*USER, *USER], [READ_FILE])  # the reply will be messages[2]
    assert [c["id"] for c in completion.tool_calls] == ["call_2_0", "call_2_1"]
    assert "id local call_2_0" in completion.notes[0]


def test_request_on_the_wire_and_redacted_record() -> None:
    model, sent, _ = mocked(httpx.Response(200, json=text_reply("a")), base_url="http://h/v1/")
    messages = list(CONVERSATION)
    completion = model.complete(messages, [READ_FILE])
    request = sent[0]
    assert (request.method, str(request.url)) == ("POST", "http://h/v1/chat/completions")
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.headers["X-Title"] == "La boucle agentique"
    body = {"model": "test/model", "messages": CONVERSATION, "tools": [READ_FILE]}
    assert json.loads(request.content) == body
    assert completion.request["url"] == "http://h/v1/chat/completions"
    assert completion.request["headers"]["Authorization"] == "Bearer ***"
    messages.append({"role": "user", "content": "Et ensuite ?"})  # the loop goes on...
    assert completion.request["body"] == body  # ...the record keeps what was sent


def test_no_tools_key_when_there_are_no_tools() -> None:
    model, sent, _ = mocked(httpx.Response(200, json=text_reply("a")))
    model.complete(USER, [])
    assert json.loads(sent[0].content) == {"model": "test/model", "messages": USER}


def test_model_name_argument_then_env_then_default(monkeypatch: pytest.MonkeyPatch) -> None:
    assert OpenRouterModel(api_key=KEY).name == DEFAULT_MODEL
    monkeypatch.setenv("HARNESS_MODEL", "env/model")
    assert OpenRouterModel(api_key=KEY).name == "env/model"
    assert OpenRouterModel("arg/model", api_key=KEY).name == "arg/model"


def test_cost_uses_the_price_per_million_tokens() -> None:
    priced = OpenRouterModel(api_key=KEY, price=(0.15, 0.60))
    unpriced = OpenRouterModel("test/model", api_key=KEY)  # in no price table
    assert cost(priced.price, 1_000_000, 500_000) == pytest.approx(0.45)
    assert unpriced.price is None and cost(unpriced.price, 1_000_000, 500_000) == 0.0


# --- the key ----------------------------------------------------------------------------


@pytest.mark.parametrize("key", [None, "", "   "])
def test_missing_key_explains_how_to_get_one(key: str | None) -> None:
    with pytest.raises(MissingKey) as info:
        OpenRouterModel(api_key=key)
    assert "openrouter.ai/keys" in info.value.explication
    assert "OPENROUTER_API_KEY" in info.value.explication
    assert "simulé" in info.value.explication


def test_key_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY + "\n")  # pasted with a newline
    sent: list[httpx.Request] = []

    def server(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=text_reply("a"))

    model = OpenRouterModel(transport=httpx.MockTransport(server))
    model.complete(USER, [])
    assert sent[0].headers["Authorization"] == f"Bearer {KEY}"


def test_key_with_a_stray_character_is_refused_without_showing_it() -> None:
    with pytest.raises(MissingKey) as info:
        OpenRouterModel(api_key=f"“{KEY}”")
    assert KEY not in str(info.value) + info.value.explication


def test_key_never_leaks(fake_openai: FakeServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # httpx and httpcore log requests at DEBUG
    model, _ = on_fake(fake_openai, max_retries=0)
    fake_openai.push(tool_reply(("read_file", {"path": "README.md"})))
    completion = model.complete(CONVERSATION, [READ_FILE])
    shown = [repr(model), str(model), repr(completion), json.dumps(completion.request)]
    fake_openai.push(error_body("Invalid API key", 401), status=401)
    raw = {"error": {"message": "bad"}}
    fake_openai.push(error_body("Provider returned error", raw=raw), status=400)
    fake_openai.push(drop=True)
    fake_openai.push("{not json")
    fake_openai.push(text_reply("tard"), delay=2.0)
    for timeout in (5.0, 5.0, 5.0, 5.0, 0.3):
        with pytest.raises((ApiError, ModelTimeout)) as info:  # the last one: no answer at all
            model.complete(USER, [], timeout=timeout)
        error = info.value
        body = error.body if isinstance(error, ApiError) else {}
        shown += [str(error), repr(error), error.explication, json.dumps(body)]
        shown.append("".join(traceback.format_exception(error)))
    # The key did travel, in the Authorization header only.
    assert {r.headers["authorization"] for r in fake_openai.requests} == {f"Bearer {KEY}"}
    assert len(shown) == 29 and all(KEY not in text for text in shown)
    assert KEY not in caplog.text and "chat/completions" in caplog.text


# --- HTTP errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (400, "refusée"),
        (401, "Clé d’API invalide"),
        (402, "crédits"),
        (403, "modération"),
        (404, "introuvable"),
        (408, "délai"),
        (429, "Trop de requêtes"),
        (500, "indisponible"),
        (502, "indisponible"),
        (503, "indisponible"),
        (418, "HTTP 418"),
    ],
)
def test_http_errors_are_explained(fake_openai: FakeServer, status: int, words: str) -> None:
    model, _ = on_fake(fake_openai, max_retries=0)
    fake_openai.push(error_body(f"Erreur {status} du fournisseur", status), status=status)
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert info.value.status == status
    assert info.value.message == f"Erreur {status} du fournisseur"
    assert words in info.value.explication
    assert info.value.body == error_body(f"Erreur {status} du fournisseur", status)


def test_400_shows_the_provider_message_from_metadata_raw(fake_openai: FakeServer) -> None:
    text = "messages.2: `tool_use` ids were found without `tool_result` blocks"
    raw = {"type": "error", "error": {"type": "invalid_request_error", "message": text}}
    fake_openai.push(error_body("Provider returned error", 400, raw=raw), status=400)
    model, _ = on_fake(fake_openai)
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert info.value.message == text and text in info.value.explication
    assert info.value.body["error"]["metadata"]["raw"] == json.dumps(raw)  # body kept as is
    assert len(fake_openai.chat_requests) == 1  # a 400 is never retried


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"error": {"message": "outer", "metadata": {"raw": "plain text"}}}, "plain text"),
        ({"error": {"message": "outer", "metadata": {"raw": {"message": "dict"}}}}, "dict"),
        ({"error": {"message": "outer", "metadata": {"raw": '[{"error": "g"}]'}}}, "g"),
        ({"error": {"message": "outer", "metadata": {"raw": "", "provider_name": "X"}}}, "outer"),
        ({"error": {"message": "outer", "metadata": None}}, "outer"),
        ({"object": "error", "message": "vLLM flat", "code": 400}, "vLLM flat"),
        ({"error": "model 'x' not found"}, "model 'x' not found"),
        ({"error": {"code": 400}}, None),
        ({}, None),
    ],
)
def test_innermost_message(body: dict[str, Any], expected: str | None) -> None:
    assert innermost_message(body) == expected


def test_html_error_page_keeps_its_text(fake_openai: FakeServer) -> None:
    """Its words, summarised: never the raw HTML (the body keeps it, for --debug)."""
    fake_openai.push("<html>502 Bad Gateway</html>", status=502)
    model, _ = on_fake(fake_openai, max_retries=0)
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert (info.value.status, info.value.message) == (502, "page HTML\u00a0: 502 Bad Gateway")
    assert "<" not in str(info.value) + info.value.explication
    assert info.value.body == {"text": "<html>502 Bad Gateway</html>"}


# --- retries ----------------------------------------------------------------------------


def test_429_waits_as_told_then_succeeds() -> None:
    limited = httpx.Response(
        429, json=error_body("Rate limited", 429), headers={"Retry-After": "2"}
    )
    model, sent, sleeps = mocked(limited, httpx.Response(200, json=text_reply("enfin")))
    assert model.complete(USER, []).message["content"] == "enfin"
    assert (len(sent), sleeps) == (2, [2.0])


def test_without_retry_after_the_wait_doubles(fake_openai: FakeServer) -> None:
    fake_openai.push(error_body("Rate limited", 429), status=429)
    fake_openai.push(error_body("Overloaded", 503), status=503)
    fake_openai.push(error_body("Bad gateway", 502), status=502)
    fake_openai.push(text_reply("enfin"))
    model, sleeps = on_fake(fake_openai)
    assert model.complete(USER, []).message["content"] == "enfin"
    assert sleeps == [1.0, 2.0, 4.0]


def test_retry_after_as_an_http_date_and_the_cap() -> None:
    soon = email.utils.formatdate(time.time() + 10, usegmt=True)
    model, _, sleeps = mocked(
        httpx.Response(503, headers={"Retry-After": soon}),
        httpx.Response(429, headers={"Retry-After": "3600"}),
        httpx.Response(200, json=text_reply("ok")),
    )
    model.complete(USER, [])
    assert 5.0 < sleeps[0] <= 10.0 and sleeps[1] == 30.0


def test_retries_exhausted(fake_openai: FakeServer) -> None:
    for _ in range(3):
        fake_openai.push(error_body("Rate limited", 429), status=429, headers={"Retry-After": "1"})
    model, sleeps = on_fake(fake_openai, max_retries=2)
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert (info.value.status, info.value.retry_after) == (429, 1.0)
    assert len(fake_openai.chat_requests) == 3 and sleeps == [1.0, 1.0]


@pytest.mark.parametrize("status", [400, 401, 402, 403, 408, 500])
def test_other_errors_are_not_retried(status: int) -> None:
    model, sent, sleeps = mocked(httpx.Response(status, json=error_body("non", status)))
    with pytest.raises(ApiError):
        model.complete(USER, [])
    assert (len(sent), sleeps) == (1, [])


# --- no answer, or a broken one --------------------------------------------------------


def test_connection_refused() -> None:
    model = OpenRouterModel(api_key=KEY, base_url=closed_port_url())
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert info.value.status is None and type(info.value) is ApiError
    assert "Impossible de joindre" in info.value.explication


def test_connection_error_with_mock_transport() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    model, _, sleeps = mocked(refuse)
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert info.value.status is None and "Connection refused" in info.value.message
    assert sleeps == []  # no retry on connection errors


def test_model_timeout(fake_openai: FakeServer) -> None:
    fake_openai.push(text_reply("trop tard"), delay=2.0)
    model, _ = on_fake(fake_openai)
    with pytest.raises(ModelTimeout) as info:
        model.complete(USER, [], timeout=0.3)
    assert info.value.timeout == 0.3 and "0,3 s" in info.value.explication
    assert len(fake_openai.chat_requests) == 1  # a timeout is not retried


@pytest.mark.parametrize("fault", [{"drop": True}, {"truncate": 20}])
def test_connection_cut(fake_openai: FakeServer, fault: dict[str, Any]) -> None:
    fake_openai.push(text_reply("coupé"), **fault)
    model, _ = on_fake(fake_openai)
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert info.value.status is None and "interrompue" in info.value.explication


@pytest.mark.parametrize(
    "body", ['{"choices": [{"message": {"role": "assis', "<html>ok</html>", ""]
)
def test_body_that_is_not_json(fake_openai: FakeServer, body: str) -> None:
    fake_openai.push(body)
    model, _ = on_fake(fake_openai)
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert info.value.status == 200 and "pas du JSON valide" in info.value.explication
    assert info.value.body == {"text": body}


@pytest.mark.parametrize(
    "body",
    [
        {},
        [],
        {"choices": None},
        {"choices": []},
        {"choices": [{"finish_reason": "stop"}]},
        {"choices": [{"message": "Bonjour"}]},
        {"choices": {"0": {"message": {"role": "assistant", "content": "?"}}}},
    ],
)
def test_reply_without_choices(body: Any) -> None:
    model, _, _ = mocked(httpx.Response(200, json=body))
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert info.value.status == 200 and "choices" in info.value.explication


def test_error_inside_a_200_reply(fake_openai: FakeServer) -> None:
    fake_openai.push(error_body("Invalid tool schema", 400))  # with HTTP 200
    model, sleeps = on_fake(fake_openai)
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert (info.value.status, info.value.message) == (400, "Invalid tool schema")
    assert info.value.explication.startswith("Le fournisseur a répondu 200, mais avec une erreur.")
    assert sleeps == [] and len(fake_openai.chat_requests) == 1  # not transient: no retry


@pytest.mark.parametrize("code", [429, 502, 503])
def test_a_transient_error_inside_a_200_is_retried_like_http(fake_openai: FakeServer,
                                                             code: int) -> None:
    fake_openai.push(error_body("Upstream provider crashed", code))  # with HTTP 200
    fake_openai.push(text_reply("Bonjour"))
    model, sleeps = on_fake(fake_openai)
    assert model.complete(USER, []).text == "Bonjour"
    assert sleeps == [1.0] and len(fake_openai.chat_requests) == 2


def reply_with(message: Any, **choice: Any) -> bytes:
    return json.dumps({"choices": [{"message": message, **choice}]}).encode()


# Every shape a 200 reply may take that cannot enter messages[]: an ApiError that says what.
MALFORMED = {
    "tool_calls-string": ({"role": "assistant", "tool_calls": "read_file"}, "tool_calls est"),
    "tool_calls-object": ({"tool_calls": {"id": "c"}}, "tool_calls est un objet"),
    "function-string": ({"tool_calls": [{"id": "c", "function": "read_file"}]}, "sans objet"),
    "call-not-object": ({"tool_calls": [7]}, "tool_calls[0] sans objet function"),
    "no-name": ({"tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}, "sans nom"),
    "name-number": ({"tool_calls": [{"id": "c", "function": {"name": 3}}]}, "sans nom d’outil"),
    "type-custom": ({"tool_calls": [{"id": "c", "type": "custom", "function": {"name": "x"}}]},
                    "type vaut"),
    "content-number": ({"content": 42}, "content est un nombre"),
    "content-bool": ({"content": True}, "content est un booléen"),
    "content-list": ({"content": ["a"]}, "une partie n’est pas un objet"),
    "content-object": ({"content": {"text": "a"}}, "content est un objet"),
    "role-user": ({"role": "user", "content": "a"}, "au lieu de assistant"),
}


@pytest.mark.parametrize("message, words", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_200_reply_is_an_api_error_saying_what(message: Any, words: str) -> None:
    model, _, _ = mocked(httpx.Response(200, content=reply_with(message)))
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert info.value.status == 200 and words in info.value.explication
    assert "mal formé" in info.value.explication


@pytest.mark.parametrize("body", [
    b'{"choices": [{"message": {"content": NaN}}]}',
    b'{"choices": [{"message": {"content": "a"}}], "usage": {"prompt_tokens": Infinity}}',
    b'{"choices": [{"message": {"content": "\\ud800 seul"}}]}',  # a lone surrogate
    b'{"choices": [{"message": {"content": "caf\xe9"}}]}',  # latin-1, not UTF-8
    ("[" * 5000 + "]" * 5000).encode(),  # deeper than the decoder can go
    b'{"choices": ' + b"[" * 100 + b"]" * 100 + b"}",  # decodable, too deep to walk safely
], ids=["nan", "infinity", "surrogate", "latin1", "too-deep-to-decode", "too-deep-to-walk"])
def test_bodies_json_does_not_allow_are_api_errors(body: bytes) -> None:
    model, _, _ = mocked(httpx.Response(200, content=body))
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert info.value.status == 200 and "pas du JSON valide" in info.value.explication


def test_a_lying_content_encoding_is_an_api_error() -> None:
    body = reply_with({"role": "assistant", "content": "ok"})
    # A stream: httpx decodes it only when our client reads it, as with a real server.
    lying = httpx.Response(200, stream=httpx.ByteStream(body), headers={"Content-Encoding": "gzip"})
    model, _, _ = mocked(lying)
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert info.value.status is None and "Content-Encoding" in info.value.explication


@pytest.mark.parametrize("finish", ["stop", "length", "content_filter"])
def test_a_reply_without_text_or_call_stays_a_valid_message(finish: str) -> None:
    model, _, _ = mocked(httpx.Response(200, content=reply_with({"role": "assistant",
                                                                 "content": None},
                                                                finish_reason=finish)))
    completion = model.complete(USER, [])
    assert completion.message == {"role": "assistant", "content": ""}  # not null: valid
    assert completion.finish_reason == finish


def test_finish_reason_error_is_an_api_error() -> None:
    body = reply_with({"role": "assistant", "content": "Le pro"}, finish_reason="error")
    model, _, _ = mocked(httpx.Response(200, content=body))
    with pytest.raises(ApiError, match="finish_reason"):
        model.complete(USER, [])


def test_the_key_quoted_back_in_a_200_reply_never_enters_messages() -> None:
    call = {"id": "c1", "type": "function",
            "function": {"name": "read_file", "arguments": json.dumps({"path": KEY})}}
    body = reply_with({"role": "assistant", "content": f"Votre clé : {KEY}", "tool_calls": [call]})
    model, _, _ = mocked(httpx.Response(200, content=body))
    completion = model.complete(USER, [READ_FILE])
    assert KEY not in json.dumps(completion.message) + repr(completion)
    assert completion.message["content"] == "Votre clé : ***"
    assert completion.tool_calls[0]["function"]["arguments"] == '{"path": "***"}'


def test_the_key_quoted_back_as_finish_reason_or_usage_never_reaches_the_trace() -> None:
    # Found by the fuzzer (test_fuzz_replies.py): finish_reason and usage go into the trace.
    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "Fini."},
                                    "finish_reason": KEY}], "usage": {KEY: 3}}).encode()
    model, _, _ = mocked(httpx.Response(200, content=body))
    completion = model.complete(USER, [])
    assert KEY not in repr(completion) and completion.finish_reason == "***"


def test_waits_between_tries_add_up_within_the_timeout() -> None:
    # Three 429s asking for 1 s each, and 2.5 s allowed for the whole call: two waits fit,
    # the third would end past the limit, so the call stops there (real sleeps).
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    busy = httpx.Response(429, json=error_body("Slow down", 429), headers={"Retry-After": "1"})
    sent = []
    transport = httpx.MockTransport(lambda request: sent.append(request) or busy)
    model = OpenRouterModel("m", api_key=KEY, transport=transport, sleep=sleep)
    with pytest.raises(ApiError) as info:
        model.complete(USER, [], timeout=2.5)
    assert waits == [1.0, 1.0] and len(sent) == 3
    assert "dépasserait le délai de 2,5 s" in info.value.explication


def test_a_request_json_cannot_write_is_refused_before_sending() -> None:
    model, sent, _ = mocked(httpx.Response(200, json=text_reply("ok")))
    for bad in (float("nan"), "\udce9", object()):
        with pytest.raises(ApiError, match="request is not JSON"):
            model.complete([{"role": "user", "content": bad}], [])
    assert sent == []


# --- the wire format is the real one (openai's client and types) -------------------------


def materialise(value: Any) -> Any:
    """pydantic checks `Iterable` fields lazily: walking them runs the checks."""
    if isinstance(value, dict):
        return {key: materialise(item) for key, item in value.items()}
    if isinstance(value, (list, Iterator)):
        return [materialise(item) for item in value]
    return value


def test_our_request_body_matches_openai_types() -> None:
    params = pytest.importorskip("openai.types.chat.completion_create_params")
    adapter = pytest.importorskip("pydantic").TypeAdapter(params.CompletionCreateParamsNonStreaming)
    model, _, _ = mocked(httpx.Response(200, json=text_reply("a")))
    body = model.complete(CONVERSATION, [READ_FILE]).request["body"]
    # Unknown keys would be silently dropped: equality proves every key is a known one.
    assert materialise(adapter.validate_python(body)) == body
    broken = {**body, "messages": [{"role": "robot", "content": "?"}]}
    with pytest.raises(ValueError):
        materialise(adapter.validate_python(broken))


def test_openai_client_and_our_model_send_the_same_thing(fake_openai: FakeServer) -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=fake_openai.url, api_key="test", max_retries=0)
    fake_openai.push(tool_reply(("read_file", {"path": "README.md"})))
    reply = client.chat.completions.create(
        model="test/model", messages=CONVERSATION, tools=[READ_FILE]
    )
    call = reply.choices[0].message.tool_calls[0]
    assert (call.function.name, json.loads(call.function.arguments)) == (
        "read_file",
        {"path": "README.md"},
    )
    assert reply.usage is not None and reply.usage.total_tokens == 17
    model, _ = on_fake(fake_openai)
    model.complete(CONVERSATION, [READ_FILE])
    theirs, ours = fake_openai.chat_requests
    assert (ours.method, ours.path, ours.body) == (theirs.method, theirs.path, theirs.body)
    assert ours.headers["content-type"] == theirs.headers["content-type"] == "application/json"


def test_fake_server_speaks_openai(fake_openai: FakeServer) -> None:
    openai = pytest.importorskip("openai")
    for body in (text_reply("Bonjour"), tool_reply(("a", {}), ("b", {"x": 1}), content="Je lis")):
        openai.types.chat.ChatCompletion.model_validate(body)
    client = openai.OpenAI(base_url=fake_openai.url, api_key="test", max_retries=0)
    assert [m.id for m in client.models.list()] == ["fake/model"]
    reply = client.chat.completions.create(model="m", messages=USER)  # the default reply
    assert reply.choices[0].message.content == "ok"
    fake_openai.push(error_body("Rate limited", 429), status=429)
    with pytest.raises(openai.RateLimitError):
        client.chat.completions.create(model="m", messages=USER)


def test_module_doctests() -> None:
    assert doctest.testmod(openrouter).failed == 0
