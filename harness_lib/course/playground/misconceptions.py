"""The classic mistakes behind a refused messages[], each explained in French.

The API says *what* it refuses (« messages with role 'tool' must be a response to a
preceeding message with 'tool_calls' »); a learner needs to know *why* their list looks
like that. `explain(messages, problems)` reads the list and the Problems that
check_conversation found, and names the misconception behind the first one it recognises:

    definitions  a tool definition put inside messages[] (it travels in `tools`)
    before       a tool result placed before the assistant message that asks for it
    separated    a result that comes after another message, not right after its call
    invented     a tool_call_id that no assistant message ever asked for
    dropped      a tool result whose assistant message is not in messages[] at all

>>> from harness_lib.messages import tool_call, tool_result, user, assistant
>>> from harness_lib.mock import check_conversation
>>> ask = assistant(tool_calls=[tool_call("call_1", "read_file", {"path": "README.md"})])
>>> late = [user("Lis README.md"), tool_result("call_1", "# Projet"), ask]
>>> explain(late, check_conversation(late)).kind
'before'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...messages import RULE_1, RULE_2
from ...mock.message_rules import Problem

__all__ = ["Misconception", "explain"]


@dataclass(frozen=True)
class Misconception:
    """What the learner probably believed (`kind`, see above), and how to fix it (French)."""

    kind: str
    index: int  # the message of messages[] it is about
    text: str


def explain(messages: object, problems: Sequence[Problem]) -> Misconception | None:
    """The misconception behind these problems, or None when none is recognised."""
    if not isinstance(messages, (list, tuple)) or not problems:
        return None
    found = _definition(messages)
    if found is not None:
        return found
    asked = _asked(messages)
    for problem in problems:  # the API's order: the first one we can explain
        if problem.index is None or not 0 <= problem.index < len(messages):
            continue
        message = messages[problem.index]
        if isinstance(message, dict) and message.get("role") == "tool":
            found = _result(problem.index, message, asked, messages)
            if found is not None:
                return found
    return None


def _definition(messages: Sequence[Any]) -> Misconception | None:
    """A tool definition ({"type": "function", "function": {...}}) in the list itself."""
    for i, message in enumerate(messages):
        items = message if isinstance(message, list) else [message]
        names = [_defined(item) for item in items]
        if any(name is not None for name in names):
            name = next(n for n in names if n is not None)
            return Misconception("definitions", i, (
                f"messages[{i}] n’est pas un message mais la définition d’un outil ({name}). "
                "Les définitions des outils ne font pas partie de la conversation : elles "
                "voyagent à côté d’elle, dans le champ tools de la requête, et le modèle les "
                "reçoit ainsi à chaque appel. Retirez-la de messages[] : chaque appel envoie déjà "
                "les définitions des outils, à part."))
    return None


def _defined(item: object) -> str | None:
    """The tool's name when `item` is a tool definition (and not a message), else None."""
    if not isinstance(item, dict) or "role" in item:
        return None
    function = item.get("function")
    if item.get("type") == "function" or isinstance(function, dict):
        name = function.get("name") if isinstance(function, dict) else None
        return str(name) if name else "sans nom"
    return None


def _asked(messages: Sequence[Any]) -> dict[str, int]:
    """Each tool_call id asked in messages[] -> the assistant message that asks it."""
    asked: dict[str, int] = {}
    for i, message in enumerate(messages):
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                asked.setdefault(call["id"], i)
    return asked


def _result(i: int, message: dict[Any, Any], asked: dict[str, int],
            messages: Sequence[Any]) -> Misconception | None:
    """Why the tool result messages[i] answers nothing: misplaced, invented or orphaned."""
    call_id = message.get("tool_call_id")
    if not isinstance(call_id, str):
        return None
    where = asked.get(call_id)
    if where is not None and where > i:
        return Misconception("before", i, (
            f"messages[{i}] est le résultat de {call_id}, mais la demande {call_id} n’arrive "
            f"qu’au message {where} : le résultat est placé avant sa demande. messages[] se lit "
            "dans l’ordre de la conversation : d’abord le message assistant qui demande l’outil "
            f"({RULE_1.name}), puis le résultat ({RULE_2.name}), juste après."))
    turn = next((k for k in range(i - 1, -1, -1) if not _is_tool(messages[k])), None)
    if where is not None and turn is not None and turn != where and _calls(messages[turn]):
        return Misconception("invented", i, (
            f"messages[{i}] répond à {call_id}, une demande du message {where}, déjà passée ; "
            f"le message {turn} juste avant demande {', '.join(_calls(messages[turn]))}. Chaque "
            "résultat reprend l’identifiant de la demande à laquelle il répond, celle qui "
            "le précède."))
    if where is not None and turn is not None and turn != where:  # another message between
        return Misconception("separated", i, (
            f"messages[{i}] répond bien à {call_id}, demandé au message {where}, mais le message "
            f"{turn} s’intercale entre la demande et son résultat. Les résultats suivent "
            "immédiatement le message assistant qui les demande, avant tout autre message."))
    if where is not None:  # answers its own open request: not a misplaced result
        return None
    if turn is not None and _calls(messages[turn]):
        return Misconception("invented", i, (
            f"messages[{i}] répond à {call_id}, un identifiant qu’aucun message assistant n’a "
            f"demandé (le message {turn} juste avant demande "
            f"{', '.join(_calls(messages[turn]))}). Un tool_call_id ne s’invente pas : il se "
            "recopie, caractère pour caractère, depuis la demande du modèle."))
    return Misconception("dropped", i, (
        f"messages[{i}] est le résultat de {call_id}, mais aucun message de messages[] ne "
        f"porte la demande {call_id} : le message assistant qui la contenait a été oublié "
        f"({RULE_1.name} : {RULE_1.says}). Ajoutez-le avant le résultat, {RULE_1.code}, "
        f"{RULE_1.where}."))


def _calls(message: object) -> list[str]:
    """The ids an assistant message asks for (none for any other message)."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    return [str(c.get("id")) for c in calls if isinstance(c, dict)] \
        if isinstance(calls, list) else []


def _is_tool(message: object) -> bool:
    return isinstance(message, dict) and message.get("role") == "tool"
