"""The model and the tools a watched loop is given: each call recorded, every cut enforced.

`WatchedModel.complete(messages, tools)` is what a learner's loop calls, through
`for_loop(spy)`: an object with `complete` and `name` only, whose attributes cannot be set,
so that no attribute leads the loop to the real model, the logbook or the guard. It
checks its arguments the way a learner can read (a French TypeError, no internal name),
keeps a plain copy of what was sent and the loop's line that sent it (`Sent`), refuses
a call after the final answer (`NoExit`), past the call limit (`TooManyCalls`) or past
the deadline, then asks the real model, which refuses a broken conversation like the API.

>>> plain({"role": "user", "content": "Bonjour", 3: "x"}), plain(object())
({'role': 'user', 'content': 'Bonjour'}, Strange(kind='object'))
"""

from __future__ import annotations

import copy
import linecache
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import FrameType
from typing import Any

from ...models.model import Completion, Model
from ...tools.tool import Tool
from .guard import Cut, Guard
from .logbook import Logbook, NoExit, TooManyCalls

DEPTH = 8  # a message is a dict of lists of dicts: deeper than this is no message
Audit = Callable[[], Cut | None]  # what the loop changed of the grader's, as a cut (or None)


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
    held: tuple[str, int] | None = None  # a longer list of the loop's, from the system prompt,
    # that it did not send (its name, its length): the context not resent


class Sealed(AttributeError):
    """`modele.x = …` in a loop: the model the grader gives cannot be changed (French)."""


class LoopModel:
    """What a watched loop is given as its model: `complete` and `name`, nothing more."""

    __slots__ = ()


def for_loop(spy: WatchedModel) -> LoopModel:
    """The spy, seen from the loop: its method through a closure, no attribute to follow."""

    def complete(self: LoopModel, *args: Any, **kwargs: Any) -> Completion:
        return spy.complete(*args, **kwargs)

    def refuse(self: LoopModel, name: str, *_value: object) -> None:
        raise Sealed(f"le modèle du correcteur ne se modifie pas (`modele.{name} = …`) : votre "
                     "boucle l’appelle, `modele.complete(messages, definitions)`, sans rien "
                     "y changer.", name=name, obj=self)

    kind = type("Modele", (LoopModel,), {
        "__slots__": (), "complete": complete, "name": spy.name, "__setattr__": refuse,
        "__delattr__": refuse, "__repr__": lambda self: repr(spy)})
    return kind()


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


def caller(files: set[str]) -> FrameType | None:
    """The frame of the loop's own code (a file of `files`) that is calling us now."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename not in files:
        frame = frame.f_back  # type: ignore[assignment]
    return frame


def caller_line(frame: FrameType | None) -> tuple[int, str] | None:
    """That frame's line: its number, its text."""
    if frame is None:
        return None
    return frame.f_lineno, linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()


def held(frame: FrameType | None, sent: object) -> tuple[str, int] | None:
    """A list of the calling frame's, other than the one sent, longer, that starts with a
    system message: the loop's messages[] when it sent only a part (read without running
    any of the loop's code: plain lists and dicts only)."""
    size = len(sent) if type(sent) is list else 0
    for name, value in (frame.f_locals.items() if frame is not None else ()):
        if type(value) is list and value is not sent and len(value) > size and \
                type(value[0]) is dict and dict.get(value[0], "role") == "system":
            return name, len(value)
    return None


class WatchedModel:
    """The model a watched loop calls (see the module's doc)."""

    def __init__(self, model: Model, book: Logbook, guard: Guard, limit: int,
                 files: set[str], audit: Audit | None = None) -> None:
        self.model, self.book, self.guard, self.limit = model, book, guard, limit
        self.files, self.sends, self.audit = files, [], audit
        self.name = getattr(model, "name", "modèle")

    def complete(self, *args: Any, **kwargs: Any) -> Completion:
        messages, tools, timeout = _arguments(args, kwargs)
        self.guard.check()
        audited(self.audit, self.guard)
        frame = caller(self.files)
        self.sends.append(Sent(plain(messages), plain(tools), caller_line(frame),
                               held(frame, messages)))
        del frame
        self.book.sync(self.sends[-1].messages)
        if self.book.replies and not self.book.replies[-1].tool_calls:
            self.guard.stop(NoExit())  # the model had answered: EXIT should have returned
        if self.book.calls >= self.limit:
            self.guard.stop(TooManyCalls(self.book.calls))
        self.book.request()
        sent = self.sends[-1]  # plain data, as it would travel: refused like the API would
        reply = self.model.complete(sent.messages, sent.tools or [], timeout)
        self.book.reply(reply)
        return _copy(reply)  # the loop's own: changing it changes nothing the book keeps

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


def _copy(reply: Completion) -> Completion:
    """A copy of a reply that shares no list or dict with it."""
    return replace(reply, message=copy.deepcopy(reply.message), usage=copy.deepcopy(reply.usage),
                   request=copy.deepcopy(reply.request), notes=list(reply.notes))


def audited(audit: Audit | None, guard: Guard) -> None:
    """Cut the loop if it changed what grades it (`audit`: what it changed, as a cut)."""
    cut = audit() if audit is not None else None
    if cut is not None:
        guard.stop(cut)


def watched_tool(tool: Tool, book: Logbook, guard: Guard, audit: Audit | None = None) -> Tool:
    """The same tool, refused once the loop is cut, and reporting each run to the logbook."""

    def function(**arguments: Any) -> str:
        guard.check()
        audited(audit, guard)
        book.runs[book.calls] += 1
        shown = {k: v for k, v in arguments.items() if k != "timeout"}
        result = tool.function(**arguments)
        book.tool_run(tool.name, shown, result if isinstance(result, str) else str(result))
        return result

    return replace(tool, function=function)
