"""What each event of a run says in a diagram: its arrow, its label, its note.

`diagram.from_trace` turns a run into a `Diagram`, one step per event, with the
pieces below. They know events and messages only, not diagrams, so that
diagram.py can import them.

>>> from harness_lib.trace import Event
>>> ROUTES["tool_result"]
('T', '-->>', 'H')
>>> call = {"id": "call_1", "function": {"name": "read_file",
...                                      "arguments": '{"path": "README.md"}'}}
>>> message_label({"role": "assistant", "content": None, "tool_calls": [call]})
'tool_call call_1\\xa0: read_file("README.md")'
>>> gist(".....\\n-----\\nRan 5 tests in 0.001s\\nOK")
'Ran 5 tests in 0.001s\\nOK'
>>> note(Event("stop", 3, "Arrêt", data={"reason": "max_turns"}), 7)
'Le harness arrête la boucle\\xa0: nombre maximal de tours atteint.'
"""

from __future__ import annotations

from ...messages import Message, read_call
from ...text import french_number
from ...trace import ARROWS, Event

IDS = {"Personne": "U", "Harness": "H", "Modèle": "M", "Outils": "T"}  # participant ids
ANSWERS = {"reply", "tool_result", "answer", "stop"}  # drawn dashed: they answer a request
# event kind -> (source, arrow, target), from trace.ARROWS: who talks to whom is said once.
ROUTES = {kind: (IDS[source], "-->>" if kind in ANSWERS else "->>", IDS[target])
          for kind, (source, target) in ARROWS.items()}
TOOL_LOOP = "Tant que le modèle demande un outil"
NOTES = {
    "task": "La demande entre dans messages[] (role : user). Le modèle ne l’a pas encore vue.",
    "tool_call": "Le harness exécute l’outil. Le modèle n’en sait rien tant que le résultat "
                 "n’est pas dans messages[].",
    "tool_result": "Le résultat entre dans messages[] avec role : tool et le même tool_call_id "
                   "que la demande.",
    "answer": "Le harness rend la réponse finale à la personne.",
}
# A reply or a result that a hand-written loop never appended (own_loop's Logbook keeps its
# arrow, without a message): the model will not see it, whatever the arrow says.
FORGOTTEN = {
    "reply": "La boucle n’a jamais ajouté cette réponse à messages[] (RULE 1 manque) : au "
             "prochain appel, le modèle ne la verra pas.",
    "tool_result": "La boucle n’a jamais ajouté ce résultat à messages[] (RULE 2 manque) : "
                   "au prochain appel, le modèle ne le verra pas.",
}


def gist(text: str) -> str:
    """The text from its first line that says something (unittest's « ..... » and « ---- »
    lines carry no word): arrow labels are short, they should start with meaning."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if any(c.isalnum() for c in line)), 0)
    return "\n".join(lines[first:])


def count(n: int, noun: str) -> str:
    """A count and its noun, plural from 2 on as in French: « 1 outil », « 2 outils »."""
    return f"{french_number(n)} {noun}{'s' if n > 1 else ''}"  # « 1 097 tokens »


# A stop reason (trace.StopReason) and a policy verdict, as a learner reads them.
REASONS = {"answer": "réponse finale", "max_turns": "nombre maximal de tours atteint",
           "budget": "budget atteint", "timeout": "délai dépassé", "api_error": "refus de l’API",
           "denied": "action interdite", "failures": "trop d’échecs d’outil d’affilée",
           "human": "validation humaine nécessaire", "length": "réponse coupée par sa longueur",
           "content_filter": "réponse retenue par le filtre du fournisseur",
           "dead_end": "plus aucune piste à essayer"}
VERDICTS = {"allow": "autorisée", "ask": "à faire valider par une personne", "deny": "interdite"}


def reason_text(reason: object) -> str:
    """A stop reason in French words.

    >>> reason_text("max_turns")
    'nombre maximal de tours atteint'
    """
    return REASONS.get(str(reason), str(reason))


def message_label(message: Message) -> str:
    """What a message shows in the diagram: its tool calls, else its text."""
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        return "tool_call " + ", ".join(_call_label(call) for call in calls)
    content = message.get("content")
    text = content if isinstance(content, str) else "" if content is None else str(content)
    if message.get("role") == "tool":
        return f"Résultat de {message.get('tool_call_id')} : {text}"
    return text


def _call_label(request: object) -> str:
    """« call_1 : read_file("README.md") »: the id, the name, the argument values."""
    call = read_call(request)
    return f"{call.id} : {call.label}"


def note(event: Event, sent: int) -> str:
    """The explanation shown while this event is the current step (`sent`: len(messages[]))."""
    data = event.data if isinstance(event.data, dict) else {}
    if event.kind in FORGOTTEN and event.message is None:  # a hand-written loop forgot it
        return FORGOTTEN[event.kind]
    if event.kind == "request":
        return (f"Appel {event.turn} : le harness envoie les {sent} messages de messages[] et "
                "la définition des outils. Le modèle ne garde rien d’un appel à l’autre.")
    if event.kind == "reply":
        return _reply_note(event.message, data.get("usage"))
    if event.kind == "permission":
        verdict, why = str(data.get("verdict")), data.get("reason")
        return (f"Avant d’exécuter, le harness vérifie la demande : "
                f"{VERDICTS.get(verdict, verdict)} ({why}).")
    if event.kind == "tool_result" and data.get("error"):
        return ("L’outil a échoué. L’erreur revient au modèle comme un résultat normal, "
                "avec le même tool_call_id : la boucle continue.")
    if event.kind == "stop":
        return f"Le harness arrête la boucle : {reason_text(data.get('reason'))}."
    return NOTES[event.kind]


def _reply_note(message: object, usage: object) -> str:
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    calls = calls if isinstance(calls, list) else []
    text = (f"Le modèle demande {count(len(calls), 'outil')}. Écrire l’appel ne l’exécute "
            "pas : c’est le harness qui le fera." if calls else
            "Pas de demande d’outil : c’est la réponse finale, la boucle s’arrête.")
    if isinstance(usage, dict) and "prompt_tokens" in usage:
        text += (f" Usage renvoyé avec la réponse : "
                 f"{french_number(usage.get('prompt_tokens'))} tokens en entrée, "
                 f"{french_number(usage.get('completion_tokens'))} en sortie.")
    return text
