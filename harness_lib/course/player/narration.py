"""What each step of a diagram says in words: its note (never empty) and, for a run, its status.

An author's `%% note:` wins. A step without one still says what happens, in a
sentence made from its arrow and from what it adds to messages[]: no step of the
player is silent.

>>> from harness_lib.course.drawing.mermaid import chapter_diagram
>>> d = chapter_diagram("deux_tours")
>>> step_note(d, 5)
'Le harness exécute l’outil read_file\\xa0: read_file("README.md"). Le modèle \
attend\\xa0: il ne voit ni l’appel ni son résultat tant que celui-ci n’est pas dans messages[].'
>>> step_note(d, 9)
'Le harness rend la réponse à Personne\\xa0: Résumé du projet.'
>>> from harness_lib.trace import Event
>>> status(Event("stop", 3, "Arrêt", data={"reason": "max_turns"}))
'terminé\\xa0: nombre maximal de tours atteint'
"""

from __future__ import annotations

from ...text import one_line
from ...trace import Event
from ..drawing.diagram import Diagram, Step, fr
from ..drawing.hub import TOOLS_ID
from ..drawing.trace_diagram import reason_text

START_NOTE = "Étape 0 : le contexte de départ, avant la première flèche."
STATUS = {"task": "▶ la mission arrive", "request": "⏳ en attente du modèle…",
          "reply": "le modèle a répondu", "permission": "contrôle de permission",
          "tool_call": "⚙ outil en cours…", "tool_result": "résultat de l’outil reçu"}


def status(event: Event) -> str:
    """What a live run is doing at this event: shown with the step, also on replay."""
    if event.kind == "answer":
        return "terminé : réponse finale"
    if event.kind == "stop":
        data = event.data if isinstance(event.data, dict) else {}
        return f"terminé : {reason_text(data.get('reason'))}"
    return STATUS.get(event.kind, "en cours…")


def step_note(diagram: Diagram, k: int) -> str:
    """The note of step k: the author's, else a sentence from the arrow (k = 0: the start)."""
    if k == 0:
        return START_NOTE
    step = diagram.steps[k - 1]
    return step.note or _arrow_sentence(diagram, step) + _added(step)


def _arrow_sentence(diagram: Diagram, step: Step) -> str:
    names = {p.id: p.label for p in diagram.participants}
    source, target = names.get(step.source, step.source), names.get(step.target, step.target)
    text = one_line(step.text).rstrip(".")  # the sentence ends with its own period: no « .. »
    if step.source == step.target:
        return f"{source} agit seul : {text}."
    if target == "Modèle":
        return f"{source} envoie messages[] au modèle : {text}."
    if source == "Modèle":
        return f"Le modèle répond à {target} : {text}."
    if step.target == TOOLS_ID:
        tool = text.split("(", 1)[0] if "(" in text else target
        return (f"Le harness exécute l’outil {tool} : {text}. Le modèle attend : il ne voit ni "
                "l’appel ni son résultat tant que celui-ci n’est pas dans messages[].")
    if step.source == TOOLS_ID:
        return f"L’outil {source} renvoie son résultat au harness : {text}."
    if source == "Harness":
        return f"Le harness rend la réponse à {target} : {text}."
    if target == "Harness":
        return f"{source} confie une demande au harness : {text}."
    return f"{source} → {target} : {text}."


def _added(step: Step) -> str:
    if not step.entries:
        return ""
    added = ", ".join(f"{e.role} ({fr(e.tokens)} tokens)" for e in step.entries)
    return f" messages[] reçoit : {added}."
