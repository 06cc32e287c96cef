"""`send(messages)`: a learner's messages[] sent to the model the toggle chose.

`send` asks the chosen model (toggle.py) for its next message and never raises: a
conversation the API would refuse comes back as the API's own error, displayed and
returned. What it shows: the verdict, the conversation as a sequence diagram (the
refused message framed in red; drawn by the course itself, player/figure.py), and the
context bar of what the model receives (replies.py).

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

from collections.abc import Sequence
from typing import Any, cast

from IPython.display import display

from ...errors import HarnessError
from ...messages import Message
from ...mock.conversation import check_conversation
from ...models.model import Completion
from ..player import figure
from . import toggle
from .replies import default_tools, outputs, tools_error, unexpected

__all__ = ["send"]


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
    shared = toggle._shared  # the kernel's toggle, if one was shown
    key = shared.api_key() if shared is not None else ""
    if len(key) >= 8 and isinstance(result, HarnessError):  # a provider may quote the key back
        result.hide(key)
    if shared is not None and shared.choice.value == toggle.REAL:
        shared.tell(result)  # a cause the learner must act on stays in sight, under the toggle
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
        return toggle.current_model().complete(conversation, cast("list[dict[str, Any]]", schemas))
    except HarnessError as err:
        return err
    except Exception as err:  # the mock or a provider choking on a strange input
        return unexpected(err)


def _hide(text: str, key: str) -> str:
    return text.replace(key, "***") if len(key) >= 8 else text

