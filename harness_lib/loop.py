"""The agentic loop: call the model, run the tools it asks for, append, repeat.

The whole loop is `run()` below; read it next to the chapter's pseudo-code.
The three places to look at are marked RULE 1, RULE 2 and EXIT.

>>> from harness_lib import MockModel, workspace_tools
>>> from harness_lib.course.scenarios import example_workspace
>>> result = run("Lis README.md et résume le projet", MockModel(),
...              workspace_tools(example_workspace("mini")))
>>> result.reason, [m["role"] for m in result.messages]
('answer', ['system', 'user', 'assistant', 'tool', 'assistant'])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .errors import HarnessError, ModelTimeout
from .messages import system, tool_result, user
from .models import Completion, Model
from .policy import DEFAULT_POLICY, Approver, Policy
from .recorder import Recorder
from .tools import Observation, Tool
from .trace import Event, Run

SYSTEM_PROMPT = (
    "Tu es un agent. Tu peux utiliser des outils pour lire, lister et modifier les fichiers "
    "de l'espace de travail et lancer des commandes. Réponds en français."
)


@dataclass(frozen=True)
class Limits:
    """The harness's own stop conditions: the model does not control these."""

    max_turns: int = 15  # model calls that may ask for tools
    model_timeout: float = 120.0  # seconds for one model call
    tool_timeout: float = 60.0  # seconds for one tool
    max_tokens: int | None = None  # tokens billed over the whole run (input + output)
    max_cost: float | None = None  # dollars, with the model's `price`
    max_failures: int = 3  # failed tool results in a row

    def __post_init__(self) -> None:
        # Said here, where the typo is, rather than deep inside httpx in the middle of a run.
        rules = {"max_turns": "un entier ≥ 1", "max_failures": "un entier ≥ 1",
                 "model_timeout": "un nombre de secondes > 0 (et fini)",
                 "tool_timeout": "un nombre de secondes > 0 (et fini)",
                 "max_tokens": "None ou un entier ≥ 0", "max_cost": "None ou un nombre ≥ 0"}
        for name, rule in rules.items():
            value = getattr(self, name)
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if name in ("max_turns", "max_failures"):
                ok = number and isinstance(value, int) and value >= 1
            elif name.endswith("timeout"):
                ok = number and 0 < value < float("inf")  # NaN fails both comparisons
            else:
                ok = value is None or (number and value >= 0 and (
                    name == "max_cost" or isinstance(value, int)))
            if not ok:
                raise ValueError(f"Limits : {name} doit être {rule}, pas {value!r}")


def run(
    task: str,
    model: Model,
    tools: Sequence[Tool],
    *,
    limits: Limits = Limits(),
    policy: Policy = DEFAULT_POLICY,
    approver: Approver | None = None,
    on_event: Callable[[Event], None] | None = None,
    system_prompt: str = SYSTEM_PROMPT,
) -> Run:
    """Run one mission to its end and return the full story (messages, trace, reason)."""
    rec = Recorder(system(system_prompt), tools, on_event, price=getattr(model, "price", None))
    rec.add("task", f"Mission : {task}", user(task))
    for turn in range(1, limits.max_turns + 1):
        if over_budget := rec.over_budget(limits):
            return rec.stop("budget", over_budget)
        rec.add("request", f"Appel {turn} : messages[] + outils", data={"turn": turn})
        try:
            reply = model.complete(rec.messages, rec.schemas, timeout=limits.model_timeout)
        except ModelTimeout as err:
            return rec.stop("timeout", f"Arrêt : {err.explication}")
        except HarnessError as err:  # refused by the API, network down, no key...
            return rec.stop("api_error", f"Arrêt : {err} — {err.explication}")
        # RULE 1: keep the assistant message as is, tool_calls included.
        rec.add("reply", describe(reply), reply.message, data=usage_of(reply))
        # EXIT: no tool request means the model has finished.
        if not reply.tool_calls:
            return rec.finish(reply)
        for call in reply.tool_calls:
            seen = act(rec, call, tools, policy, approver, limits.tool_timeout)
            # RULE 2: every call gets its result, under the same tool_call_id.
            rec.add("tool_result", seen.content, tool_result(call.get("id", ""), seen.content),
                    data={"tool": tool_name(call), "id": call.get("id"), "error": seen.is_error})
        if stop := rec.check_after_tools(limits):
            return stop
    return rec.stop("max_turns", f"Arrêt propre: maximum de {limits.max_turns} tours dépassé.")


def act(rec: Recorder, call: dict, tools: Sequence[Tool], policy: Policy,
        approver: Approver | None, timeout: float) -> Observation:
    """Check one call against the policy, ask a human if needed, then run it."""
    if tool_name(call) not in {t.name for t in tools}:  # a made-up tool: the model is told so
        return rec.execute(call, tools, timeout)
    decision = rec.permission(call, policy)
    if decision.verdict == "deny":
        rec.flag("denied", f"Arrêt : action interdite ({decision.reason}).")
        return Observation(f"Refusé : {decision.reason}", is_error=True)
    if decision.verdict == "ask":
        if approver is None:  # nobody to ask: the run stops after this turn
            rec.flag("human", f"Arrêt : validation humaine nécessaire pour {tool_name(call)}.")
            return Observation(f"Refusé : validation humaine nécessaire ({decision.reason})", True)
        if not approver(call, decision):
            return Observation("Refusé : la personne n'a pas autorisé cette action.", True)
    return rec.execute(call, tools, timeout)


def describe(reply: Completion) -> str:
    """The arrow label of a model reply: its tool calls, or its final answer."""
    calls = [
        f"{tool_name(c)}({c.get('function', {}).get('arguments', '')})" for c in reply.tool_calls
    ]
    return "tool_call " + ", ".join(calls) if calls else "Réponse finale"


def usage_of(reply: Completion) -> dict:
    return {"usage": reply.usage, "finish_reason": reply.finish_reason}


def tool_name(call: dict) -> str:
    return str(call.get("function", {}).get("name", "?"))
