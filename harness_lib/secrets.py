"""Secrets: which values must never leave the harness, and how they are hidden.

Two kinds of secrets: the variables whose name looks like one (`OPENROUTER_API_KEY`,
`GITHUB_TOKEN`, `DB_PASSWORD`, a password inside a URL), and the key a model client
was given (typed in the course's toggle, never in the environment). The first are not
passed on to bash (`scrubbed_env`); both are replaced by *** in whatever a tool prints
before it enters messages[] (`redact`, called by `run_tool` and by the loop on a refusal), and in
what the CLI prints or saves. The key itself stays inside its client: a client only
`register`s itself, and is asked to hide its own key (`hide(text)`).

>>> scrubbed_env({"GH_PAT": "ghp_1", "PATH": "/bin", "URL": "https://moi:mdp@hôte/x"})
{'PATH': '/bin', 'URL': 'https://moi:***@hôte/x'}
>>> redact("GITHUB_TOKEN=ghp_0123456789", {"GITHUB_TOKEN": "ghp_0123456789"})
'GITHUB_TOKEN=***'
"""

from __future__ import annotations

import os
import re
import weakref
from collections.abc import Mapping
from typing import Protocol

# A variable whose name contains one of these (GITHUB_TOKEN, DB_PASSWORD)...
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE")
# ...or has one of these as a whole word (GH_PAT, but not PATH; NPM_AUTH, but not AUTHOR).
SECRET_NAMES = frozenset({"PAT", "PASS", "AUTH"})
URL_PASSWORD = re.compile(r"://([^/\s@:]*):([^/\s@]*)@")  # scheme://user:password@host
# Shorter values are not hidden: "1" or "true" would turn every output into stars.
MIN_SECRET = 8
HIDDEN = "***"


class Hider(Protocol):
    """A model client that knows its own key, and hides it: `OpenRouterModel`."""

    def hide(self, text: str) -> str: ...


_clients: weakref.WeakSet[Hider] = weakref.WeakSet()  # the clients alive, not their keys


def register(client: Hider) -> None:
    """Ask `client` to hide its key in every text `redact` sees, as long as it lives."""
    _clients.add(client)


def secret_name(name: str) -> bool:
    """Whether a variable's name looks like a secret's: GH_PAT yes, PATH no."""
    upper = name.upper()
    words = set(re.split(r"[^A-Z0-9]+", upper))
    return any(word in upper for word in SECRET_WORDS) or bool(words & SECRET_NAMES)


def scrubbed_env(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` without the secret-looking variables, and without passwords in URLs."""
    return {name: URL_PASSWORD.sub(rf"://\1:{HIDDEN}@", value) if "://" in value else value
            for name, value in environ.items() if not secret_name(name)}


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """The values to hide: secret-looking variables' and URL passwords, longest first
    (a key that contains another is replaced whole)."""
    found = {value for name, value in environ.items() if secret_name(name)}
    found |= {match.group(2) for value in environ.values() if "://" in value
              for match in URL_PASSWORD.finditer(value)}
    return sorted((value for value in found if len(value) >= MIN_SECRET), key=len, reverse=True)


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """`text` with every known secret replaced by ***: the registered clients' keys, and
    the secret values of `environ` (os.environ by default)."""
    for client in list(_clients):
        text = client.hide(text)
    for value in secret_values(os.environ if environ is None else environ):
        text = text.replace(value, HIDDEN)
    return text
