"""Where the learner meets a provider's error: send() in real mode, and the toggle's status.

A recorded error (tests/data/real_traffic/) comes back from send(): its verdict names the
cause (models/causes.py) and its French way out, the status under the toggle keeps it in
sight until a call succeeds, and the key is in neither.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from real_traffic import BY_NAME

from harness_lib.course.playground import toggle as playground
from harness_lib.course.playground.replies import render
from harness_lib.course.playground.sending import send
from harness_lib.course.playground.toggle import Playground, toggle
from harness_lib.errors import ApiError
from harness_lib.messages import user

SECRET = "sk-or-v1-" + "faux-secret-des-causes"  # fake: split so no scan takes it for a key


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(playground, "_shared", None)
    yield


def provider(answers: list[tuple[int, Any]]) -> httpx.MockTransport:
    """Answers in order, the last one again and again."""
    def handle(request: httpx.Request) -> httpx.Response:
        status, body = answers.pop(0) if len(answers) > 1 else answers[0]
        return httpx.Response(status, content=json.dumps(body).encode())
    return httpx.MockTransport(handle)


def real(pg: Playground) -> Playground:
    pg.choice.value = "real"
    pg.key.value = SECRET
    return toggle(pg)


def test_send_names_the_cause_and_the_toggle_keeps_it_until_a_call_succeeds() -> None:
    quota = BY_NAME["openai-429-insufficient-quota"]
    fine = {"choices": [{"message": {"role": "assistant", "content": "Bonjour"},
                         "finish_reason": "stop"}]}
    pg = real(Playground(transport=provider([(quota["status"], quota["body"]), (200, fine)])))
    result = send([user("Bonjour")], show=False)
    assert isinstance(result, ApiError) and result.status == 429
    shown = render(result)
    assert "HTTP 429 (Plus de crédits)" in shown and "<b>Plus de crédits</b>" in shown
    assert "réessayer ne servirait à rien" in shown
    assert "la cause n’est pas dans votre liste messages[]" in shown
    assert "Dernier appel\u00a0: Plus de crédits." in pg.status.value
    assert SECRET not in shown + pg.status.value
    send([user("Bonjour")], show=False)  # the next call succeeds: the warning goes
    assert "Dernier appel" not in pg.status.value


def test_a_context_too_long_is_said_to_be_in_messages() -> None:
    sample = BY_NAME["openai-400-context-length-exceeded"]
    real(Playground(transport=provider([(sample["status"], sample["body"])])))
    shown = render(send([user("Bonjour")], show=False))
    assert "(Contexte trop long)" in shown and "8\u202f227 tokens envoyés" in shown
    assert "elle refuse la requête avant de la transmettre" in shown  # messages[] is the cause
