"""The model and the tools a watched loop is given: each call recorded, every cut enforced.

`WatchedModel.complete(messages, tools)` is what a learner's loop calls as `modele`. It
checks its arguments the way a learner can read (a French TypeError, no internal name),
keeps a plain copy of what was sent and the loop's line that sent it (`Sent`), refuses
a call after the final answer (`NoExit`), past the call limit (`TooManyCalls`) or past
the deadline, then asks the real model, which refuses a broken conversation like the API.

>>> plain({"role": "user", "content": "Bonjour", 3: "x"}), plain(object())
({'role': 'user', 'content': 'Bonjour'}, Strange(kind='object'))
"""

from __future__ import annotations

import linecache
import sys
from dataclasses import dataclass, replace
from typing import Any

from ...models import Completion, Model
from ...tools import Tool
from .guard import Guard
from .logbook import Logbook, NoExit, TooManyCalls

DEPTH = 8  # a message is a dict of lists of dicts: deeper than this is no message


class CallError(TypeError):
    """`modele.complete(…)` called with the wrong arguments: said in French."""


@dataclass(frozen=True)
class Strange:
    """A value that is not plain JSON data (an object of the loop's own): only its type."""

    kind: str


@dataclass(frozen=True)
class Sent:
    """One call of the loop: a plain copy of what it sent, and the line that sent it."""

    messages: Any  # a list of plain messages, or Strange when it was no list
    tools: Any  # the tool definitions sent, plain
    line: tuple[int, str] | None  # the loop's line that called the model: number, text


def plain(value: Any, depth: int = 0) -> Any:
    """A copy of `value` made of dict, list, str, numbers and None only, read without
    running any of the loop's own methods (a list subclass's __iter__, a str's __str__)."""
    kind = type(value)
    if value is None or kind in (str, int, float, bool):
        return value
    if depth > DEPTH:
        return Strange("…")
    if isinstance(value, dict):
        return {str.__getitem__(k, slice(None)): plain(v, depth + 1)
                for k, v in dict.items(value) if isinstance(k, str)}
    if isinstance(value, (list, tuple)):
        items = list.copy(value) if isinstance(value, list) else tuple.__getitem__(
            value, slice(None))
        return [plain(v, depth + 1) for v in items]
    if isinstance(value, str):  # a str subclass: its characters, as a plain str
        return str.__getitem__(value, slice(None))
    return Strange(kind.__name__)


def caller_line(files: set[str]) -> tuple[int, str] | None:
    """The line of the loop's own code (a file of `files`) that is calling us now."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename not in files:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return None
    text = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return frame.f_lineno, text


class WatchedModel:
    """The model a watched loop calls (see the module's doc)."""

    def __init__(self, model: Model, book: Logbook, guard: Guard, limit: int,
                 files: set[str]) -> None:
        self.model, self.book, self.guard, self.limit = model, book, guard, limit
        self.files, self.sends = files, []
        self.name = getattr(model, "name", "modèle")

    def complete(self, *args: Any, **kwargs: Any) -> Completion:
        messages, tools, timeout = _arguments(args, kwargs)
        self.guard.check()
        self.sends.append(Sent(plain(messages), plain(tools), caller_line(self.files)))
        self.book.sync(self.sends[-1].messages)
        if self.book.replies and not self.book.replies[-1].tool_calls:
            self.guard.stop(NoExit())  # the model had answered: EXIT should have returned
        if self.book.calls >= self.limit:
            self.guard.stop(TooManyCalls(self.book.calls))
        self.book.request()
        sent = self.sends[-1]  # plain data, as it would travel: refused like the API would
        reply = self.model.complete(sent.messages, sent.tools or [], timeout)
        self.book.reply(reply)
        return reply

    def __repr__(self) -> str:
        return f"<le modèle {self.name}>"


def _arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, float]:
    """(messages, tools, timeout) from a call, or a CallError that says what is wrong."""
    usage = "modele.complete(messages, definitions)"
    unknown = [k for k in kwargs if k not in ("messages", "tools", "timeout")]
    if unknown:
        raise CallError(f"{usage} ne connaît pas l’argument `{unknown[0]}` ; il attend la "
                        "liste messages[] puis la liste des définitions d’outils.")
    given = dict(zip(("messages", "tools", "timeout"), args, strict=False)) | kwargs
    if len(args) > 3:
        raise CallError(f"{usage} attend deux arguments, messages[] et les définitions "
                        f"d’outils ; votre appel en donne {len(args)}.")
    if "messages" not in given:
        raise CallError(f"{usage} : il manque messages[], la conversation à envoyer.")
    if "tools" not in given:
        raise CallError(f"{usage} : il manque le deuxième argument, la liste des "
                        "définitions d’outils (`definitions`) ; sans elle, le modèle ne peut "
                        "demander aucun outil.")
    if not isinstance(given["messages"], list):
        raise CallError(f"{usage} attend la liste messages[] en premier ; il a reçu "
                        f"un objet {type(given['messages']).__name__}.")
    timeout = given.get("timeout", 120.0)
    return given["messages"], given["tools"], timeout if isinstance(timeout, (int, float)) \
        else 120.0


def watched_tool(tool: Tool, book: Logbook, guard: Guard) -> Tool:
    """The same tool, refused once the loop is cut, and reporting each run to the logbook."""

    def function(**arguments: Any) -> str:
        guard.check()
        shown = {k: v for k, v in arguments.items() if k != "timeout"}
        result = tool.function(**arguments)
        book.tool_run(tool.name, shown, result if isinstance(result, str) else str(result))
        return result

    return replace(tool, function=function)
