"""Models: anything with `complete(messages, tools, timeout) -> Completion`.

    model.py        the `Model` protocol, `Completion` (one answer) and what its text says
    replay.py       `ReplayModel`, plays a saved run back
    openrouter.py   `OpenRouterModel`, a real model over HTTP (imports httpx)
    reply.py        a 200 answer read strictly: any other shape is an `ApiError`
    received.py     its assistant message, kept whole (RULE 1), its tool calls paired
    http_errors.py  an HTTP error answer as a `ProviderError`: the provider's words, its cause
    causes.py       the one table of causes: what the provider says, what to do, retry or not
    providers.py    which provider refused a key, and where its keys are made
    prices.py       a model's price when the reply does not say it
    wire.py         the request as JSON bytes, or nothing is sent (mock and real agree)
    deadline.py     a call bounded by a deadline, even stuck in the network
    transfer.py     a reply's bytes within the deadline and the size cap (imports httpx)
    browser_http.py in the browser (Pyodide), the transport: the browser makes the request

The offline model, `MockModel`, is not here: it lives with the API it imitates, in
`harness_lib/mock/`. `OpenRouterModel` is imported on first use only, so that
`import harness_lib` does not import httpx.
"""

from __future__ import annotations

from typing import Any

from .model import DEFAULT_MODEL, Completion, Model
from .replay import ReplayModel

__all__ = ["DEFAULT_MODEL", "Completion", "Model", "OpenRouterModel", "ReplayModel"]


def __getattr__(name: str) -> Any:
    if name == "OpenRouterModel":  # httpx is imported only when a real model is asked for
        from .openrouter import OpenRouterModel

        return OpenRouterModel
    raise AttributeError(f"module 'harness_lib.models' has no attribute {name!r}")
