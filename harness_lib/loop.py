"""The agentic loop: call the model, check and run the tools it asks for, append, repeat.

The whole loop is `run()` below; read it next to the chapter's pseudo-code (and
minimal_loop.py first: the same loop in a dozen lines, without the limits). `run()`
keeps one list, `messages`, and appends to it at two places, RULE 1 and RULE 2;
CALL and EXIT mark the two others. The `Recorder` (`rec`) only watches: it writes
down each step (the trace, the context size, the bill) and decides nothing.

>>> from harness_lib import MockModel, workspace_tools
>>> from harness_lib.course.missions.scenarios import example_workspace
>>> result = run("Lis README.md et résume le projet", MockModel(),
...              workspace_tools(example_workspace("mini")))
>>> result.reason, [m["role"] for m in result.messages]
('answer', ['system', 'user', 'assistant', 'tool', 'assistant'])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .errors import HarnessError, ModelTimeout
from .limits import Limits
from .messages import SYSTEM_PROMPT, ToolCall, read_call, system, tool_result, user
from .models.model import Completion, Model, cost
from .policy import DEFAULT_POLICY, Approver, Decision, Policy, check_permission
from .recorder import Recorder
from .secrets import redact
from .text import after_colon, dollars, french_number
from .tools.tool import Observation, Tool, run_tool
from .trace import Event, Run, StopReason

__all__ = ["SYSTEM_PROMPT", "run"]


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
    messages = [system(system_prompt), user(task)]
    schemas = [tool.schema() for tool in tools]  # the tool definitions, sent with every call
    rec = Recorder(messages, schemas, on_event, model.price)
    for turn in range(1, limits.max_turns + 1):
        if over := over_budget(rec, limits):
            return rec.stop("budget", over)
        rec.request(turn)
        try:
            # CALL: the whole messages[] again, with the tools: the model remembers nothing.
            reply = model.complete(messages, schemas, timeout=limits.model_timeout)
        except ModelTimeout as err:
            return rec.stop("timeout", f"Arrêt : {after_colon(err.explication)}")
        except HarnessError as err:  # refused by the API, network down, no key...
            return rec.stop("api_error", f"Arrêt : {err} — {err.explication}")
        # RULE 1: the assistant message goes into messages[] complete, every field included.
        messages.append(reply.message)
        rec.reply(reply)
        # EXIT: no tool request means the model has finished.
        if not reply.tool_calls:
            return finish(rec, reply)
        for request in reply.tool_calls:
            call = read_call(request)  # its name, its decoded arguments, its id
            seen = act(rec, call, tools, policy, approver, limits.tool_timeout)
            # RULE 2: every call gets its result in messages[], under the same tool_call_id.
            messages.append(tool_result(call.id, seen.content))
            rec.tool_result(call, seen)
        if stop := stop_after_turn(rec, limits):
            return rec.stop(*stop)
    return rec.stop("max_turns", f"Arrêt propre: maximum de {limits.max_turns} tours dépassé.")


def act(rec: Recorder, call: ToolCall, tools: Sequence[Tool], policy: Policy,
        approver: Approver | None, timeout: float) -> Observation:
    """Check one call against the policy, ask a human if needed, then run the tool."""
    if call.name in {t.name for t in tools}:  # a made-up tool is not checked: run_tool says so
        decision = check_permission(call, policy)
        rec.permission(call, decision)
        if refused := refusal(rec, call, decision, approver):
            return refused
    rec.tool_call(call)
    seen = run_tool(call, tools, timeout, network=policy.network)  # secrets already hidden
    if seen.timed_out:
        rec.flag("timeout", f"Arrêt : l’outil {call.name} a dépassé {french_number(timeout)} s.")
    return seen


def refusal(rec: Recorder, call: ToolCall, decision: Decision,
            approver: Approver | None) -> Observation | None:
    """The observation of a call that will not run, or None: it may run."""
    if decision.verdict == "allow":
        return None
    if decision.verdict == "deny":
        rec.flag("denied", f"Arrêt : action interdite ({decision.reason}).")
        why = decision.reason
    elif approver is None:  # "ask", and nobody to ask: the run stops after this turn
        rec.flag("human", f"Arrêt : validation humaine nécessaire pour {call.name}.")
        why = f"validation humaine nécessaire ({decision.reason})"
    elif approver(call, decision):
        return None  # the human said yes
    else:
        why = "la personne n’a pas autorisé cette action."
    return Observation(redact(f"Refusé : {why}"), is_error=True)  # it quotes the command


def finish(rec: Recorder, reply: Completion) -> Run:
    """Check the final answer before returning it: a cut or withheld answer is not one."""
    if reply.refusal:  # the model declined, in its provider's words: not an empty success
        return rec.stop("refusal", f"Arrêt : le modèle refuse de répondre : « {reply.refusal} »")
    if reply.finish_reason == "content_filter":  # the provider withheld the answer
        return rec.stop("content_filter", "Arrêt : le fournisseur a bloqué la réponse "
                        "(filtre de contenu) : reformulez la mission, ou changez de modèle.")
    if reply.finish_reason == "length":
        cut = "Arrêt : la réponse du modèle a été coupée (limite de longueur)."
        return rec.stop("length", cut)
    return rec.answer(reply)


def over_budget(rec: Recorder, limits: Limits) -> str | None:
    """Why the next call would go over budget, or None. It resends the whole context."""
    sent = rec.next_call_tokens
    if limits.max_tokens is not None and rec.spent_tokens + sent > limits.max_tokens:
        return (f"Arrêt : budget de {french_number(limits.max_tokens)} tokens atteint "
                f"({french_number(rec.spent_tokens)} déjà facturés, le prochain appel en enverrait "
                f"{french_number(sent)}).")
    next_cost = cost(rec.price, sent, 0)
    if limits.max_cost is not None and rec.spent_cost + next_cost > limits.max_cost:
        return (f"Arrêt : budget de {dollars(limits.max_cost)} atteint "
                f"({dollars(rec.spent_cost)} déjà dépensé).")
    return None


def stop_after_turn(rec: Recorder, limits: Limits) -> tuple[StopReason, str] | None:
    """A reason to stop, once every result of the turn is in messages[] (it stays valid)."""
    if rec.flags:  # an action denied, a human needed, a tool out of time
        return rec.flags[0]
    if rec.failures >= limits.max_failures:
        return "failures", f"Arrêt : {rec.failures} échecs d’outil d’affilée."
    return None
