"""La boucle agentique : appeler le modèle, vérifier et exécuter les outils demandés, ajouter.

Toute la boucle est `run()`, ci-dessous : lisez-la à côté du pseudo-code du chapitre (et
minimal_loop.py d’abord : la même boucle en une douzaine de lignes, sans les limites).
`run()` tient une liste, `messages`, et n’y ajoute qu’à deux endroits, RULE 1 et RULE 2 ;
CALL et EXIT marquent les deux autres. Les marques restent en anglais (le code les cherche),
les commentaires sont en français, pour le cours. Le `Recorder` (`rec`) ne fait que
regarder : il note chaque étape (la trace, la taille du contexte, la facture), sans rien
décider.

>>> from harness_lib import MockModel, workspace_tools
>>> from harness_lib.course.missions.tasks import example_workspace
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
    """Mène une mission jusqu’au bout et rend toute l’histoire (messages, trace, raison)."""
    messages = [system(system_prompt), user(task)]
    schemas = [tool.schema() for tool in tools]  # les définitions d’outils, à chaque appel
    rec = Recorder(messages, schemas, on_event, model.price)
    for turn in range(1, limits.max_turns + 1):
        if over := over_budget(rec, limits):
            return rec.stop("budget", over)
        rec.request(turn)
        try:
            # CALL : tout messages[] à nouveau, avec les outils : le modèle ne garde rien.
            reply = model.complete(messages, schemas, timeout=limits.model_timeout)
        except ModelTimeout as err:
            return rec.stop("timeout", f"Arrêt : {after_colon(err.explication)}")
        except HarnessError as err:  # refus de l’API, réseau coupé, pas de clé…
            return rec.stop("api_error", f"Arrêt : {err} — {err.explication}")
        # RULE 1 : le message assistant entre dans messages[] complet, tool_calls compris.
        messages.append(reply.message)
        rec.reply(reply)
        # EXIT : pas de demande d’outil, le modèle a terminé.
        if not reply.tool_calls:
            return finish(rec, reply)
        for request in reply.tool_calls:
            call = read_call(request)  # son nom, ses arguments décodés, son id
            seen = act(rec, call, tools, policy, approver, limits.tool_timeout)
            # RULE 2 : chaque demande reçoit son résultat, sous le même tool_call_id.
            messages.append(tool_result(call.id, seen.content))
            rec.tool_result(call, seen)
        if stop := stop_after_turn(rec, limits):
            return rec.stop(*stop)
    return rec.stop("max_turns", f"Arrêt propre: maximum de {limits.max_turns} tours dépassé.")


def act(rec: Recorder, call: ToolCall, tools: Sequence[Tool], policy: Policy,
        approver: Approver | None, timeout: float) -> Observation:
    """Vérifie une demande (politique, accord humain s’il le faut), puis exécute l’outil."""
    if call.name in {t.name for t in tools}:  # un outil inventé : run_tool le dira
        decision = check_permission(call, policy)
        rec.permission(call, decision)
        if refused := refusal(rec, call, decision, approver):
            return refused
    rec.tool_call(call)
    seen = run_tool(call, tools, timeout, network=policy.network)  # secrets déjà masqués
    if seen.timed_out:
        rec.flag("timeout", f"Arrêt : l’outil {call.name} a dépassé {french_number(timeout)} s.")
    return seen


def refusal(rec: Recorder, call: ToolCall, decision: Decision,
            approver: Approver | None) -> Observation | None:
    """L’observation d’une demande qui ne sera pas exécutée, ou None : elle peut l’être."""
    if decision.verdict == "allow":
        return None
    if decision.verdict == "deny":
        rec.flag("denied", f"Arrêt : action interdite ({decision.reason}).")
        why = decision.reason
    elif approver is None:  # « ask », et personne à qui demander : arrêt après ce tour
        rec.flag("human", f"Arrêt : validation humaine nécessaire pour {call.name}.")
        why = f"validation humaine nécessaire ({decision.reason})"
    elif approver(call, decision):
        return None  # la personne a dit oui
    else:
        why = "la personne n’a pas autorisé cette action."
    return Observation(redact(f"Refusé : {why}"), is_error=True)  # elle cite la commande


def finish(rec: Recorder, reply: Completion) -> Run:
    """Vérifie la réponse finale : une réponse coupée ou retenue n’en est pas une."""
    if reply.refusal:  # le modèle refuse : pas un succès vide
        return rec.stop("refusal", f"Arrêt : le modèle refuse de répondre : « {reply.refusal} »")
    if reply.finish_reason == "content_filter":  # le fournisseur a retenu la réponse
        return rec.stop("content_filter", "Arrêt : le fournisseur a bloqué la réponse "
                        "(filtre de contenu) : reformulez la mission, ou changez de modèle.")
    if reply.finish_reason == "length":
        cut = "Arrêt : la réponse du modèle a été coupée (limite de longueur)."
        return rec.stop("length", cut)
    return rec.answer(reply)


def over_budget(rec: Recorder, limits: Limits) -> str | None:
    """Pourquoi le prochain appel dépasserait le budget, ou None : il renvoie tout le contexte."""
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
    """Une raison d’arrêter, une fois tous les résultats du tour dans messages[] (valide)."""
    if rec.flags:  # action interdite, accord humain requis, outil hors délai
        return rec.flags[0]
    if rec.failures >= limits.max_failures:
        return "failures", f"Arrêt : {rec.failures} échecs d’outil d’affilée."
    return None
