"""The checks HandHarness shows, step by step: each agrees with what the API will answer.

`rule_1` says whether the model's reply is in messages[], unchanged; `misplaced` whether a
result stands where the API wants it (after its request, nothing between); `api_verdict`
is what the API would refuse, with the misconception behind it (playground/misconceptions).

>>> from harness_lib.messages import tool_result, user
>>> [f.field for f in api_verdict([user("Lis README.md"), tool_result("call_1", "?")])]
['API']
>>> api_verdict([user("Bonjour")])
[]
"""

from __future__ import annotations

import json
from typing import Any

from ...messages import RULE_1
from ...mock.conversation import check_conversation
from ...models.model import Completion
from ..playground.misconceptions import explain
from .tool_message import Feedback


def rule_1(messages: list[Any], reply: Completion, n: int) -> Feedback:
    ids = ", ".join(str(c.get("id")) for c in reply.tool_calls)
    if reply.message in messages:
        return Feedback(True, "règle 1", f"La réponse de l’appel {n} ({ids}) est dans messages[], "
                        "telle quelle.")
    return Feedback(False, "règle 1", f"La réponse de l’appel {n}, qui demande {ids}, n’est pas "
                    f"dans messages[] (ou a été modifiée) : {RULE_1.says}, {RULE_1.code}.")


def misplaced(messages: list[Any], result: dict[str, Any], reply: Completion,
               call_id: str) -> str:
    """Why the result of `call_id` is not where the API wants it: right after its request,
    among the tool messages that follow it. "" when it is there."""
    at = next(i for i, m in enumerate(messages) if m is result)
    asked = [i for i, m in enumerate(messages) if m == reply.message]
    if not asked:
        return (f"la demande {call_id} n’y est pas : ce résultat ne répond à rien ({RULE_1.name} "
                f"d’abord : {RULE_1.says} ; puis le résultat).")
    request = max((i for i in asked if i < at), default=None)
    if request is None:
        return (f"il est au message {at}, avant la demande {call_id} (message {asked[0]}) : "
                "un résultat vient toujours après sa demande.")
    between = [i for i in range(request + 1, at)
               if not (isinstance(messages[i], dict) and messages[i].get("role") == "tool")]
    if between:
        return (f"le message {between[0]} s’intercale entre la demande (message {request}) et "
                "le résultat : les résultats suivent immédiatement leur demande.")
    return ""


def api_verdict(messages: list[Any]) -> list[Feedback]:
    """What the API would answer to this messages[]: nothing when it accepts it."""
    problems = check_conversation(messages)
    if not problems:
        return []
    found = explain(messages, problems)
    why = f"Ce qui s’est sans doute passé : {found.text}" if found is not None \
        else problems[0].explication
    return [Feedback(False, "API", f"L’API refuserait ce messages[] : « {problems[0].message} » "
                     f"{why}")]


def asked(call: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
    """A call's tool name, arguments (decoded) and id."""
    function = call.get("function") or {}
    try:
        arguments = json.loads(function.get("arguments") or "{}")
    except ValueError:  # a real model may write broken JSON: compare it as text
        arguments = {"arguments": function.get("arguments")}
    return str(function.get("name")), arguments if isinstance(arguments, dict) else {}, \
        str(call.get("id"))

