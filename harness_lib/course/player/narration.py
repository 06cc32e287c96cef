"""What each step of a diagram says in words: its note (never empty) and, for a run, its status.

An author's `%% note:` wins; a run's steps carry the notes written for them
(`drawing/run_notes.py`). A step of a hand-written diagram without a note still
says who sends what to whom and what changes in messages[], in a sentence made
from its arrow and its `%% ctx` lines: no step of the player is silent.
Participants are named as words (« la personne », « le harness », « l’outil
read_file »), never by their box's name alone.

>>> from harness_lib.course.drawing.mermaid import chapter_diagram
>>> d = chapter_diagram("erreur_outil")
>>> step_note(d, 1)
'Appel 1\\xa0: le harness envoie au modèle messages[] (le prompt système et la mission) \
et la définition des outils. Le modèle ne garde rien d’un appel à l’autre\\xa0: c’est tout \
ce qu’il sait.'
>>> step_note(d, 8)
'L’outil list_files rend son résultat au harness, qui l’ajoute à messages[] \
(role tool, 60 tokens).'
>>> from harness_lib.trace import Event
>>> status(Event("stop", 3, "Arrêt", data={"reason": "max_turns"}))
'terminé\\xa0: limite de tours atteinte'
"""

from __future__ import annotations

import re

from ...text import french_number as fr
from ...text import one_line
from ...trace import Event
from ..drawing.diagram import Diagram, Entry, Step, ledger_at
from ..drawing.hub import TOOLS_ID, step_tool
from ..drawing.run_notes import stop_reason

START_NOTE = "Étape 0 : le contexte de départ, avant la première flèche."
STATUS = {"task": "▶ la mission arrive", "request": "⏳ en attente du modèle…",
          "reply": "le modèle a répondu", "permission": "contrôle de permission",
          "tool_call": "⚙ outil en cours…", "tool_result": "résultat de l’outil reçu"}
# The course's participants as words in a sentence (« Personne » alone reads as "nobody").
WORDS = {"Personne": "la personne", "Harness": "le harness", "Modèle": "le modèle",
         "API": "l’API", "Outils": "l’outil"}
# Undeclared participants (`U->>H` alone) are named by their id: the course's ids as words.
ID_WORDS = {"U": "la personne", "H": "le harness", "M": "le modèle", "A": "l’API"}
ROLE_WORDS = {"system": "le prompt système", "tools": "la définition des outils",
              "user": "la mission", "compact": "un résumé"}


def status(event: Event) -> str:
    """What a live run is doing at this event: shown with the step, also on replay."""
    if event.kind == "answer":
        return f"terminé : {stop_reason('answer')}"
    if event.kind == "stop":
        data = event.data if isinstance(event.data, dict) else {}
        return f"terminé : {stop_reason(data.get('reason'))}"
    return STATUS.get(event.kind, "en cours…")


def step_note(diagram: Diagram, k: int) -> str:
    """The note of step k: the author's, else a sentence from the arrow (k = 0: the start)."""
    if k == 0:
        return START_NOTE
    step = diagram.steps[k - 1]
    return step.note or arrow_sentence(diagram, k)


def drawing_name(diagram: Diagram, k: int) -> str:
    """The accessible name of step k's drawing: who sends what to whom, in one line."""
    total = len(diagram.steps)
    if k == 0:
        return f"Étape 0 sur {total} : le contexte de départ, avant la première flèche"
    step, tool = diagram.steps[k - 1], step_tool(diagram, k - 1)
    source, target = who(diagram, step.source, tool), who(diagram, step.target, tool)
    said = f"« {one_line(step.text)} »"
    if step.source == step.target:
        return f"Étape {k} sur {total} : {source} seul, {said}"
    return f"Étape {k} sur {total} : {source} envoie {said} {_to(target)}"


def who(diagram: Diagram, pid: str, tool: str | None = None) -> str:
    """A participant as words: « le harness », « l’outil read_file », « l’API »."""
    name = next((p.label for p in diagram.participants if p.id == pid), pid)
    if pid == TOOLS_ID:
        return f"l’outil {tool}" if tool else WORDS.get(name, f"l’outil {name}")
    return WORDS.get(name) or (ID_WORDS.get(pid, name) if name == pid else name)


def _said(entries: tuple[Entry, ...]) -> str:
    """What a step adds to messages[]: « (role tool, 60 tokens) »."""
    return "".join(f" (role {e.role}, {fr(e.tokens)} tokens)" for e in entries[:1])


def arrow_sentence(diagram: Diagram, k: int) -> str:
    """Who sends what to whom at step k, and what changes in messages[]."""
    step, tool = diagram.steps[k - 1], step_tool(diagram, k - 1)
    source, target = who(diagram, step.source, tool), who(diagram, step.target, tool)
    model = {p.id for p in diagram.participants if p.label == "Modèle" or p.id == "M"}
    text = one_line(step.text)
    first = _first(diagram, k)
    if step.target in model:
        return _request(diagram, k) + (_ALONE if first else "")
    if step.source in model:
        return _reply(step, text, first)
    if step.source == step.target:
        return f"{source[0].upper()}{source[1:]} agit seul, sans appeler le modèle : " \
            f"« {text} ». messages[] ne change pas."
    if step.target == TOOLS_ID:
        what = text if tool and text.startswith(tool) else f"{target} : {text}"
        return f"Le harness exécute {what}." + (" Le modèle n’intervient pas à cette étape."
                                                if first else "")
    if step.source == TOOLS_ID:
        failed = text.lower().startswith(("erreur", "error"))
        return (f"{source[0].upper()}{source[1:]} "
                + ("échoue ; le harness ajoute l’erreur à messages[] comme un résultat normal"
                   if failed else "rend son résultat au harness, qui l’ajoute à messages[]")
                + f"{_said(step.entries)}." + (" Le modèle ne l’a pas encore reçu."
                                               if _first(diagram, k) else ""))
    if target == "la personne":
        return (f"{source[0].upper()}{source[1:]} rend la réponse finale à la personne. La "
                "boucle est terminée : messages[] ne changera plus.")
    if source == "la personne":
        return (f"La personne confie la demande {_to(target)}, qui l’ajoute à messages[]"
                f"{_said(step.entries)}. Le modèle ne l’a pas encore vue.")
    added = f" messages[] reçoit{_said(step.entries)} ce message." if step.entries else ""
    return f"{source[0].upper()}{source[1:]} envoie {_to(target)} : « {text} ».{added}"


_ALONE = " Le modèle ne garde rien d’un appel à l’autre : c’est tout ce qu’il sait."


def _first(diagram: Diagram, k: int) -> bool:
    """Whether step k is the first arrow of its kind (to the model, from it, to the tools):
    an explanation is given once per diagram, not at every turn."""
    def kind(step: Step) -> tuple[bool, bool, bool]:
        model = {p.id for p in diagram.participants if p.label == "Modèle" or p.id == "M"}
        return step.target in model, step.source in model, step.target == TOOLS_ID
    return all(kind(s) != kind(diagram.steps[k - 1]) for s in diagram.steps[:k - 1])


def _to(name: str) -> str:
    """« à » before a participant, contracted as French does: « au harness », « à l’API »."""
    return "au " + name[3:] if name.startswith("le ") else "à " + name


def _request(diagram: Diagram, k: int) -> str:
    step = diagram.steps[k - 1]
    context = ledger_at(diagram, k)
    roles = [e.role for e in context if e.role != "tools"]
    parts = [ROLE_WORDS.get(r, "") for r in dict.fromkeys(roles) if r in ROLE_WORDS]
    calls, results = roles.count("assistant"), roles.count("tool")
    parts += [f"{fr(calls)} réponse{'s' if calls > 1 else ''} du modèle"] if calls else []
    parts += [f"{fr(results)} résultat{'s' if results > 1 else ''} d’outil"] if results else []
    held = ", ".join(parts[:-1]) + " et " + parts[-1] if len(parts) > 1 else "".join(parts)
    tools = " et la définition des outils" if any(e.role == "tools" for e in context) else ""
    return f"Appel {step.turn} : le harness envoie au modèle messages[] ({held}){tools}."


def _reply(step: Step, text: str, first: bool) -> str:
    if text.startswith("tool_call"):
        asked = text.removeprefix("tool_call").strip()
        found = re.match(r"(\S+)\s+:\s+(.*)", asked)  # « call_1 : read_file(…) »
        call_id, call = (found[1], found[2]) if found else ("", asked)
        ident = f", sous l’identifiant {call_id}" if call_id else ""
        why = " ; écrire la demande n’exécute rien, c’est le harness qui lancera l’outil"
        return (f"Le modèle répond par une demande d’outil : {call}{ident}. Le harness ajoute "
                f"ce message à messages[]{_said(step.entries)}{why if first else ''}.")
    return (f"Le modèle répond sans demander d’outil : c’est sa réponse finale. Le harness "
            f"l’ajoute à messages[]{_said(step.entries)}.")
