"""The mock/real toggle of the notebooks: one model for the whole kernel.

Each notebook starts with `toggle()`: one switch, shared by the whole kernel, between
the offline MockModel (the default) and a real model on OpenRouter, with the field for
an OpenRouter key. `current_model()` is the model it selects; `send()` (sending.py)
asks it for the next message of a learner's messages[].

>>> Playground().model().name  # a new toggle starts on the offline MockModel
'mock'
"""

from __future__ import annotations

import html
import os
import sys
from typing import Any

import ipywidgets as w
import traitlets
from IPython import get_ipython
from ipywidgets.widgets.widget_string import TextStyle

from ...errors import HarnessError, MissingKey
from ...limits import MODEL_TIMEOUT
from ...messages import Message
from ...mock.model import MockModel
from ...models.http_errors import ProviderError
from ...models.model import DEFAULT_MODEL, Completion, Model
from ..player import static
from ..player.renderer import library
from .live import choice, live_html

__all__ = ["Playground", "current_model", "toggle"]

MOCK, REAL = "mock", "real"
LABELS = [("Modèle simulé (hors ligne)", MOCK), ("Vrai modèle (OpenRouter)", REAL)]
ENV_KEY = "OPENROUTER_API_KEY"
# The browser version (the JupyterLite site, Pyodide): no environment variable to set before
# Jupyter starts, and the browser itself calls OpenRouter (models/browser_http.py).
IN_BROWSER = sys.platform == "emscripten"
NO_KEY = ("Pas de clé d’API. Créez-en une sur https://openrouter.ai/keys, collez-la dans le champ "
          "« Clé » puis appuyez sur Entrée"
          + ("" if IN_BROWSER else " (ou définissez OPENROUTER_API_KEY avant de lancer Jupyter)")
          + ". Sans clé, revenez sur « Modèle simulé (hors ligne) ».")
IN_THIS_TAB = ("Dans le navigateur, c’est cet onglet qui appelle OpenRouter ; la clé reste dans "
               "la mémoire du noyau, jamais dans le notebook, et disparaît avec lui (quand la page "
               "est rechargée, par exemple).")


class KeyField(w.Password):
    """A Password field whose value the kernel never echoes back to the browser."""

    value = traitlets.Unicode(help="The key, for an instant").tag(sync=True, echo_update=False)


class Playground:
    """The toggle's widgets, and the model they select.

    A typed key is moved out of the Password widget at once, into `_key`: neither
    the widget's state (which Lab may save in the notebook) nor repr() shows it.
    `transport` goes to OpenRouterModel: tests pass an `httpx.MockTransport`.
    """

    def __init__(self, *, transport: Any = None) -> None:
        self.transport = transport
        self._key = ""
        self._real: tuple[tuple[str, str], Model] | None = None  # built once per (key, model)
        self._shown_in: int | None = None
        self._said = ""  # the last real call's failure, under the status: its cause, what to do
        # The harness-* classes, given at creation: stable hooks for the browser test. One
        # Layout and one TextStyle shared: each widget would otherwise bring its own (each
        # one more widget model, one more message). real_box keeps its own: it is hidden.
        plain, text = w.Layout(), TextStyle()
        # A named radio group (live.py): a screen reader hears which model is on.
        self.choice = choice(LABELS, MOCK, "Modèle qui répond", layout=plain,
                             _dom_classes=["harness-toggle"])
        # continuous_update=False: the key arrives whole (Entrée), not keystroke by keystroke.
        self.key = KeyField(description="Clé", placeholder="sk-or-…", continuous_update=False,
                            layout=plain, style=text)
        self.model_id = w.Text(os.environ.get("HARNESS_MODEL") or DEFAULT_MODEL,
                               description="Modèle", continuous_update=False, layout=plain,
                               style=text)
        self.status = live_html(layout=plain, _dom_classes=["harness-status"])  # announced
        self.real_box = w.VBox([self.key, self.model_id])
        self.widget = w.VBox([self.choice, self.real_box, self.status], layout=plain,
                             _dom_classes=["harness-playground"])
        self.key.observe(self._take_key, names="value")
        self.choice.observe(self._refresh, names="value")
        self.model_id.observe(self._refresh, names="value")
        self._refresh()

    def __repr__(self) -> str:
        mode, name, key = self.choice.value, self._name(), self._source()
        return f"Playground(mode={mode!r}, model={name!r}, clé={key!r})"

    def show(self) -> None:
        """Display the toggle; only once per cell, so `toggle()` alone is not shown twice."""
        shell = get_ipython()  # None outside IPython: then always display
        cell = None if shell is None else shell.execution_count
        if cell is None or cell != self._shown_in:
            self._shown_in = cell
            library()  # the drawing library reaches the page now, before a player needs it
            static.show(self.widget)  # and, for a reopened notebook, what to do

    _ipython_display_ = show

    def model(self) -> Model:
        """MockModel, or the real model; without a usable key, a model that reports why."""
        if self.choice.value == MOCK:
            return MockModel()
        key, name = self.api_key(), self._name()
        if not key:
            return Unavailable(MissingKey(f"{ENV_KEY} is not set", explication=NO_KEY))
        if self._real is None or self._real[0] != (key, name):
            self._real = ((key, name), self._open(key, name))
        return self._real[1]

    def api_key(self) -> str:
        """The key in use: the typed one, else OPENROUTER_API_KEY, else ""."""
        return self._key or os.environ.get(ENV_KEY, "").strip()

    def _open(self, key: str, name: str) -> Model:
        from ...models.openrouter import (
            OpenRouterModel,
            # httpx is imported for the real model only,
        )

        try:
            return OpenRouterModel(name, api_key=key, transport=self.transport)
        except HarnessError as err:  # e.g. a key pasted with a stray character
            return Unavailable(err)

    def _take_key(self, change: dict[str, Any]) -> None:
        typed = str(change["new"] or "").strip()
        if typed:
            self._key = typed
            self.key.value = ""  # this change fires _take_key again, with "": nothing to take
        self._refresh()

    def _refresh(self, change: object = None) -> None:
        real = self.choice.value == REAL
        self.real_box.layout.display = "" if real else "none"
        if not real:
            text = "Modèle simulé : réponses calculées hors ligne, sans clé ni réseau."
        elif self.api_key():
            text = f"Vrai modèle {self._name()} via OpenRouter : {self._source()}."
            text += f" {IN_THIS_TAB}" if IN_BROWSER else ""
        else:
            text = NO_KEY
        said = f"<br><b>{html.escape(self._said)}</b>" if real and self._said else ""
        self.status.value = f"<i>{html.escape(text)}</i>{said}"

    def tell(self, result: object) -> None:
        """Say under the toggle why the last real call failed (its cause), or nothing."""
        cause = result.cause if isinstance(result, ProviderError) else None  # models/causes.py
        said = f"Dernier appel : {cause.name}. {result.explication}" if cause else ""
        if said != self._said:
            self._said = said
            self._refresh()

    def _name(self) -> str:
        return self.model_id.value.strip() or DEFAULT_MODEL

    def _source(self) -> str:
        if self._key:
            return f"clé reçue ({len(self._key)} caractères)"
        return f"clé trouvée dans {ENV_KEY}" if self.api_key() else "pas de clé"


class Unavailable:
    """A model that cannot be built: each call raises the reason (send() shows it)."""

    name = "indisponible"
    price = None

    def __init__(self, error: HarnessError) -> None:
        self.error = error

    def complete(self, messages: list[Message], tools: list[dict[str, Any]],
                 timeout: float = MODEL_TIMEOUT) -> Completion:
        raise self.error.with_traceback(None)


# The kernel's one toggle. Created by the first toggle() so that importing this
# module creates no widget; every later toggle() shows and returns the same one.
_shared: Playground | None = None


def toggle(playground: Playground | None = None) -> Playground:
    """Display and return the shared toggle (pass one to replace it, e.g. in tests)."""
    global _shared
    if playground is not None or _shared is None:
        _shared = playground or Playground()
    _shared.show()
    return _shared


def current_model() -> Model:
    """The model chosen with the toggle: MockModel() when toggle() was never called."""
    return _shared.model() if _shared is not None else MockModel()
