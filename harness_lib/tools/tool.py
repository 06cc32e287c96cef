"""Tools: what the model may ask for, and how the harness runs it.

A tool is a name, a short French description, a JSON schema of its arguments
and a Python function that returns text. `execute()` turns one tool call of the
model into an `Observation`: the text that goes back into messages[] with role
"tool". A failure is an observation too, starting with "Erreur : ": the loop
goes on, and the model can change its strategy.

>>> import tempfile
>>> tools = workspace_tools(tempfile.mkdtemp())
>>> [tool.name for tool in tools]
['read_file', 'list_files', 'edit_file', 'bash']
>>> call = {"id": "call_1", "type": "function",
...         "function": {"name": "read_file", "arguments": '{"path": "README.md"}'}}
>>> execute(call, tools)
Observation(content='Erreur : README.md introuvable', is_error=True, timed_out=False)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from . import shell
from .workspace import ToolError, Workspace

ERROR = "Erreur : "  # how every failed observation starts
TIMEOUT = ERROR + "délai de "  # how an observation of a command out of time starts


@dataclass(frozen=True)
class Tool:
    """A tool the model can call. A `timed` tool receives `timeout=` (seconds) from execute."""

    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema of the arguments object
    function: Callable[..., str]
    timed: bool = False

    def schema(self) -> dict[str, Any]:
        """The tool's definition, as sent to the model in the Chat Completions `tools` list."""
        return {"type": "function", "function": {
            "name": self.name, "description": self.description, "parameters": self.parameters}}


@dataclass(frozen=True)
class Observation:
    """What a tool call gives back: the text for the model, and two flags for the harness."""

    content: str
    is_error: bool
    timed_out: bool = False

    @classmethod
    def of(cls, content: str) -> Observation:
        # The flags are read from the text itself: the harness knows what the model sees.
        return cls(content, content.startswith(ERROR), content.startswith(TIMEOUT))


class BadCall(Exception):
    """A tool call that cannot be run as asked (unknown tool, bad arguments)."""


def execute(call: dict[str, Any], tools: Sequence[Tool], timeout: float = 60.0) -> Observation:
    """Run one tool call of the model. Never raises: every failure is an observation."""
    try:
        tool, arguments = _prepare(call, tools)
    except BadCall as err:
        return Observation(ERROR + str(err), is_error=True)
    except Exception as err:  # a strange call or schema: still an answer for the model
        return Observation(f"{ERROR}appel illisible ({err!r})", is_error=True)
    try:
        extra = {"timeout": timeout} if tool.timed else {}
        content = tool.function(**arguments, **extra)
    except Exception as err:  # a broken tool must not stop the loop: the model reads why
        crash = f"{tool.name} a échoué : {type(err).__name__} : {err}"
        return Observation(ERROR + crash, is_error=True)
    return Observation.of(content if isinstance(content, str) else str(content))


def _prepare(call: object, tools: Sequence[Tool]) -> tuple[Tool, dict[str, Any]]:
    """The tool asked for and its checked arguments, or BadCall saying what is wrong."""
    function = call.get("function") if isinstance(call, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(function, dict) or not isinstance(name, str):
        raise BadCall('appel mal formé : il faut {"function": {"name": ..., "arguments": ...}}')
    known = {tool.name: tool for tool in tools}
    if name not in known:
        raise BadCall(f"outil inconnu : {name}. Outils disponibles : {', '.join(known)}")
    arguments = _parse_arguments(function.get("arguments"), name)
    _check_arguments(arguments, known[name])
    return known[name], arguments


def _parse_arguments(raw: object, name: str) -> dict[str, Any]:
    """The arguments object: a JSON string (the API's format) or, tolerated, a dict."""
    if raw is None or raw == "":  # some models send nothing for a tool without arguments
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError) as err:
            raise BadCall(f"arguments de {name} : JSON invalide ({err})") from None
    if not isinstance(raw, dict):
        raise BadCall(f"arguments de {name} : un objet JSON est attendu, reçu {json_type(raw)}")
    return raw


def _check_arguments(arguments: dict[str, Any], tool: Tool) -> None:
    """Required fields present, no unknown field, each of the JSON type of the schema."""
    properties = tool.parameters.get("properties", {})
    missing = [field for field in tool.parameters.get("required", []) if field not in arguments]
    if missing:
        raise BadCall(f"{tool.name} : argument manquant : {', '.join(missing)}")
    # Refused even when the schema allows extras: the Python function would not accept them.
    unknown = [field for field in arguments if field not in properties]
    if unknown:
        raise BadCall(f"{tool.name} : argument inconnu : {', '.join(unknown)}. "
                      f"Arguments acceptés : {', '.join(properties) or 'aucun'}")
    for field, value in arguments.items():
        expected, actual = properties[field].get("type"), json_type(value)
        if expected and actual != expected and (expected, actual) != ("number", "integer"):
            raise BadCall(f"{tool.name} : {field} doit être de type {expected}, reçu {actual}")


def json_type(value: object) -> str:
    """The JSON Schema type name of a decoded JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):  # before int: in Python, True is an int
        return "boolean"
    names = {int: "integer", float: "number", str: "string", list: "array", dict: "object"}
    return next((n for kind, n in names.items() if isinstance(value, kind)), type(value).__name__)


def workspace_tools(root: str | Path) -> list[Tool]:
    """read_file, list_files, edit_file and bash, all confined to the folder `root`."""
    ws = Workspace(root)
    path = {"path": "Chemin relatif au dossier de travail, par exemple README.md"}
    return [
        Tool("read_file", "Lit un fichier texte du dossier de travail.",
             _strings(path), _observing(ws.read_text)),
        Tool("list_files", "Liste un dossier (2 niveaux) ; les dossiers finissent par /.",
             _strings({}, {"path": "Dossier relatif, « . » par défaut"}),
             _observing(ws.listing)),
        Tool("edit_file", "Remplace dans un fichier un passage exact et unique.",
             _strings({**path, "old": "Passage exact à remplacer, unique dans le fichier",
                       "new": "Texte qui le remplace"}), _observing(ws.edit)),
        Tool("bash", "Exécute une commande bash dans le dossier de travail (durée limitée).",
             _strings({"command": "La commande, par exemple : pytest -q"}),
             _observing(partial(shell.run, cwd=ws.root)), timed=True),
    ]


def _observing(function: Callable[..., str]) -> Callable[..., str]:
    """The same function, its ToolError turned into an "Erreur : ..." observation."""

    def tool(*args: Any, **kwargs: Any) -> str:
        try:
            return function(*args, **kwargs)
        except ToolError as err:
            return ERROR + str(err)

    return tool


def _strings(required: dict[str, str], optional: dict[str, str] | None = None) -> dict[str, Any]:
    """JSON schema of an object of string fields (field name -> description)."""
    fields = {**required, **(optional or {})}
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": text}
                       for name, text in fields.items()},
        "required": list(required),
        "additionalProperties": False,
    }
