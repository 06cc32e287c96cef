"""Real traffic, replayed: replies and error bodies that real providers sent, nobody here wrote.

tests/data/real_traffic/ holds recorded answers of OpenAI, OpenRouter (and Anthropic,
Google, Mistral... behind it), Gemini's OpenAI-compatible endpoint, Mistral, DeepSeek,
Groq, Ollama and others: the VCR cassettes of pydantic-ai (its recorded HTTP traffic),
and error bodies quoted in public issues. Each sample names its `source`. Each is
served by `httpx.MockTransport` to a real `OpenRouterModel`, and through `run()`:
tool calls run, answers are kept, errors end in a named stop with the provider's words
and a French explanation that leads to the fix, and the assistant message goes back
to the provider with every field it sent (RULE 1).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from real_traffic import (
    BY_NAME,
    ERRORS,
    KEY,
    SAMPLES,
    Provider,
    answers,
    recorded_messages,
    replay,
)

from harness_lib.models.model import REASONING_FIELDS


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(p["text"] for p in content if p.get("type") == "text")
    return content or ""


def assert_sent_back_whole(sent: dict[str, Any], recorded: dict[str, Any]) -> None:
    """Every field the provider sent is in the next request, unchanged (RULE 1); the only
    changes are the documented ones: a local id where it gave none."""
    for field, value in recorded.items():
        if field != "tool_calls" and not (field == "content" and value is None and
                                          not recorded.get("tool_calls")):
            assert sent[field] == value, field
    for call, original in zip(sent.get("tool_calls") or [], recorded.get("tool_calls") or [],
                              strict=True):
        for field, value in original.items():
            if field == "function":  # `arguments` missing or an object: sent as JSON text
                assert {**call[field], **value} == call[field], value
                assert isinstance(call[field]["arguments"], str)
            elif field != "id" or value:
                assert call[field] == value, field
        assert call["id"]  # a local id where the provider gave none


def test_the_corpus_has_forty_samples_from_six_providers_each_with_its_source() -> None:
    assert len(SAMPLES) >= 40
    assert len({sample["provider"] for sample in SAMPLES}) >= 6
    assert len(BY_NAME) == len(SAMPLES)  # each name once: a failure names its sample
    for sample in SAMPLES:  # a recording's public source; a body rebuilt from docs says so
        assert sample["source"].startswith("https://github.com/") or (
            sample.get("reconstructed")), sample["name"]


TOOL_SAMPLES = [s for s in SAMPLES if any(m.get("tool_calls") for m in recorded_messages(s))]
ANSWERS = [s for s in SAMPLES if s not in TOOL_SAMPLES + ERRORS and not s.get("legacy")]


@pytest.mark.parametrize("sample", TOOL_SAMPLES, ids=[s["name"] for s in TOOL_SAMPLES])
def test_recorded_tool_calls_run_and_their_message_goes_back_whole(sample: dict[str, Any]
                                                                   ) -> None:
    result, provider = replay(sample)
    assert result.reason == "answer", result.message
    ran = [e.data["tool"] for e in result.trace.events if e.kind == "tool_call"]
    asked = [c["function"]["name"] for m in recorded_messages(sample)
             for c in m.get("tool_calls") or []]
    assert ran == asked  # every call ran, in order
    sent = provider.requests[-1]["messages"]  # the last request carries the whole story
    assistants = [m for m in sent if m["role"] == "assistant"]
    # The recorded final answer, if any, is never sent back: it ends the run.
    with_calls = [m for m in recorded_messages(sample) if m.get("tool_calls")]
    for message, original in zip(assistants, with_calls, strict=True):
        assert_sent_back_whole(message, original)
        results = [m["tool_call_id"] for m in sent if m["role"] == "tool"]
        assert {c["id"] for c in message.get("tool_calls") or []} <= set(results)  # RULE 2


@pytest.mark.parametrize("sample", ANSWERS, ids=[s["name"] for s in ANSWERS])
def test_recorded_answers_are_kept_with_their_reasoning_and_cost(sample: dict[str, Any]) -> None:
    result, provider = replay(sample)
    recorded = recorded_messages(sample)[-1]
    cut = sample["body"]["choices"][0]["finish_reason"] == "length"
    assert result.reason == ("length" if cut else "answer"), result.message
    if not cut:
        assert result.message == text_of(recorded)  # the text, never the thinking
    reply = next(e for e in result.trace.events if e.kind == "reply")
    assert_sent_back_whole(reply.message or {}, recorded)
    shown = [recorded.get(f) for f in REASONING_FIELDS if recorded.get(f)]
    thinking = isinstance(recorded.get("content"), list)
    assert bool(reply.data.get("reasoning")) == bool(shown or thinking)
    cost = (sample["body"].get("usage") or {}).get("cost")
    assert reply.data["cost_from"] == ("provider" if cost is not None else "price" if
                                       reply.data["cost"] else "unknown")
    if cost is not None:
        assert reply.data["cost"] == cost


@pytest.mark.parametrize("sample", ERRORS, ids=[s["name"] for s in ERRORS])
def test_recorded_errors_stop_with_the_provider_words_and_the_way_out(sample: dict[str, Any]
                                                                      ) -> None:
    result, provider = replay(sample)
    assert KEY not in str(result.trace.events) + result.message
    if sample.get("transient"):  # retried like any 429, then the run answers
        assert (result.reason, len(provider.requests)) == ("answer", 2)
        return
    assert result.reason == "api_error"
    assert sample["explains"] in result.message
    assert str(sample["status"]) in result.message or "HTTP 200" in result.message
    assert "<" not in result.message  # an HTML page is summarised, never shown raw
    assert len(provider.requests) == 1  # not transient: asked once


def test_a_reasoning_model_s_three_recorded_calls_complete_with_its_reasoning_sent_back() -> None:
    """DeepSeek's thinking mode answers 400 when `reasoning_content` does not come back:
    this provider checks it, with DeepSeek's own words, and the run still completes."""
    sample = BY_NAME["deepseek-reasoner-three-calls"]
    refusal = BY_NAME["deepseek-400-reasoning-content-not-passed-back"]["body"]

    class DeepSeek(Provider):
        def __call__(self, request: httpx.Request) -> httpx.Response:
            body = json.loads(request.content)
            if any(m["role"] == "assistant" and "reasoning_content" not in m
                   for m in body["messages"]):
                self.requests.append(body)
                return httpx.Response(400, json=refusal)
            return super().__call__(request)

    result, provider = replay(sample, DeepSeek(answers(sample)))
    assert result.reason == "answer" and "Anne" in result.message
    assert len(provider.requests) == 3
    thoughts = [m["reasoning_content"] for m in recorded_messages(sample)]
    for k, request in enumerate(provider.requests[1:], start=1):
        sent = [m["reasoning_content"] for m in request["messages"] if m["role"] == "assistant"]
        assert sent == thoughts[:k]  # each past reasoning, word for word


def test_gemini_s_empty_call_id_is_paired_and_its_signature_goes_back() -> None:
    sample = BY_NAME["gemini-tool-call-with-empty-id-then-answer"]
    result, provider = replay(sample)
    assert result.reason == "answer" and result.message == "The current time is Noon."
    call, answer = provider.requests[1]["messages"][-2:]
    assert call["tool_calls"][0]["id"] == answer["tool_call_id"] == "call_2_0"
    assert call["extra_content"] == recorded_messages(sample)[0]["extra_content"]
    reply = next(e for e in result.trace.events if e.kind == "reply")
    assert reply.data["notes"] == ["tool_calls[0] sans id : id local call_2_0"]
