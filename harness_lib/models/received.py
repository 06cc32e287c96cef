"""The assistant message of a 200 reply: checked, kept whole, its tool calls paired.

RULE 1 says the assistant message goes back into messages[] complete: a reasoning
model refuses the next call without its `reasoning_content` (DeepSeek), its
`reasoning_details` (OpenRouter) or its thought signatures (`extra_content`,
Gemini). So `assistant_message` keeps every field the provider sent, and changes
only what the next request could not carry, each change said in `notes`:

- `content: null` without tool calls becomes `""` (null would be refused next time);
- a tool call without id (Gemini's OpenAI-compatible endpoint sends `""`) gets a
  local one, `call_<message>_<k>`, stable and unique in the conversation, so that
  its result can answer it (RULE 2); Gemini accepts such ids back;
- `arguments` sent as an object becomes the JSON text the API expects; a missing
  `type` becomes "function";
- a legacy `function_call` (no `tool_calls`) becomes `tool_calls[0]`, with a local id;
- a `name` the API would refuse next time (`null`, or not letters, digits, _ and -)
  is dropped: it is optional for an assistant message.

>>> raw = {"role": "assistant", "content": None, "reasoning_content": "Je lis.",
...        "tool_calls": [{"id": "", "type": "function",
...                        "function": {"name": "read_file", "arguments": {"path": "a"}}}]}
>>> message, notes = assistant_message(raw, position=2)
>>> message["reasoning_content"], message["tool_calls"][0]["id"]
('Je lis.', 'call_2_0')
>>> message["tool_calls"][0]["function"]["arguments"]
'{"path": "a"}'
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import ApiError
from ..messages import NAME, Message

MALFORMED = ("L’API a répondu 200, mais son message est mal formé ({what}) : il ne peut pas "
             "entrer dans messages[]. Réessayez, ou vérifiez base_url.")


def assistant_message(raw: dict[str, Any], position: int) -> tuple[Message, list[str]]:
    """The message to keep (every field), and what had to change; ApiError if unusable.

    `position` is the index the message will have in messages[]: local ids use it.
    """
    if raw.get("role") not in (None, "assistant"):
        raise malformed(f"role {json.dumps(raw.get('role'))[:40]} au lieu de assistant")
    content, calls = raw.get("content"), raw.get("tool_calls")
    if content is not None and not isinstance(content, (str, list)):
        raise malformed(f"content est {_kind(content)}, pas un texte")
    if isinstance(content, list) and not all(_part(p) for p in content):
        raise malformed("content est une liste dont une partie n’est pas un objet typé")
    if calls is not None and not isinstance(calls, list):
        raise malformed(f"tool_calls est {_kind(calls)}, pas une liste")
    notes: list[str] = []
    message: Message = {**raw, "role": "assistant"}  # every field kept, in its order
    if raw.get("function_call") is not None and not calls:  # the legacy form of one call
        calls = [legacy_call(message.pop("function_call"), position, notes)]
    tool_calls = [_tool_call(k, call, position, notes) for k, call in enumerate(calls or [])]
    if tool_calls:
        message["tool_calls"] = tool_calls
    else:  # `tool_calls: []` is refused by the API at the next call
        message.pop("tool_calls", None)
    name = message.get("name", "_")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        notes.append(f"name {json.dumps(message.pop('name'))[:40]} : retiré, l’API le "
                     "refuserait au prochain appel")
    if content is None and not tool_calls:  # cut or filtered: "" keeps messages[] valid
        message["content"] = ""
        notes.append("content null sans demande d’outil : remplacé par \"\"")
    elif content == [] and not tool_calls:  # no part at all: the API refuses an empty list
        message["content"] = ""
        notes.append("content liste vide sans demande d’outil : remplacé par \"\"")
    return message, notes


def legacy_call(function: object, position: int, notes: list[str]) -> dict[str, Any]:
    """A `function_call` (the API's form before tool_calls: Azure's GPT-4, older servers)
    as the tool call it is: read, run and answered like any other, never dropped."""
    if not isinstance(function, dict):
        raise malformed(f"function_call est {_kind(function)}, pas un objet name/arguments")
    call_id = f"call_{position}_0"
    notes.append(f"function_call (ancienne forme d’un appel d’outil) lu comme tool_calls[0], "
                 f"id local {call_id}")
    return {"id": call_id, "type": "function", "function": function}


def _part(part: object) -> bool:
    """A content part the next request can carry: an object with its `type`, and a text
    part with its text. Its type may be the provider's own (Mistral's `thinking`)."""
    if not isinstance(part, dict) or not isinstance(part.get("type"), str):
        return False
    return part["type"] != "text" or isinstance(part.get("text"), str)


def _tool_call(k: int, call: object, position: int, notes: list[str]) -> dict[str, Any]:
    """tool_calls[k] with every field the provider added (index, extra_content...)."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(call, dict) or not isinstance(function, dict):
        raise malformed(f"tool_calls[{k}] sans objet function")
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise malformed(f"tool_calls[{k}] sans nom d’outil")
    if call.get("type") not in (None, "function"):
        raise malformed(f"tool_calls[{k}].type vaut {json.dumps(call.get('type'))[:40]}")
    kept = {**call, "type": "function", "function": dict(function)}
    if not isinstance(call.get("id"), str) or not call["id"]:
        kept["id"] = f"call_{position}_{k}"  # unique: one message per position
        notes.append(f"tool_calls[{k}] sans id : id local {kept['id']}")
    arguments = function.get("arguments")
    if not isinstance(arguments, str):  # a few servers send an object, not a JSON string
        kept["function"]["arguments"] = json.dumps({} if arguments is None else arguments,
                                                   ensure_ascii=False)
        notes.append(f"tool_calls[{k}].function.arguments : objet écrit en texte JSON")
    return kept


def _kind(value: object) -> str:
    names = {bool: "un booléen", int: "un nombre", float: "un nombre", list: "une liste",
             dict: "un objet"}
    return next((n for t, n in names.items() if isinstance(value, t)), type(value).__name__)


def malformed(what: str) -> ApiError:
    return ApiError(200, f"malformed reply: {what}", explication=MALFORMED.format(what=what))
