"""The short exception tree of harness_lib.

    HarnessError            anything the harness itself reports
    ├── ApiError            the model's API refused the request (HTTP status, provider text)
    ├── ModelTimeout        no answer within the time allowed for one model call
    ├── MissingKey          a real model was asked for, but no API key is set
    ├── FileError           a file the harness cannot read or write safely (files.py)
    ├── TraceError          a file that is not a trace (trace.py), its line named
    └── ToolError           a tool failed: the model reads why, as « Erreur : … »
        └── ToolTimeout     a tool ran out of time (the run stops after this turn)

The course adds its own under HarnessError (a diagram, a trace file, a hand-played turn,
an OTLP file): `except HarnessError` catches every error the harness says in French.

Tools never raise into the loop: `run_tool` turns a ToolError into an
observation, the text the model reads, and the loop goes on.
Each error carries `explication`, a short French text for learners.

>>> err = ApiError(400, "Invalid value for 'content': expected a string, got null.",
...                explication="Un message assistant sans tool_calls doit avoir un texte.")
>>> err.status, str(err)
(400, "HTTP 400\\xa0: Invalid value for 'content': expected a string, got null.")
"""

from __future__ import annotations

import errno
from typing import Any

from .text import french_number

# What the system's English error texts mean, in French (by errno class).
OS_ERRORS = {
    errno.ENOENT: "introuvable", errno.EACCES: "permission refusée",
    errno.EPERM: "opération non permise", errno.EISDIR: "c’est un dossier",
    errno.ENOTDIR: "un élément du chemin n’est pas un dossier",
    errno.ENOSPC: "plus de place sur le disque",
    errno.EROFS: "système de fichiers en lecture seule",
    errno.EEXIST: "existe déjà", errno.ENAMETOOLONG: "nom trop long",
    errno.ELOOP: "trop de liens symboliques", errno.EMFILE: "trop de fichiers ouverts",
    errno.ENFILE: "trop de fichiers ouverts", errno.EAGAIN: "ressource momentanément indisponible",
    errno.ENXIO: "aucun lecteur à l’autre bout (un tube nommé ?)", errno.EBUSY: "occupé",
    errno.ENOEXEC: "pas un programme exécutable", errno.EIO: "erreur d’entrée-sortie",
    errno.EINVAL: "argument invalide", errno.ENOMEM: "mémoire insuffisante",
}


class HarnessError(Exception):
    """Base class: `explication` is the French sentence shown to learners."""

    def __init__(self, message: str, *, explication: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.explication = explication or message

    def hide(self, secret: str) -> None:
        """Replace `secret` (an API key a server quoted back) by *** everywhere in the error."""
        self.message, self.explication = hide(self.message, secret), hide(self.explication, secret)
        self.args = hide(self.args, secret)


class ApiError(HarnessError):
    """An HTTP error from the model's API, or a request the API would refuse.

    `status` is the HTTP status (None when no answer came: network down, timeout),
    `body` the provider's JSON body when there was one, `retry_after` the seconds
    the provider asked us to wait (429/503), when it said so.
    """

    def __init__(
        self,
        status: int | None,
        message: str,
        *,
        explication: str = "",
        body: dict[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, explication=explication)
        self.status = status
        self.body = body or {}
        self.retry_after = retry_after

    def hide(self, secret: str) -> None:
        super().hide(secret)
        self.body = hide(self.body, secret)

    def __str__(self) -> str:
        prefix = f"HTTP {self.status}" if self.status is not None else "Pas de réponse"
        return f"{prefix} : {self.message}"


class ModelTimeout(HarnessError):
    """The model did not answer within `timeout` seconds: no answer at all, not a refusal."""

    def __init__(self, timeout: float) -> None:
        super().__init__(
            f"no response within {timeout:g} s",
            explication=f"Le modèle n’a pas répondu en {french_number(timeout)} s : "
                        "l’appel est abandonné.",
        )
        self.timeout = timeout

    def __str__(self) -> str:
        return f"Pas de réponse : {self.message}"


class MissingKey(HarnessError):
    """A real model needs OPENROUTER_API_KEY (or an explicit key)."""


class FileError(HarnessError):
    """A trace or a diagram file that cannot be read or written: « x est un tube nommé »."""


class ToolError(HarnessError):
    """A tool's failure, in French, for the model: « README.md introuvable »."""


class ToolTimeout(ToolError):
    """A tool did not finish within its time; the message says what it printed meanwhile."""


def os_error_text(err: OSError) -> str:
    """What an OSError means, in French: the system's own text is English (« No such file »).

    >>> os_error_text(FileNotFoundError(2, "No such file or directory"))
    'introuvable'
    """
    known = OS_ERRORS.get(err.errno or 0)
    if known:
        return known
    name = errno.errorcode.get(err.errno or 0)
    return f"erreur système {name}" if name else "erreur système"


def hide(value: Any, secret: str) -> Any:
    """`value` with every `secret` inside its strings replaced by ***.

    >>> hide({"error": ["Bad key sk-123"]}, "sk-123")
    {'error': ['Bad key ***']}
    """
    if isinstance(value, str):
        return value.replace(secret, "***")
    if isinstance(value, dict):
        return {hide(k, secret): hide(v, secret) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(hide(v, secret) for v in value)
    return value
