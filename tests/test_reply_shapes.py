"""The documented reply shapes no recording of the corpus has: a refusal, several choices,
an error body that is a JSON list, a dollar budget paid in `usage.cost`, max_tokens, prices,
and the mock and the real path agreeing on what cannot be sent."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from harness_lib import MockModel, run
from harness_lib.errors import ApiError
from harness_lib.limits import Limits
from harness_lib.models.http_errors import http_error
from harness_lib.models.openrouter import OpenRouterModel

USER = [{"role": "user", "content": "Salut"}]


def model_on(*bodies: Any, status: int = 200, **kwargs: Any
             ) -> tuple[OpenRouterModel, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    queue = list(bodies)

    def server(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(status, json=queue.pop(0) if queue else {})

    kwargs.setdefault("model", "test/model")
    return OpenRouterModel(kwargs.pop("model"), api_key="sk-test", sleep=lambda s: None,
                           transport=httpx.MockTransport(server), **kwargs), sent


def choice(message: dict[str, Any], finish: str = "stop", **body: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": message, "finish_reason": finish}], **body}


# OpenAI's refusal shape (its structured-outputs guide): `refusal` set, `content` null.
REFUSAL = {"role": "assistant", "content": None, "refusal": "I'm sorry, I cannot assist with that."}


def test_a_refusal_is_a_named_stop_with_the_provider_words_not_an_empty_answer() -> None:
    model, sent = model_on(choice(REFUSAL))
    result = run("Mission", model, [])
    assert result.reason == "refusal"
    assert "I'm sorry, I cannot assist with that." in result.message
    assert result.messages[-1]["refusal"] == REFUSAL["refusal"]  # kept: it goes back


def test_a_refusal_part_of_the_content_is_read_too() -> None:
    parts = {"role": "assistant", "content": [{"type": "refusal", "refusal": "Non."}]}
    model, _ = model_on(choice(parts))
    assert model.complete(USER, []).refusal == "Non."


def test_several_choices_keep_the_first_and_say_so() -> None:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Un"}},
                        {"index": 1, "message": {"role": "assistant", "content": "Deux"}}]}
    model, _ = model_on(body)
    completion = model.complete(USER, [])
    assert completion.text == "Un"
    assert completion.notes == ["2 choix reçus : seul le premier entre dans messages[]"]


def test_a_choice_that_ends_on_error_keeps_the_provider_message_and_code() -> None:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Dé"},
                         "finish_reason": "error",
                         "error": {"code": 400, "message": "Context length exceeded"}}]}
    model, sent = model_on(body)
    with pytest.raises(ApiError) as info:
        model.complete(USER, [])
    assert (info.value.status, info.value.message) == (400, "Context length exceeded")
    assert len(sent) == 1


def test_an_error_body_that_is_a_json_list_is_read_not_shown_raw() -> None:
    body = json.dumps([{"error": {"code": 400, "message": "Invalid JSON payload received.",
                                  "status": "INVALID_ARGUMENT"}}])
    error = http_error(400, body)
    assert error.message == "Invalid JSON payload received."
    assert error.explication == "Requête refusée par l’API : Invalid JSON payload received."


def test_usage_cost_is_the_bill_and_stops_a_dollar_budget() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "nope", "arguments": "{}"}}
    paid = choice({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls",
                  usage={"prompt_tokens": 10, "completion_tokens": 5, "cost": 0.02})
    model, sent = model_on(paid, paid, paid)  # a model with no known price
    assert model.price is None
    result = run("Mission", model, [], limits=Limits(max_cost=0.03))
    assert result.reason == "budget" and len(sent) == 2  # 0,04 $ spent: no third call
    assert "0,04 dollar déjà dépensé" in result.message


def test_max_tokens_is_sent_and_the_default_model_has_a_price() -> None:
    model, sent = model_on(choice({"role": "assistant", "content": "ok"}), max_tokens=500,
                           model="openai/gpt-4o-mini")
    model.complete(USER, [])
    assert sent[0]["max_tokens"] == 500 and model.price == (0.15, 0.60)


def test_the_price_comes_from_the_models_list_when_asked() -> None:
    listing = {"data": [{"id": "test/model", "pricing": {"prompt": "0.000002",
                                                         "completion": "0.00001"}}]}

    def server(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/api/v1/models"
        return httpx.Response(200, json=listing)

    model = OpenRouterModel("test/model", api_key="k", transport=httpx.MockTransport(server))
    assert model.fetch_price() == (2.0, 10.0)
    broken = OpenRouterModel("test/model", api_key="k", transport=httpx.MockTransport(
        lambda request: httpx.Response(404, text="not here")))
    assert broken.fetch_price() is None  # no list: the cost stays unknown, nothing raised


def test_the_mock_refuses_what_the_real_model_cannot_send() -> None:
    messages = [{"role": "user", "content": "caf\udce9"}]  # a lone surrogate, by hand
    model, sent = model_on()
    with pytest.raises(ApiError) as real:
        model.complete(messages, [])
    with pytest.raises(ApiError) as mock:
        MockModel().complete(messages, [])
    assert sent == [] and (real.value.status, mock.value.status) == (None, None)
    assert real.value.explication == mock.value.explication


@pytest.mark.parametrize("name", [None, "", "deux mots", 3])
def test_a_name_the_api_would_refuse_next_time_is_dropped_and_said(name: object) -> None:
    from harness_lib.mock import check_conversation
    from harness_lib.models.received import assistant_message

    message, notes = assistant_message({"role": "assistant", "content": "Fini.", "name": name}, 1)
    assert "name" not in message and any(n.startswith("name ") for n in notes)
    assert check_conversation([{"role": "user", "content": "Lis."}, message]) == []


def test_a_name_the_api_accepts_is_kept() -> None:
    from harness_lib.models.received import assistant_message

    raw = {"role": "assistant", "content": "Fini.", "name": "agent_1"}
    message, notes = assistant_message(raw, 1)
    assert message["name"] == "agent_1" and notes == []
