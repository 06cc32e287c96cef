"""What each step of a run says, written for that step: who sends what to whom, which id,
what changes in messages[].

A note is written from the whole run, not from its event alone: a result answers a
request that may never have entered messages[], a request may be refused by the API
before any model sees it, a result may never be read by the model because the run
stops first. `RunStory` reads the run once; `notes(trace)` gives one note per event.

>>> from harness_lib.trace import Event, Trace
>>> t = Trace(system={"role": "system", "content": "Agent."}, tools=[])
>>> t.add(Event("task", 0, "Mission", message={"role": "user", "content": "Bonjour"}))
>>> t.add(Event("request", 1, "Appel 1"))
>>> notes(t)[1]
'Appel 1\\xa0: le harness envoie au modèle les 2 messages de messages[] (le prompt \
système et la mission), sans aucune définition d’outil\\xa0: le modèle ne peut demander \
aucun outil, seulement écrire. Le modèle ne garde rien d’un appel à l’autre\\xa0: ce \
qu’il reçoit là est tout ce qu’il sait.'
>>> STOP_REASONS["max_turns"]
'limite de tours atteinte'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...messages import RULE_1, RULE_2, read_call
from ...mock.conversation import check_conversation
from ...text import french_number as fr
from ...text import one_line, plural, shorten
from ...trace import Event, Trace
from .held import Held

# Every reason a run can stop for (trace.StopReason, and the hand-written loops' own),
# in French: the harness's codes stay English, the learner reads these.
STOP_REASONS = {
    "answer": "réponse finale", "max_turns": "limite de tours atteinte",
    "budget": "budget atteint", "timeout": "délai dépassé", "api_error": "refus de l’API",
    "denied": "action interdite par la politique", "failures": "trop d’échecs d’outil de suite",
    "human": "validation humaine nécessaire", "length": "réponse coupée (limite de longueur)",
    "content_filter": "réponse bloquée par le filtre du fournisseur",
    "refusal": "le modèle refuse de répondre", "interrupted": "arrêt demandé par la personne",
    "dead_end": "aucun autre chemin prévu", "too_many_calls": "la boucle ne s’arrête pas",
    "no_exit": "appel après la réponse finale", "exception": "exception dans la boucle",
    "incomplete": "la boucle rend la main sans réponse finale",
}
VERDICTS = {"allow": "autorisé", "deny": "refusé", "ask": "à valider par une personne"}
# A reply or a result that a hand-written loop never appended (own_loop's Logbook keeps its
# arrow, without a message): the model will not see it, whatever the arrow says.
FORGOTTEN = {  # the rules' own words (messages.py), as the grader and the API texts say them
    "reply": "Le modèle a répondu, mais cette boucle écrite à la main n’ajoute pas sa réponse "
             f"à messages[] (il manque la {RULE_1.name} : {RULE_1.says}) : au prochain appel, "
             f"{RULE_1.why}.",
    "tool_result": "L’outil a rendu son résultat, mais cette boucle écrite à la main ne "
                   f"l’ajoute pas à messages[] (il manque la {RULE_2.name} : {RULE_2.says}) : "
                   f"au prochain appel, {RULE_2.why}.",
}


def stop_reason(reason: object) -> str:
    """A run's stop reason in French (an unknown code is shown as it is, quoted)."""
    return STOP_REASONS.get(str(reason), f"« {reason} »")


@dataclass
class RunStory:
    """What a note needs to know beyond its own event, read from the run once."""

    trace: Trace
    refused: set[int] = field(default_factory=set)  # requests the API refused
    next_call: dict[int, int | None] = field(default_factory=dict)  # event -> next request's turn
    unrun: set[int] = field(default_factory=set)  # results no tool produced (a refusal)
    told: set[str] = field(default_factory=set)  # the explanations already given in this run

    def __post_init__(self) -> None:
        events, upcoming = self.trace.events, None
        for i in range(len(events) - 1, -1, -1):  # backwards: the next request of each event
            self.next_call[i] = upcoming
            upcoming = events[i].turn if events[i].kind == "request" else upcoming
        for i, event in enumerate(events):
            after = events[i + 1] if i + 1 < len(events) else None
            if event.kind == "request" and after is not None and after.kind == "stop" \
                    and after.data.get("reason") == "api_error":
                self.refused.add(i)
            # A refused call (or a made-up tool) gets its result with no tool run before it.
            if event.kind == "tool_result" and (i == 0 or events[i - 1].kind != "tool_call"):
                self.unrun.add(i)

    def once(self, sentence: str) -> str:
        """`sentence` (with a leading space) the first time a run's notes need it, then "":
        a player never says the same explanation twice."""
        if sentence in self.told:
            return ""
        self.told.add(sentence)
        return f" {sentence}"

    def tool_names(self) -> list[str]:
        functions = [s.get("function") for s in self.trace.tools if isinstance(s, dict)]
        return [str(f.get("name")) for f in functions if isinstance(f, dict)]


def notes(trace: Trace) -> list[str]:
    """One note per event of the run, in order."""
    story, sent, written = RunStory(trace), Held(), []
    if trace.system:
        sent.add(trace.system)
    for i, event in enumerate(trace.events):
        if event.message is not None:
            sent.add(event.message)
        written.append(note(story, i, sent))
    return written


def note(story: RunStory, i: int, messages: Held) -> str:
    """The note of event i (`messages`: what messages[] holds right after it)."""
    event = story.trace.events[i]
    if event.kind in FORGOTTEN and event.message is None:  # a hand-written loop forgot it
        return FORGOTTEN[event.kind]
    writer = {"task": _task, "request": _request, "reply": _reply, "permission": _permission,
              "tool_call": _tool_call, "tool_result": _tool_result, "answer": _answer,
              "stop": _stop}[event.kind]
    return writer(story, i, messages)


def _task(story: RunStory, i: int, messages: Held) -> str:
    return (f"La personne confie la mission au harness, qui l’ajoute à messages[] (role user, "
            f"messages[{len(messages) - 1}]). Le modèle ne l’a pas encore vue : aucun appel n’a "
            "eu lieu.")


def _request(story: RunStory, i: int, messages: Held) -> str:
    event, names = story.trace.events[i], story.tool_names()
    sent = f"les {plural(len(messages), 'message')} de messages[] ({messages.words()})"
    listed = story.once(f"({', '.join(names)})")
    tools = (f", avec à côté la définition de {plural(len(names), 'outil')}{listed}" if names else
             ", sans aucune définition d’outil : le modèle ne peut demander aucun outil, "
             "seulement écrire")
    if i in story.refused:
        return (f"Appel {event.turn} : le harness envoie {sent}{tools}. La requête passe "
                "d’abord par l’API du fournisseur, qui la vérifie avant de la confier à un "
                "modèle.")
    return (f"Appel {event.turn} : le harness envoie au modèle {sent}{tools}."
            + story.once("Le modèle ne garde rien d’un appel à l’autre : ce qu’il reçoit là est "
                         "tout ce qu’il sait."))


def call_list(message: object) -> str:
    """« read_file("a") (call_1) et read_file("b") (call_2) »: each call, then its id."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    labels = [f"{read_call(c).label} ({read_call(c).id})" for c in calls or []]
    return ", ".join(labels[:-1]) + " et " + labels[-1] if len(labels) > 1 else "".join(labels)


def _reply(story: RunStory, i: int, messages: Held) -> str:
    event = story.trace.events[i]
    calls = event.message.get("tool_calls") if isinstance(event.message, dict) else None
    if calls:
        asked = "une demande d’outil" if len(calls) == 1 else \
            plural(len(calls), "demande d’outil", "demandes d’outil")
        if "reply" in story.told:  # the rule was said at the first request of the run
            text = (f"Le modèle répond par {asked} : {call_list(event.message)} ; le harness "
                    f"ajoute son message à messages[] tel quel ({RULE_1.name}).")
        else:
            story.told.add("reply")
            text = (f"Le modèle répond par {asked} : {call_list(event.message)}. Le harness "
                    f"ajoute ce message assistant à messages[] tel quel, tool_calls compris "
                    f"({RULE_1.name}). Écrire une demande n’exécute rien : c’est le harness qui "
                    "lance les outils.")
    else:
        text = ("Le modèle répond par du texte, sans demande d’outil : c’est sa réponse "
                "finale. Le harness l’ajoute à messages[] (role assistant).")
    text += beyond_the_text(event, story)
    usage = event.data.get("usage")
    if isinstance(usage, dict) and "prompt_tokens" in usage:
        text += (f" Usage compté pour cet appel : {fr(usage.get('prompt_tokens'))} tokens en "
                 f"entrée, {fr(usage.get('completion_tokens'))} en sortie.")
    return text


SHOWN_FIELDS = {"role", "content", "tool_calls"}  # what every view of a message already shows


def beyond_the_text(event: Event, story: RunStory | None = None) -> str:
    """What a real provider sent beside the text and the calls, said rather than hidden.

    Reasoning models send their visible reasoning, signatures or a refusal in fields of
    their own; RULE 1 sends them back as received, and the harness may have had to mend
    the message (`notes`, e.g. a call without an id).
    """
    message = event.message if isinstance(event.message, dict) else {}
    said = ""
    if reasoning := event.data.get("reasoning"):
        shown = shorten(one_line(str(reasoning)), 200)
        why = ("Ce n’est pas une action : le harness n’exécute que les demandes d’outil, et ce "
               "texte ne dit pas forcément tout le calcul du modèle.")
        said += (f" Raisonnement visible, renvoyé par le fournisseur : « {shown} »."
                 + (story.once(why) if story else f" {why}"))
    if extra := sorted(str(key) for key in message if key not in SHOWN_FIELDS):
        said += (f" Le message porte aussi {', '.join(extra)} : le harness le renvoie tel quel "
                 f"au même fournisseur ({RULE_1.name}), champs compris.")
    for mended in event.data.get("notes") or ():
        said += f" Le harness a dû corriger le message : {mended}."
    return said


def _permission(story: RunStory, i: int, messages: Held) -> str:
    data = story.trace.events[i].data
    verdict = str(data.get("verdict"))
    said = VERDICTS.get(verdict, verdict)
    # The policy's reason, without the tool's name and the verdict's code it repeats.
    reason = re.split(r"\s:\s", one_line(str(data.get("reason", ""))), maxsplit=1)[-1]
    reason = re.sub(rf"\s*\({re.escape(verdict)}\)$", "", reason)
    verdict_text = reason if reason.startswith(said) else f"{said} ({reason})"
    call = data.get("id") or "la demande"
    if "permission" in story.told:  # explained at the first check of the run
        return f"Contrôle de {call} : {verdict_text}."
    story.told.add("permission")
    return (f"Avant d’exécuter {call}, le harness consulte sa politique, sans appeler le "
            f"modèle. Verdict : {verdict_text}. messages[] ne change pas.")


def _tool_call(story: RunStory, i: int, messages: Held) -> str:
    event = story.trace.events[i]
    what, call_id = str(event.data.get("tool")), event.data.get("id")
    if event.message is not None:  # a fixed pipeline: the harness decided this call itself
        return (f"Le harness décide seul d’appeler {what} : le modèle n’a rien demandé. Pour "
                f"que messages[] reste valide, il y écrit lui-même, au nom du modèle, le message "
                f"assistant qui porte la demande {call_id} (role assistant, tool_calls) : l’API "
                "n’accepte un résultat d’outil qu’après la demande à laquelle il répond.")
    return (f"Le harness exécute l’outil {what} pour la demande {call_id}."
            + story.once("Le modèle n’intervient pas à cette étape."))


def _tool_result(story: RunStory, i: int, messages: Held) -> str:
    event = story.trace.events[i]
    call_id, tool = event.data.get("id"), event.data.get("tool")
    later = story.next_call.get(i)
    it = "la" if event.data.get("error") else "le"  # l’erreur, le résultat
    seen = (f"Le modèle {it} lira à l’appel {later}." if later is not None else
            f"Aucun appel ne suit : le modèle ne {it} verra jamais.")
    asked = messages.asked(call_id)
    if i in story.unrun:  # refused by the policy, or by a person: nothing ran
        text = (f"L’outil ne tourne pas : le harness écrit lui-même la réponse à {call_id} "
                f"(« {one_line(event.text)} ») et l’ajoute à messages[] (role tool).")
    elif event.data.get("error"):
        text = (f"L’outil {tool} échoue. Le harness ajoute l’erreur à messages[] comme un "
                f"résultat normal (role tool, tool_call_id {call_id}) : la boucle continue.")
    else:
        text = (f"L’outil {tool} rend son résultat au harness, qui l’ajoute à messages[] "
                f"(role tool, tool_call_id {call_id}).")
    if not asked:  # RULE 1 was skipped: this result answers nothing that messages[] holds
        return (text + f" Mais aucun message assistant de messages[] ne porte la demande "
                f"{call_id} : ce résultat ne répond à rien, et l’API le refusera.")
    return text + story.once(seen)  # several results for one call: said after the first


def _answer(story: RunStory, i: int, messages: Held) -> str:
    return ("Le harness rend la réponse finale du modèle à la personne. La boucle est "
            "terminée : messages[] ne changera plus.")


def _stop(story: RunStory, i: int, messages: Held) -> str:
    event = story.trace.events[i]
    reason = event.data.get("reason")
    if i - 1 in story.refused:
        return refusal(event, messages)
    return (f"Le harness arrête la boucle ({stop_reason(reason)}) et rend ce message à la "
            f"personne : « {one_line(event.text)} »")


def refusal(event: Event, messages: Held) -> str:
    """The API's refusal: its own words, in full, then what they mean in French."""
    text = one_line(event.text)
    # The provider's text, and its French explanation when the harness's own check finds
    # the same problem in these messages (the course's MockModel refuses with that check).
    problems = check_conversation(list(messages.messages))
    found = next((p for p in problems if p.message in text), None)
    status = re.search(r"HTTP \d+", text)
    said = f"{status[0] if status else 'Refus'} : {found.message}" if found else \
        re.sub(r"^Arrêt\s*:\s*", "", text)
    why = f" En clair : {found.explication}" if found and found.explication not in said else ""
    return (f"L’API refuse la requête avant qu’un modèle ne la voie : le modèle ne reçoit "
            f"rien de cet appel. Sa réponse, mot pour mot : « {said} ».{why} Le harness "
            "arrête la boucle et rend cette erreur à la personne.")
