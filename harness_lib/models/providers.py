"""Explanations that lead to the fix: what an error means for *this* provider.

The same status says different things on different servers: a 401 from OpenAI
means the key is not an OpenAI key, and the place to get one is OpenAI's; a 404
from OpenRouter may mean that no provider of this model accepts tools, which the
harness always sends. `explain` reads the provider's own words and `base_url`,
and returns the French sentence that says what to do, or None (then the status
decides, http_errors.py).

>>> why = explain(401, "Incorrect API key provided", "https://api.openai.com/v1")
>>> why[:42], "créez-en une sur https://platform.openai.com/api-keys" in why
('Clé d’API invalide ou révoquée pour OpenAI', True)
"""

from __future__ import annotations

from urllib.parse import urlsplit

# (host, name, where to get a key). The key always comes from OPENROUTER_API_KEY or api_key=.
PROVIDERS: tuple[tuple[str, str, str], ...] = (
    ("openrouter.ai", "OpenRouter", "https://openrouter.ai/keys"),
    ("api.openai.com", "OpenAI", "https://platform.openai.com/api-keys"),
    ("generativelanguage.googleapis.com", "Google (Gemini)", "https://aistudio.google.com/apikey"),
    ("api.mistral.ai", "Mistral", "https://console.mistral.ai/api-keys"),
    ("api.deepseek.com", "DeepSeek", "https://platform.deepseek.com/api_keys"),
    ("api.groq.com", "Groq", "https://console.groq.com/keys"),
    ("api.together.xyz", "Together", "https://api.together.ai/settings/api-keys"),
    ("api.anthropic.com", "Anthropic", "https://console.anthropic.com/settings/keys"),
)
NO_TOOLS = ("Ce modèle ne sait pas appeler d’outils : aucun fournisseur de OpenRouter ne le "
            "sert avec `tools`, or la boucle envoie toujours ses outils. Choisissez un modèle "
            "qui en a (la liste : https://openrouter.ai/models?supported_parameters=tools), "
            "par exemple openai/gpt-4o-mini, le modèle par défaut.")
DATA_POLICY = ("Aucun fournisseur de ce modèle ne respecte vos réglages de confidentialité "
               "OpenRouter (entraînement sur vos données, rétention) : changez-les sur "
               "https://openrouter.ai/settings/privacy, ou choisissez un autre modèle.")
MAX_TOKENS = ("Vos crédits ne couvrent pas la plus longue réponse que cette requête autorise "
              "(max_tokens) : baissez max_tokens (OpenRouterModel(max_tokens=1000), ou "
              "--max-tokens 1000), ou rechargez le compte (https://openrouter.ai/settings/credits).")
CREDITS = ("Plus de crédits sur le compte : rechargez-le, ou utilisez un modèle gratuit ou "
           "simulé.")


def provider_of(url: str) -> tuple[str, str | None]:
    """The provider's name and its key page, from the URL called (the host for others).

    >>> provider_of("http://localhost:11434/v1/chat/completions")
    ('le serveur localhost:11434', None)
    """
    host = urlsplit(url).netloc.rsplit("@", 1)[-1]  # never a user:password part
    known = {known_host: (name, page) for known_host, name, page in PROVIDERS}
    name, page = known.get(host.split(":")[0], (f"le serveur {host or '?'}", None))
    return name, page


def explain(status: int, message: str, url: str) -> str | None:
    """The French explanation of this error for this provider; None: the status decides."""
    text = message.lower()
    if status == 404 and "support tool use" in text:
        return NO_TOOLS
    if status == 404 and "data policy" in text:
        return DATA_POLICY
    if status == 402:
        return MAX_TOKENS if "max_tokens" in text else CREDITS
    if status == 401 or (status in (400, 403) and "api key" in text and "valid" in text):
        return wrong_key(url)
    return None


def wrong_key(url: str) -> str:
    """A refused key: which provider refused it, and where that provider's keys are made."""
    name, page = provider_of(url or "https://openrouter.ai/api/v1")
    if name == "OpenRouter":
        return ("Clé d’API invalide ou révoquée : vérifiez OPENROUTER_API_KEY "
                "(https://openrouter.ai/keys).")
    where = f" : créez-en une sur {page}" if page else ""
    return (f"Clé d’API invalide ou révoquée pour {name} ({url}) : il faut une clé de ce "
            f"fournisseur, pas une clé OpenRouter{where}, puis passez-la dans "
            "OPENROUTER_API_KEY ou api_key=...")
