"""Every provider error explained by its real cause, and no error taken for an answer.

The recorded error bodies of tests/data/real_traffic/ (each with its public source) are
replayed through `run()` with a real `OpenRouterModel`: each stops, or is retried, as its
cause says (causes.py), with that cause's French sentence, checked word for word here
(not only that some explanation exists). A property test then serves any JSON body with
an `error` key, at any status: it never ends as an answer, run() never raises, and the
key is in no output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from real_traffic import BY_NAME, ERRORS, KEY, SAMPLES, Provider, answers, replay

from harness_lib import Limits, Tool, run
from harness_lib.models import causes
from harness_lib.models.http_errors import http_error, worth_retrying
from harness_lib.models.openrouter import OpenRouterModel
from harness_lib.models.reply import embedded_error
from harness_lib.policy import Policy

# Each cause's French sentence, written here by hand: the table cannot drift silently.
SENTENCES = {
    "Clé refusée": "",  # the provider's own key page: see test_a_refused_key_names_its_provider
    "Crédits trop justes pour max_tokens": "Vos crédits ne couvrent pas la plus longue "
    "réponse que cette requête autorise (max_tokens)\u00a0: baissez max_tokens",
    "Plus de crédits": "Plus de crédits sur le compte (ou quota épuisé)\u00a0: réessayer ne "
    "servirait à rien.",
    "Trop de requêtes": "Trop de requêtes\u00a0: le fournisseur limite le débit",
    "Modèle inconnu": "Ce nom de modèle est inconnu de ce fournisseur\u00a0: vérifiez-le "
    "(HARNESS_MODEL, --model, OpenRouterModel(\"…\") ou le champ «\u00a0Modèle\u00a0» de la "
    "bascule).",
    "Modèle sans outils": "Ce modèle ne sait pas appeler d’outils, or la boucle envoie "
    "toujours ses outils\u00a0: choisissez un modèle qui en a",
    "Réglages de confidentialité": "Aucun fournisseur de ce modèle ne respecte vos réglages "
    "de confidentialité OpenRouter",
    "Contexte trop long": "La conversation ne tient plus dans la fenêtre de contexte du modèle",
    "Filtre de contenu": "Le filtre de contenu du fournisseur a bloqué",
    "Fournisseur surchargé": "Le fournisseur du modèle est surchargé ou indisponible\u00a0: le "
    "harness réessaie après une pause",
    "Délai dépassé en chemin": "Un intermédiaire (passerelle, Cloudflare) a abandonné en "
    "attendant le modèle\u00a0: le harness réessaie",
    "Erreur interne du fournisseur": "Le fournisseur du modèle est indisponible ou en panne "
    "(erreur interne)",
    "Délai du fournisseur": "Le fournisseur a dépassé son propre délai avant de répondre",
    "Accès refusé": "Accès refusé\u00a0: la modération du fournisseur a bloqué la requête",
    "Introuvable": "Modèle ou adresse introuvable\u00a0: vérifiez le nom du modèle",
}
BY_CAUSE = {cause.name: cause for cause in causes.CAUSES}
WITH_CAUSE = [s for s in SAMPLES if "cause" in s]


def test_the_french_sentence_of_each_cause() -> None:
    assert set(SENTENCES) == set(BY_CAUSE)  # a new cause comes with its sentence here
    for name, sentence in SENTENCES.items():
        said = causes.explanation(BY_CAUSE[name], {}, "", key="(clé)")
        assert said.startswith(sentence or "(clé)"), name
        assert "{" not in said and "}" not in said, name  # every blank filled


@pytest.mark.parametrize("sample", WITH_CAUSE, ids=[s["name"] for s in WITH_CAUSE])
def test_each_recorded_error_stops_or_retries_as_its_cause_says(sample: dict[str, Any]) -> None:
    cause = BY_CAUSE[sample["cause"]]
    result, provider = replay(sample)
    if cause.retry:  # tried again after what the server asked (else 1 s), then the answer
        said = (sample.get("headers") or {}).get("Retry-After")
        assert (result.reason, provider.sleeps) == ("answer", [float(said or 1.0)])
        assert len(provider.requests) == 2
        return
    assert (result.reason, provider.sleeps, len(provider.requests)) == ("api_error", [], 1)
    assert SENTENCES[cause.name] in result.message  # the cause's own words, not a neighbour's


def test_every_cause_the_issue_names_has_a_recorded_sample() -> None:
    found = set()
    for sample in ERRORS:
        status, body = answers(sample)[0]
        text = body if isinstance(body, str) else json.dumps(body)
        error = embedded_error(body) if status == 200 else http_error(status, text)
        if error is not None and error.cause is not None:
            found.add(error.cause.name)
    assert found >= {"Clé refusée", "Plus de crédits", "Trop de requêtes", "Modèle inconnu",
                     "Modèle sans outils", "Contexte trop long", "Filtre de contenu",
                     "Fournisseur surchargé", "Délai dépassé en chemin",
                     "Crédits trop justes pour max_tokens"}


def test_a_refused_key_names_its_provider() -> None:
    error = http_error(401, json.dumps(BY_NAME["openai-401-incorrect-key"]["body"]),
                       url="https://api.openai.com/v1/chat/completions")
    assert error.cause is causes.KEY and not error.transient
    assert error.explication.startswith("Clé d’API invalide ou révoquée pour OpenAI")


def test_the_two_counts_of_a_context_too_long() -> None:
    sample = BY_NAME["llamacpp-exceed-context-size-with-counts"]
    error = http_error(500, json.dumps(sample["body"]))
    assert "(1\u202f407 tokens envoyés, 256 possibles)" in error.explication
    assert not error.transient  # a 500 that says « context »: retrying cannot fix it
    anthropic = http_error(400, '{"error": {"type": "invalid_request_error", "message": '
                                '"prompt is too long: 208310 tokens > 200000 maximum"}}')
    assert "(208\u202f310 tokens envoyés, 200\u202f000 possibles)" in anthropic.explication


def test_a_filter_that_blocked_the_answer_says_so() -> None:
    body = {"choices": [{"message": {"role": "assistant", "content": ""},
                         "finish_reason": "error",
                         "error": {"code": "content_filter", "message": "Output blocked"}}]}
    error = embedded_error(body)
    assert error is not None and error.cause is causes.FILTER
    assert "a bloqué la réponse du modèle" in error.explication


@pytest.mark.parametrize(("status", "body", "headers", "retried"), [
    (529, {"type": "error", "error": {"type": "overloaded_error"}}, {}, True),
    (529, {"type": "error", "error": {"type": "overloaded_error"}},
     {"x-should-retry": "false"}, False),  # the server says no: never retried
    (418, {"error": {"message": "teapot busy"}}, {"x-should-retry": "true"}, True),
    (429, {"error": {"code": "insufficient_quota"}}, {"x-should-retry": "true"}, False),
    (400, {"error": {"message": "bad"}}, {}, False),
    # Gemini says « quota » of a per-minute limit: a rate limit, tried again.
    (429, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "You exceeded "
                     "your current quota, please check your plan and billing details."}},
     {}, True),
])
def test_x_should_retry_is_honoured_but_never_for_a_cause_retrying_cannot_fix(
        status: int, body: dict[str, Any], headers: dict[str, str], retried: bool) -> None:
    assert worth_retrying(http_error(status, json.dumps(body)), headers) is retried


def test_byok_upstream_cost_counts_toward_max_cost_and_is_said() -> None:
    """OpenRouter's own-key mode: `usage.cost` is 0, the spend is the upstream cost."""
    sample = BY_NAME["openrouter-gemini-tool-call-with-cost"]
    upstream = sample["body"]["usage"]["cost_details"]["upstream_inference_cost"]
    result, _ = replay(sample, limits=Limits(max_turns=6, max_cost=upstream / 2))
    reply = next(e for e in result.trace.events if e.kind == "reply")
    assert (reply.data["cost"], reply.data["cost_from"]) == (upstream, "provider")
    assert any(note.startswith("coût BYOK") for note in reply.data["notes"])
    assert result.reason == "budget"  # counted: the next call would go over max_cost


def test_a_legacy_function_call_runs_as_the_tool_call_it_is() -> None:
    sample = BY_NAME["legacy-function-call-then-answer"]
    provider = Provider(answers(sample))
    model = OpenRouterModel("gpt-4", api_key=KEY, base_url=sample["base_url"],
                            transport=httpx.MockTransport(provider))
    read = Tool("read_file", "lit", {"type": "object", "properties": {"path": {}}},
                lambda path: f"contenu de {path}")
    result = run("Mission", model, [read], policy=Policy(allow=["read_file"]))
    assert (result.reason, result.message) == ("answer", "Terminé.")
    call, answer = provider.requests[1]["messages"][-2:]
    assert "function_call" not in call
    assert call["tool_calls"][0]["function"]["name"] == "read_file"
    assert answer == {"role": "tool", "tool_call_id": call["tool_calls"][0]["id"],
                      "content": "contenu de README.md"}
    reply = next(e for e in result.trace.events if e.kind == "reply")
    assert reply.data["finish_reason"] == "tool_calls"
    assert "function_call (ancienne forme" in reply.data["notes"][0]


# --- No error is ever an answer -------------------------------------------------------

scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20) | st.just(KEY)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["message", "code", "type", "metadata", "raw", "error"]) | st.text(
        max_size=8), inner, max_size=4), max_leaves=12)
ANSWER = {"role": "assistant", "content": "Voici la réponse."}
bodies = st.fixed_dictionaries({"error": values.filter(lambda v: v is not None)}, optional={
    "choices": st.just([{"message": ANSWER, "finish_reason": "stop"}]), "usage": values})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(status=st.integers(200, 599), body=bodies,
       headers=st.sampled_from([{}, {"Retry-After": "0"}, {"x-should-retry": "true"}]))
def test_any_body_with_an_error_key_at_any_status_never_ends_as_an_answer(
        status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(
        status, content=json.dumps(body).encode(), headers=headers))
    model = OpenRouterModel("test/model", api_key=KEY, transport=transport, max_retries=1,
                            sleep=lambda seconds: None)
    result = run("Mission", model, [], limits=Limits(max_turns=2, model_timeout=5.0))
    assert result.reason == "api_error", result.message
    assert result.message.startswith("Arrêt")
    assert KEY not in result.message + json.dumps([e.text for e in result.trace.events])


def test_the_annex_lists_every_cause() -> None:
    """The learner's table (notebooks/annexe_carte_et_cle.ipynb) names each row of causes.py."""
    annex = Path(__file__).parents[1] / "notebooks" / "annexe_carte_et_cle.ipynb"
    cells = json.loads(annex.read_text(encoding="utf-8"))["cells"]
    table = "".join(next(c["source"] for c in cells if c.get("id") == "annexe-causes"))
    for cause in causes.CAUSES:
        assert f"| {cause.name} |" in table, cause.name
