"""Which provider answered, and where its keys are made: a refused key leads to the fix.

A 401 from OpenAI means the key is not an OpenAI key, and the place to get one is
OpenAI's, not OpenRouter's. `wrong_key` reads `base_url` and says which provider
refused the key and where that provider's keys are made (causes.py's « Clé refusée »).

>>> why = wrong_key("https://api.openai.com/v1")
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


def provider_of(url: str) -> tuple[str, str | None]:
    """The provider's name and its key page, from the URL called (the host for others).

    >>> provider_of("http://localhost:11434/v1/chat/completions")
    ('le serveur localhost:11434', None)
    """
    host = urlsplit(url).netloc.rsplit("@", 1)[-1]  # never a user:password part
    known = {known_host: (name, page) for known_host, name, page in PROVIDERS}
    name, page = known.get(host.split(":")[0], (f"le serveur {host or '?'}", None))
    return name, page


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
