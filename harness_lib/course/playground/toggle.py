"""Try messages[] by hand: the mock/real toggle of the notebooks, and `send()`.

Each notebook starts with `toggle()`: one switch, shared by the whole kernel, between
the offline MockModel (the default) and a real model on OpenRouter. `send(messages)`
asks the chosen model for its next message and never raises: a conversation the API
would refuse comes back as the API's own error, displayed and returned. What it shows:
the verdict, the conversation as a sequence diagram (the refused message framed in
red; drawn by the course itself, player/figure.py), and the context bar of what the
model receives.

>>> from harness_lib.messages import user
>>> reply = send([user("Lis README.md et résume le projet")], show=False)
>>> reply.tool_calls[0]["function"]["name"]
'read_file'
>>> error = send([{"role": "robot", "content": "?"}], show=False)
>>> error.status, error.message
(400, "Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', \
'function', 'tool', and 'developer'.")
"""

from __future__ import annotations

import html
import os
import sys
from collections.abc import Sequence
from typing import Any, cast

import ipywidgets as w
import traitlets
from IPython import get_ipython
from IPython.display import display
from ipywidgets.widgets.widget_string import TextStyle

from ...errors import ApiError, HarnessError, MissingKey
from ...limits import MODEL_TIMEOUT
from ...messages import Message
from ...mock.conversation import check_conversation
from ...mock.model import MockModel
from ...models.model import DEFAULT_MODEL, Completion, Model
from ..player import figure, static
from ..player.renderer import library
from .live import choice, live_html
from .replies import cause_of, default_tools, outputs, render, tools_error, unexpected

__all__ = ["Playground", "current_model", "render", "send", "toggle"]  # render: for tests

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
        cause = cause_of(result) if isinstance(result, ApiError) else ""
        said = f"Dernier appel : {cause}. {result.explication}" if (
            cause and isinstance(result, ApiError)) else ""
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


def send(messages: object, tools: object = None, *, show: bool = True) -> Completion | HarnessError:
    """Ask the current model for its next message. Never raises: errors are returned.

    Every problem of `messages` is listed, but the answer is the API's: its first one.
    `tools=None` sends the four tools of the example workspace.
    """
    schemas = tools
    try:
        schemas = default_tools() if tools is None else tools
        problems = check_conversation(messages)
        result = problems[0].as_api_error() if problems else _complete(messages, schemas)
    except Exception as err:  # a bug of ours must not become the learner's traceback
        problems, result = [], unexpected(err)
    key = _shared.api_key() if _shared is not None else ""
    if len(key) >= 8 and isinstance(result, HarnessError):  # a provider may quote the key back
        result.hide(key)
    if _shared is not None and _shared.choice.value == REAL:
        _shared.tell(result)  # a cause the learner must act on stays in sight, under the toggle
    if show:
        for bundle in _bundles(outputs(messages, schemas, result, problems), key):
            display(bundle, raw=True)
    return result


def _bundles(parts: list[dict[str, str] | figure.Figure], key: str) -> list[dict[str, Any]]:
    """The outputs that display send()'s answer: the verdict, the figure's widget, then its
    static copy and the context bar in one output (each output is one more for the page
    to lay out during a Run All). Second line of defence: a key quoted anywhere becomes
    *** too, before any widget gets the text."""
    shown: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, figure.Figure):
            shown += _figure_bundles(part, key)
            continue
        bundle = {kind: _hide(text, key) for kind, text in part.items()}
        if shown and set(shown[-1]) == {"text/html"} and "text/html" in bundle:  # a static copy
            bundle["text/html"] = shown.pop()["text/html"] + bundle["text/html"]
        shown.append(bundle)
    return shown


def _figure_bundles(part: figure.Figure, key: str) -> list[dict[str, Any]]:
    drawn = figure.Figure(_hide(part.mermaid, key), _hide(part.transcript, key), part.title)
    try:
        return figure.bundles(drawn)
    except Exception:  # no widget, no static copy: the text version still says it all
        return [{"text/plain": drawn.transcript}]


def _complete(messages: object, schemas: object) -> Completion | HarnessError:
    """The model's answer to a conversation check_conversation accepted, or its error."""
    refused = tools_error(schemas)
    if refused is not None:
        return refused
    conversation = list(cast("Sequence[Message]", messages))  # a list or tuple of dicts
    try:
        return current_model().complete(conversation, cast("list[dict[str, Any]]", schemas))
    except HarnessError as err:
        return err
    except Exception as err:  # the mock or a provider choking on a strange input
        return unexpected(err)


def _hide(text: str, key: str) -> str:
    return text.replace(key, "***") if len(key) >= 8 else text

