"""What the API checks in `tools`, the list of tool definitions sent with each call.

`tools_error(tools)` is the API's 400 for the first thing it would refuse, with the
provider's English text and a French explanation, or None when the list is fine.
MockModel answers it like the API, so that a malformed definition gets a clear
refusal instead of a crash deep inside the mock.

>>> print(tools_error([{"type": "function", "function": {"name": "lire fichier"}}]).message)
Invalid 'tools[0].function.name': string does not match pattern. Expected a string that ...
>>> tools_error([]) is None
True
"""

from __future__ import annotations

from typing import Any

from ..errors import ApiError
from ..messages import NAME, got
from .message_rules import short

SHAPE = ('Une définition d’outil s’écrit {"type": "function", "function": {"name": ..., '
         '"description": ..., "parameters": {...}}}.')


def tools_error(tools: object) -> ApiError | None:
    """The API's 400 for the first problem of `tools`, or None."""
    if not isinstance(tools, list):
        return _type("tools", tools, "an array of objects", "une liste")
    for k, tool in enumerate(tools):
        error = _tool_error(f"tools[{k}]", tool)
        if error is not None:
            return error
    return None


def _tool_error(path: str, tool: object) -> ApiError | None:
    if not isinstance(tool, dict):
        return _type(path, tool, "an object", "un objet (dict)")
    for field, kind, french in (("type", str, "une chaîne"), ("function", dict, "un objet")):
        if field not in tool:
            return _error(f"Missing required parameter: '{path}.{field}'.",
                          "missing_required_parameter", f"{path}.{field}",
                          f"{path} : il manque le champ {field}.")
        if not isinstance(tool[field], kind):
            expected = "an object" if kind is dict else "a string"
            return _type(f"{path}.{field}", tool[field], expected, french)
    if tool["type"] not in ("function", "custom"):
        return _error(f"Invalid value: '{tool['type']}'. Supported values are: 'function' and "
                      "'custom'.", "invalid_value", f"{path}.type",
                      f"{path}.type vaut « {short(tool['type'])} » : ici, « function ».")
    return _function_error(f"{path}.function", tool["function"])


def _function_error(path: str, function: dict[str, Any]) -> ApiError | None:
    name = function.get("name")
    if "name" not in function:
        return _error(f"Missing required parameter: '{path}.name'.",
                      "missing_required_parameter", f"{path}.name",
                      f"{path} : il manque le nom de l’outil (name).")
    if not isinstance(name, str):
        return _type(f"{path}.name", name, "a string", "une chaîne")
    if not NAME.fullmatch(name):
        return _error(f"Invalid '{path}.name': string does not match pattern. Expected a string "
                      "that matches the pattern '^[a-zA-Z0-9_-]+$'.", "invalid_value",
                      f"{path}.name", f"{path}.name vaut « {short(name)} » : seuls les lettres "
                      "sans accent, chiffres, _ et - sont permis.")
    parameters = function.get("parameters", {})
    if not isinstance(parameters, dict):
        return _type(f"{path}.parameters", parameters, "an object", "un objet (un schéma JSON)")
    return None


def _type(path: str, value: object, expected: str, french: str) -> ApiError:
    kind = got(value)
    return _error(f"Invalid type for '{path}': expected {expected}, but got {kind['got']} "
                  "instead.", "invalid_type", path,
                  f"{path} doit être {french}, pas {kind['got_fr']}.")


def _error(message: str, code: str, param: str, explication: str) -> ApiError:
    body = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return ApiError(400, message, explication=f"{explication} {SHAPE}", body={"error": body})
