"""Whatever a server answers, run() returns a Run: a property test on OpenRouterModel.

The reply body is arbitrary JSON (shaped like a completion or not, with NaN, lone
surrogates, deep nesting, the key quoted back), arbitrary bytes under any
Content-Encoding, or any exception httpx can raise. After each, the same invariants:
run() returned with a named stop, messages[] is a conversation the API accepts, the
trace saves to JSON lines (valid UTF-8) and loads back unchanged, and the key is
nowhere in messages[], the trace or the stop message.
"""

from __future__ import annotations

import gzip
import inspect
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness_lib import Limits, Run, Trace, check_conversation, run, workspace_tools
from harness_lib.models.openrouter import OpenRouterModel

KEY = "sk-or-v1-" + "9e8d7c6b5a493827" * 4
REASONS = {"answer", "api_error", "timeout", "length", "content_filter", "max_turns",
           "failures", "denied", "human", "budget"}
LIMITS = Limits(max_turns=2, model_timeout=5.0, tool_timeout=5.0)

scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
           | st.text() | st.just(KEY) | st.just("\ud800") | st.sampled_from(
               ["read_file", "list_files", "call_1", "function", "assistant", "stop",
                "length", "content_filter", "error", '{"path": "README.md"}']))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=12) | st.sampled_from(
                               ["id", "type", "function", "name", "arguments", "content",
                                "role", "tool_calls", "message", "finish_reason", "usage",
                                "error", "code"]), inner, max_size=5), max_leaves=25)
calls = st.fixed_dictionaries({}, optional={
    "id": json_values, "type": json_values, "index": json_values,
    "function": st.fixed_dictionaries({}, optional={"name": json_values,
                                                    "arguments": json_values}) | json_values})
messages = st.fixed_dictionaries({}, optional={
    "role": json_values, "content": json_values,
    "tool_calls": st.lists(calls | json_values, max_size=3) | json_values})
replies = st.fixed_dictionaries({"choices": st.lists(st.fixed_dictionaries(
    {"message": messages | json_values}, optional={"finish_reason": json_values}),
    max_size=2) | json_values}, optional={"usage": json_values, "error": json_values})
deep = st.integers(1, 3000).map(lambda n: "[" * n + "]" * n)


def serve(body: bytes, headers: dict[str, str] | None = None) -> httpx.MockTransport:
    """A server answering `body` with `headers`, read (and decoded) by the client only."""
    return httpx.MockTransport(lambda request: httpx.Response(
        200, stream=httpx.ByteStream(body), headers=headers or {}))


def mission(tmp_path: Path, transport: httpx.BaseTransport) -> Run:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    (root / "README.md").write_text("# Mini\n", encoding="utf-8")
    tools = [t for t in workspace_tools(root) if t.name in ("read_file", "list_files")]
    model = OpenRouterModel("fake/model", api_key=KEY, transport=transport,
                            sleep=lambda s: None)
    result = run("Lis README.md", model, tools, limits=LIMITS)  # never raises
    assert_nothing_lost(result, tmp_path)
    return result


def assert_nothing_lost(result: Run, tmp_path: Path) -> None:
    assert result.reason in REASONS and isinstance(result.message, str)
    # RULE 1 sends a provider's message back whole: a content part of its own type (Mistral's
    # `thinking`) is OpenAI's 400, not that provider's. Any other problem is ours.
    assert [p for p in check_conversation(result.messages)
            if not (p.code == "invalid_value" and p.field.startswith("content[")
                    and result.messages[p.index].get("role") == "assistant")] == []
    path = tmp_path / "trace.jsonl"
    result.trace.save(path)
    saved = path.read_bytes()
    saved.decode("utf-8")  # valid UTF-8, whatever the server sent
    loaded = Trace.load(path)
    assert [asdict(e) for e in loaded.events] == [asdict(e) for e in result.trace.events]
    assert loaded.messages == result.messages
    assert KEY not in saved.decode("utf-8") + result.message + json.dumps(result.messages)


FUZZ = settings(max_examples=150,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@FUZZ
@given(body=replies | json_values)
def test_any_json_reply_ends_in_a_run(tmp_path: Path, body: Any) -> None:
    # json.dumps writes NaN and Infinity as Python does (not JSON), and a lone surrogate as
    # "\ud800": JSON text that Python decodes, and no UTF-8 encoder can write back.
    mission(tmp_path, serve(json.dumps(body).encode()))


@FUZZ
@given(body=st.binary(max_size=300) | deep.map(str.encode),
       encoding=st.sampled_from([None, "gzip", "deflate", "br", "zstd", "identity", "x"]),
       gzipped=st.booleans())
def test_any_bytes_under_any_content_encoding_end_in_a_run(
    tmp_path: Path, body: bytes, encoding: str | None, gzipped: bool
) -> None:
    data = gzip.compress(body) if gzipped else body  # the header may tell the truth, or lie
    mission(tmp_path, serve(data, {"Content-Encoding": encoding} if encoding else {}))


def httpx_errors() -> list[type[Exception]]:
    return sorted((c for c in vars(httpx).values() if inspect.isclass(c)
                   and issubclass(c, Exception)), key=lambda c: c.__name__)


@pytest.mark.parametrize("error", httpx_errors(), ids=lambda c: c.__name__)
def test_every_httpx_exception_is_a_clean_stop(tmp_path: Path, error: type[Exception]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        parameters = inspect.signature(error).parameters
        given = {"message": "boom", "request": request, "response": httpx.Response(500)}
        raise error(**{name: given[name] for name in parameters if name in given})

    result = mission(tmp_path, httpx.MockTransport(handler))
    expected = "timeout" if issubclass(error, httpx.TimeoutException) else "api_error"
    assert result.reason == expected and result.message.startswith("Arrêt : ")
