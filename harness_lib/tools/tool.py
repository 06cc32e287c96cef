"""Tools: what the model may ask for, and how the harness runs it.

A tool is a name, a short French description, a JSON schema of its arguments
and a Python function that returns text, or raises `ToolError` to say what went
wrong. `run_tool()` turns one tool call of the model into an `Observation`: the
text that goes back into messages[] with role "tool". A failure is an observation
too, starting with "Erreur : ": the loop goes on, and the model can change its strategy.

>>> import tempfile
>>> from harness_lib.messages import ToolCall
>>> from harness_lib.tools import workspace_tools
>>> tools = workspace_tools(tempfile.mkdtemp())
>>> run_tool(ToolCall("read_file", {"path": "README.md"}), tools)
Observation(content='Erreur : README.md introuvable', is_error=True, timed_out=False)
>>> run_tool(ToolCall("read_file", {"path": 3}), tools).content
'Erreur : read_file\\xa0: path doit être de type string, reçu un entier'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from ..errors import ToolError, ToolTimeout
from ..limits import TOOL_TIMEOUT
from ..messages import ToolCall, got
from ..secrets import redact
from ..text import shorten

ERROR = "Erreur : "  # how every failed observation starts: the model reads it


@dataclass(frozen=True)
class Tool:
    """A tool the model can call. A `timed` tool receives `timeout=` (seconds) from run_tool,
    a `sandboxed` one `network=` (whether its sandbox keeps the network: `Policy.network`)."""

    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema of the arguments object
    function: Callable[..., str]
    timed: bool = False
    sandboxed: bool = False  # runs in the OS sandbox: receives `network=` from run_tool

    def schema(self) -> dict[str, Any]:
        """The tool's definition, as sent to the model in the Chat Completions `tools` list."""
        return {"type": "function", "function": {
            "name": self.name, "description": self.description, "parameters": self.parameters}}


@dataclass(frozen=True)
class Observation:
    """What a tool call gives back: the text for the model, and two flags for the harness."""

    content: str
    is_error: bool = False
    timed_out: bool = False  # the loop stops after this turn


def run_tool(call: ToolCall, tools: Sequence[Tool], timeout: float = TOOL_TIMEOUT, *,
             network: bool = False) -> Observation:
    """Run one tool call of the model. Never raises: every failure is an observation.
    Whatever the tool printed, a known secret in it is *** (secrets.redact). `network`:
    whether a sandboxed tool (bash) keeps the network, as `Policy(network=True)` says."""
    seen = _observed(call, tools, timeout, network)
    return replace(seen, content=redact(seen.content))


def _observed(call: ToolCall, tools: Sequence[Tool], timeout: float, network: bool
              ) -> Observation:
    try:
        tool, arguments = _checked(call, tools)
        extra: dict[str, Any] = {"timeout": timeout} if tool.timed else {}
        if tool.sandboxed:
            extra["network"] = network
        content = tool.function(**arguments, **extra)
    except ToolTimeout as err:
        return Observation(ERROR + str(err), is_error=True, timed_out=True)
    except ToolError as err:  # the call or the tool says what is wrong: the model reads it
        return Observation(ERROR + str(err), is_error=True)
    except Exception as err:  # a broken tool must not stop the loop: the model reads why
        crash = f"{call.name} a échoué : {type(err).__name__} : {err}"
        return Observation(ERROR + crash, is_error=True)
    return Observation(content if isinstance(content, str) else str(content))


def _checked(call: ToolCall, tools: Sequence[Tool]) -> tuple[Tool, dict[str, Any]]:
    """The tool asked for and its arguments, once they fit its schema; else ToolError."""
    if call.name is None:
        raise ToolError('appel mal formé : il faut {"function": {"name": ..., "arguments": ...}}')
    known = {tool.name: tool for tool in tools}
    if call.name not in known:
        raise ToolError(f"outil inconnu : {shorten(call.name)}. "  # a name may be 1 MB long
                        f"Outils disponibles : {', '.join(known)}")
    if call.arguments is None:
        raise ToolError(f"arguments de {call.name} : {call.problem}")
    tool = known[call.name]
    problem = argument_problem(call.arguments, tool.parameters)
    if problem:
        raise ToolError(f"{tool.name} : {problem}")
    return tool, call.arguments


def argument_problem(arguments: dict[str, Any], schema: object) -> str | None:
    """What is wrong with `arguments` for this JSON schema, in French; None if nothing.

    fastjsonschema checks them (required, types, enums...); only the words are ours.
    """
    if not isinstance(schema, dict):
        return "le schéma de ses arguments n’est pas un objet JSON : l’outil est à corriger"
    import fastjsonschema  # here, not at the top: `import harness_lib` stays light

    try:
        validate = _validator(json.dumps(schema, sort_keys=True))
    except Exception as err:  # a schema the library cannot read: the tool is to be fixed
        return f"le schéma de ses arguments est invalide ({type(err).__name__} : {err})"
    try:
        validate(arguments)
    except fastjsonschema.JsonSchemaValueException as err:
        if (err.rule, err.name) != ("additionalProperties", "data"):  # said below, with names
            return _explained(err)
    # Refused even when the schema allows extras: the Python function would not accept them.
    properties = schema.get("properties")
    known = properties if isinstance(properties, dict) else {}
    unknown = [str(field) for field in arguments if field not in known]
    if unknown:
        return (f"argument inconnu : {', '.join(unknown)}. "
                f"Arguments acceptés : {', '.join(known) or 'aucun'}")
    return None


@cache  # compiled once per schema: a run checks the same four schemas at every turn
def _validator(schema: str) -> Callable[[object], object]:
    import fastjsonschema

    return fastjsonschema.compile(json.loads(schema))


def _explained(err: Any) -> str:
    """A fastjsonschema error in French: which argument, what is wrong."""
    field = err.name.removeprefix("data").removeprefix(".") or "les arguments"
    if err.rule == "required":
        missing = [name for name in err.rule_definition if name not in err.value]
        return f"argument manquant : {', '.join(missing)}"
    if err.rule == "type":
        expected = " ou ".join(err.rule_definition) if isinstance(
            err.rule_definition, list) else err.rule_definition
        return f"{field} doit être de type {expected}, reçu {got(err.value)['got_fr']}"
    return f"{field} ne respecte pas la règle « {err.rule} » du schéma ({err.rule_definition!r})"
