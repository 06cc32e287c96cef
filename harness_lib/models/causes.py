"""Why a call failed, from what the provider said: one table of causes, each with its way out.

A provider says what went wrong in several places: the HTTP status, the body's `code` and
`type` (`insufficient_quota`, `overloaded_error`, `exceed_context_size_error`...) and its
message (« does not support tools »). The status alone misleads: OpenAI answers 429 both
for « too many requests » (wait and try again) and for « no credit left » (trying again
is useless), llama.cpp answers 500 for a context that is too long. So `find_cause` reads
the codes and the words first, the status last, and returns one row of `CAUSES`: a short
name, the French explanation that says what to do (and which setting to change), and
whether the harness tries again.

>>> cause = find_cause(429, {"error": {"code": "insufficient_quota"}}, "You exceeded your quota")
>>> cause.name, cause.retry
('Plus de crédits', False)
>>> find_cause(529, {"type": "error", "error": {"type": "overloaded_error"}}, "Overloaded").retry
True
>>> context_counts({"error": {"n_prompt_tokens": 14429, "n_ctx": 8192}}, "")
(14429, 8192)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..text import french_number

WHICH_MODEL = ("HARNESS_MODEL, --model, OpenRouterModel(\"…\") ou le champ « Modèle » de "
               "la bascule")


@dataclass(frozen=True)
class Cause:
    """One row of the table: what the provider says, what it means, what to do."""

    name: str  # short, French: the annex's first column
    why: str  # French: what happened, what to do; {model} names the setting, {counts}
    retry: bool  # worth a second try: the request itself was fine
    codes: tuple[str, ...] = ()  # `code` or `type` values, lower case
    phrases: tuple[str, ...] = ()  # regular expressions on the provider's words, lower case
    statuses: tuple[int, ...] = ()  # when neither the codes nor the words say more


KEY = Cause(
    "Clé refusée", "{key}", False,
    ("invalid_api_key", "authentication_error", "unauthorized", "invalid_authentication"),
    (r"incorrect api key", r"invalid api key", r"api key not valid", r"no auth credentials",
     r"user not found", r"invalid x-api-key"), (401,))
MAX_TOKENS = Cause(
    "Crédits trop justes pour max_tokens",
    "Vos crédits ne couvrent pas la plus longue réponse que cette requête autorise "
    "(max_tokens) : baissez max_tokens (OpenRouterModel(max_tokens=1000), ou --max-tokens "
    "1000), ou rechargez le compte (https://openrouter.ai/settings/credits).", False,
    phrases=(r"fewer max_tokens",))
CREDITS = Cause(
    "Plus de crédits",
    "Plus de crédits sur le compte (ou quota épuisé) : réessayer ne servirait à rien. "
    "Rechargez le compte chez ce fournisseur (OpenRouter : "
    "https://openrouter.ai/settings/credits), ou changez de modèle ({model}) pour un modèle "
    "gratuit (nom en :free), ou passez au modèle simulé (--mock).", False,
    ("insufficient_quota", "insufficient_credits", "billing_hard_limit_reached"),
    # Not « exceeded your current quota » alone: Gemini says it of a per-minute limit too.
    (r"insufficient credits", r"any credits", r"credit balance is too low",
     r"used all available credits", r"more credits"), (402,))
RATE = Cause(
    "Trop de requêtes",
    "Trop de requêtes : le fournisseur limite le débit (ou le nombre d’appels par jour des "
    "modèles gratuits). Le harness attend le délai demandé (Retry-After) et réessaie ; si "
    "cela dure, attendez avant de relancer, ou changez de modèle ({model}).", True,
    ("rate_limit_exceeded", "rate_limit_error", "too_many_requests"),
    (r"rate limit", r"too many requests"), (429,))
UNKNOWN_MODEL = Cause(
    "Modèle inconnu",
    "Ce nom de modèle est inconnu de ce fournisseur : vérifiez-le ({model}). Sur OpenRouter, "
    "un nom complet a la forme fournisseur/modèle, par exemple openai/gpt-4o-mini (la liste : "
    "https://openrouter.ai/models) ; sur Ollama, téléchargez-le d’abord (ollama pull).", False,
    ("model_not_found",),
    (r"not a valid model id", r"model.{0,80}(not found|does not exist)", r"no such model",
     r"unknown model", r"try pulling it first"))
NO_TOOLS = Cause(
    "Modèle sans outils",
    "Ce modèle ne sait pas appeler d’outils, or la boucle envoie toujours ses outils : "
    "choisissez un modèle qui en a ({model}) ; sur OpenRouter, la liste : "
    "https://openrouter.ai/models?supported_parameters=tools, par exemple openai/gpt-4o-mini, "
    "le modèle par défaut. Sur Ollama, un modèle marqué « tools » ; un serveur vLLM se lance "
    "avec --enable-auto-tool-choice et --tool-call-parser.", False,
    phrases=(r"support tool use", r"does not support tools", r"enable-auto-tool-choice",
             r"tools? (use )?is not supported", r"does not support function calling"))
DATA_POLICY = Cause(
    "Réglages de confidentialité",
    "Aucun fournisseur de ce modèle ne respecte vos réglages de confidentialité OpenRouter "
    "(entraînement sur vos données, rétention) : changez-les sur "
    "https://openrouter.ai/settings/privacy, ou choisissez un autre modèle ({model}).", False,
    phrases=(r"data policy",))
CONTEXT = Cause(
    "Contexte trop long",
    "La conversation ne tient plus dans la fenêtre de contexte du modèle{counts} : chaque "
    "appel renvoie tout messages[]. Baissez le nombre de tours (--max-turns, "
    "Limits(max_turns=…)), donnez une mission qui lit moins, ou choisissez un modèle à plus "
    "grande fenêtre ({model}) ; un serveur llama.cpp se relance avec un --ctx-size plus "
    "grand.", False,
    ("context_length_exceeded", "exceed_context_size_error"),
    (r"context (length|size|window)", r"prompt is too long", r"maximum context",
     r"too many (input )?tokens"))
FILTER = Cause(
    "Filtre de contenu",
    "Le filtre de contenu du fournisseur a bloqué {where} : reformulez la mission (ou ce "
    "qu’un outil a renvoyé dans messages[]), ou choisissez un autre modèle ({model}). "
    "Réessayer à l’identique donnerait le même refus.", False,
    ("content_filter", "content_policy_violation", "responsibleaipolicyviolation"),
    (r"content management policy", r"content filter", r"content policy", r"flagged",
     r"requires moderation"))
OVERLOADED = Cause(
    "Fournisseur surchargé",
    "Le fournisseur du modèle est surchargé ou indisponible : le harness réessaie après une "
    "pause ; si cela dure, réessayez plus tard ou changez de modèle ({model}).", True,
    ("overloaded_error", "service_unavailable", "server_overloaded"),
    (r"overloaded", r"temporarily unavailable"), (502, 503, 529))
GATEWAY = Cause(
    "Délai dépassé en chemin",
    "Un intermédiaire (passerelle, Cloudflare) a abandonné en attendant le modèle : le harness "
    "réessaie ; si cela dure, le modèle est trop lent en ce moment : réessayez plus tard, ou "
    "choisissez un modèle plus rapide ({model}).", True,
    ("gateway_timeout",), (r"a timeout occurred", r"gateway time-?out"), (504, 524))
INTERNAL = Cause(
    "Erreur interne du fournisseur",
    "Le fournisseur du modèle est indisponible ou en panne (erreur interne) : réessayez plus "
    "tard ; si la même erreur revient, changez de modèle ({model}).", False, statuses=(500,))
SLOW = Cause(
    "Délai du fournisseur",
    "Le fournisseur a dépassé son propre délai avant de répondre : réessayez, ou changez de "
    "modèle ({model}).", False, statuses=(408,))
FORBIDDEN = Cause(
    "Accès refusé",
    "Accès refusé : la modération du fournisseur a bloqué la requête, ou cette clé n’a pas le "
    "droit d’utiliser ce modèle. Vérifiez la clé et le modèle ({model}).", False,
    statuses=(403,))
NOT_FOUND = Cause(
    "Introuvable",
    "Modèle ou adresse introuvable : vérifiez le nom du modèle ({model}) et base_url.", False,
    statuses=(404,))
# Read in this order: the most specific first (a 429 that says « quota » is CREDITS).
CAUSES = (KEY, MAX_TOKENS, CREDITS, NO_TOOLS, DATA_POLICY, CONTEXT, UNKNOWN_MODEL, FILTER,
          RATE, OVERLOADED, GATEWAY, INTERNAL, SLOW, FORBIDDEN, NOT_FOUND)


def find_cause(status: int, body: Any, message: str) -> Cause | None:
    """The row that explains this error: its codes and words first, then its status."""
    codes = set(codes_in(body))
    words = message.lower()
    for cause in CAUSES:
        if codes & set(cause.codes) or any(re.search(p, words) for p in cause.phrases):
            return cause
    return next((cause for cause in CAUSES if status in cause.statuses), None)


def codes_in(body: Any, limit: int = 200) -> list[str]:
    """Every text under a `code` or `type` key of the body (its first `limit` objects).

    >>> codes_in({"error": {"code": "content_filter", "innererror": {"code": "X"}}})
    ['content_filter', 'x']
    """
    found: list[str] = []
    todo, seen = [body], 0
    while todo and seen < limit:
        item = todo.pop(0)
        seen += 1
        if isinstance(item, dict):
            found += [str(v).lower() for k, v in item.items() if k in ("code", "type")
                      and isinstance(v, str)]
            todo += [v for v in item.values() if isinstance(v, (dict, list))]
        elif isinstance(item, list):
            todo += [v for v in item if isinstance(v, (dict, list))]
    return found


def context_counts(body: Any, message: str) -> tuple[int, int] | None:
    """(tokens sent, tokens the model takes) when the provider said them, else None."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        sent, window = error.get("n_prompt_tokens"), error.get("n_ctx")
        if type(sent) is int and type(window) is int:
            return sent, window
    if found := re.search(r"maximum context length is (\d+) tokens.*?(\d+) tokens", message):
        return int(found[2]), int(found[1])  # OpenAI: the window first, then what was sent
    if found := re.search(r"(\d+) tokens\)? (?:>|exceeds the available context size \()\s*"
                          r"(\d+)", message):
        return int(found[1]), int(found[2])  # Anthropic, llama.cpp: what was sent first
    return None


def explanation(cause: Cause, body: Any, message: str, *, key: str = "",
                in_reply: bool = False) -> str:
    """The cause's French sentence, its blanks filled: the counts, where the filter acted."""
    counts = context_counts(body, message) if cause is CONTEXT else None
    said = (f" ({french_number(counts[0])} tokens envoyés, {french_number(counts[1])} "
            "possibles)") if counts else ""
    where = ("la réponse du modèle" if in_reply else
             "la requête (la mission, ou un résultat d’outil)")
    return cause.why.format(model=WHICH_MODEL, counts=said, where=where, key=key)
