"""Chat Completions messages: the list the harness keeps, and what goes into it.

The harness keeps one list, `messages`, and sends all of it at every call. The
builders below write each kind of message; `read_call` is the one reader of a tool
call: every part of the harness gets a `ToolCall` from it. The chapter's two rules
of that list are said here once (`RULE_1`, `RULE_2`), in the words every
explanation of the course uses.

>>> call = tool_call("call_1", "read_file", {"path": "README.md"})
>>> messages = [system(SYSTEM_PROMPT), user("Lis README.md")]
>>> messages.append(assistant(tool_calls=[call]))        # RULE 1: the request, complete
>>> messages.append(tool_result("call_1", "# Mini harness"))  # RULE 2: its result, same id
>>> [m["role"] for m in messages]
['system', 'user', 'assistant', 'tool']
>>> read_call(call)
ToolCall(name='read_file', arguments={'path': 'README.md'}, id='call_1', \
text='{"path": "README.md"}', problem=None)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

SYSTEM_PROMPT = (
    "Tu es un agent. Tu peux utiliser des outils pour lire, lister et modifier les fichiers "
    "de l’espace de travail et lancer des commandes. Réponds en français."
)


@dataclass(frozen=True)
class LoopRule:
    """One of the chapter's two rules of messages[], in the words every explanation uses:
    the mock's API texts, the grader, the player's notes, the hand-played harness and the
    misconceptions all quote these fields (said once, here)."""

    name: str  # « règle 1 »: the code's marker is « # RULE 1 »
    says: str  # the rule, as an instruction
    why: str  # what breaks without it
    code: str  # the line that keeps it, with the names a learner types (08)
    where: str  # where that line goes


RULE_1 = LoopRule(
    "règle 1", "gardez le message assistant complet, avec ses tool_calls",
    "le modèle recevrait un résultat qu’il n’a pas demandé",
    "messages.append(reponse.message)", "juste après l’appel au modèle")
RULE_2 = LoopRule(
    "règle 2", "chaque demande reçoit son résultat, un message role tool sous le même "
    "tool_call_id, avant tout autre message",
    "la demande du modèle resterait sans réponse, et l’API refuserait l’appel",
    'messages.append(tool_result(appel["id"], resultat))', "après chaque outil")

Message = dict[str, Any]
NAME = re.compile(r"[a-zA-Z0-9_-]+")  # what the API accepts as a tool's or a message's name
# Half of a UTF-16 pair, alone: what Python makes of a byte that is not UTF-8 in a file name,
# a command's argument or "\udce9" in JSON. No UTF-8 encoder can write it (JSON body, trace).
_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """`text` with every lone surrogate replaced by �: valid Unicode, writable as UTF-8.

    >>> valid_text("caf\\udce9.txt")
    'caf�.txt'
    """
    return _SURROGATE.sub("\ufffd", text)


def valid_message(message: Message) -> Message:
    """`message` itself when all its texts are valid; else a copy with valid_text applied.

    >>> valid_message({"role": "assistant", "content": "fin \\udcff"})["content"]
    'fin �'
    """
    try:
        text = json.dumps(message, ensure_ascii=False)
        text.encode("utf-8")
        return message
    except UnicodeEncodeError:  # a lone surrogate somewhere in its strings
        return json.loads(valid_text(text))  # type: ignore[no-any-return]
    except (TypeError, ValueError, RecursionError):  # not JSON at all: the API will say so
        return message


def system(content: str) -> Message:
    return {"role": "system", "content": valid_text(content)}


def user(content: str) -> Message:
    return {"role": "user", "content": valid_text(content)}


def assistant(
    content: str | None = None, tool_calls: list[dict[str, Any]] | None = None
) -> Message:
    message: Message = {"role": "assistant",
                        "content": content if content is None else valid_text(content)}
    if tool_calls:  # never an empty list: the API refuses `tool_calls: []`
        message["tool_calls"] = list(tool_calls)
    return message


def tool_call(id: str, name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    """One tool request. The API wants `arguments` as JSON *text*, not as an object."""
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)  # keeps "é" readable
    return {"id": id, "type": "function",
            "function": {"name": name, "arguments": valid_text(arguments)}}


def tool_result(tool_call_id: str, content: str) -> Message:
    """The tool message answering `tool_call_id`; its text made valid (see valid_text)."""
    return {"role": "tool", "tool_call_id": tool_call_id, "content": valid_text(content)}


@dataclass(frozen=True)
class ToolCall:
    """One tool request of the model, as the harness reads it (see `read_call`).

    name       the tool asked for; None when the call has no readable name
    arguments  the arguments object, decoded; None when it cannot be (`problem` says why)
    id         the id that its result must repeat (RULE 2); "" when there is none
    text       the arguments as the model wrote them: JSON text
    """

    name: str | None
    arguments: dict[str, Any] | None = None
    id: str = ""
    text: str = ""
    problem: str | None = None  # in French: « JSON invalide (...) »

    @property
    def label(self) -> str:
        """read_file("README.md"): the name and the argument values, as the chapter writes it."""
        if self.arguments is None:  # unreadable: shown as it came
            return f"{self.name or '?'}({self.text})"
        values = (json.dumps(v, ensure_ascii=False, default=str) for v in self.arguments.values())
        return f"{self.name or '?'}({', '.join(values)})"


def read_call(call: object) -> ToolCall:
    """Read {"id", "function": {"name", "arguments"}}. Never raises, whatever the model sent."""
    fields = call if isinstance(call, dict) else {}
    function = fields.get("function")
    function = function if isinstance(function, dict) else {}
    name, call_id, raw = function.get("name"), fields.get("id"), function.get("arguments")
    arguments, problem = _decode(raw)
    text = raw if isinstance(raw, str) else "" if raw is None else _json_text(raw)
    return ToolCall(name if isinstance(name, str) else None, arguments,
                    call_id if isinstance(call_id, str) else "", text, problem)


def _decode(raw: object) -> tuple[dict[str, Any] | None, str | None]:
    """The arguments object (JSON text, or a dict: tolerated), or None and why not."""
    if raw is None or raw == "":  # some models send nothing for a tool without arguments
        return {}, None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError) as err:
            return None, f"JSON invalide ({err})"
    if not isinstance(raw, dict):
        return None, f"un objet JSON est attendu, reçu {got(raw)['got_fr']}"
    return raw, None


def _json_text(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):  # not JSON at all: still something to show
        return repr(value)


# How the API names the JSON type of a value, and how we say it: bool first (True is an int).
_KINDS: tuple[tuple[type | tuple[type, ...], str, str], ...] = (
    (bool, "a boolean", "un booléen"), (int, "an integer", "un entier"),
    (float, "a decimal number", "un nombre décimal"), (str, "a string", "une chaîne (str)"),
    ((list, tuple), "an array", "une liste"), (dict, "an object", "un objet (dict)"),
)


def got(value: object) -> dict[str, str]:
    """How the API names the JSON type of `value` (got), and how we say it (got_fr).

    >>> got(3)["got_fr"]
    'un entier'
    """
    if value is None:
        return {"got": "null", "got_fr": "null (None)"}
    for python_type, english, french in _KINDS:
        if isinstance(value, python_type):
            return {"got": english, "got_fr": french}
    name = type(value).__name__  # could not even be sent as JSON
    return {"got": f"a {name} (not JSON)", "got_fr": f"un objet Python {name}, absent de JSON"}
