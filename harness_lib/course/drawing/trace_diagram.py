"""A run as a diagram: `from_trace`, one step per event, its arrow and its label.

Each event's note comes from run_notes.py, which reads the whole run first (what
was refused, what never ran); the steps and their context entries are diagram.py's.

>>> from harness_lib.trace import Event, Trace
>>> ROUTES["tool_result"]
('T', '-->>', 'H')
>>> gist(".....\\n-----\\nRan 5 tests in 0.001s\\nOK")
'Ran 5 tests in 0.001s\\nOK'
>>> refused = Event("stop", 1, "Arrêt : HTTP 400 : bad", data={"reason": "api_error"})
>>> story = RunStory(Trace(events=[Event("request", 1, "Appel 1"), refused]))
>>> route(story, 0), route(story, 1), label(story, 1)
(('H', '->>', 'A'), ('A', '--x', 'H'), 'HTTP 400\\xa0: bad')
>>> len(from_trace(Trace(events=[Event("request", 1, "Appel 1"), refused])).steps)
2
"""

from __future__ import annotations

import re

from ...text import one_line, plural, shorten
from ...tokens import ROLE_ALIASES, message_tokens, tools_tokens
from ...trace import ARROWS, Event, Trace
from .diagram import ROLES, Diagram, Entry, MessagesView, Participant, Step, message_label
from .run_notes import VERDICTS, RunStory, notes

IDS = {"Personne": "U", "Harness": "H", "Modèle": "M", "Outils": "T"}  # participant ids
ANSWERS = {"reply", "tool_result", "answer", "stop"}  # drawn dashed: they answer a request
# event kind -> (source, arrow, target), from trace.ARROWS: who talks to whom is said once.
ROUTES = {kind: (IDS[source], "-->>" if kind in ANSWERS else "->>", IDS[target])
          for kind, (source, target) in ARROWS.items()}
TOOL_LOOP = "Tant que le modèle demande un outil"
API_ID = "A"  # the API's own participant, drawn only in a run it refused


def route(story: RunStory, i: int) -> tuple[str, str, str]:
    """Who sends step i to whom: a refused request goes to the API, which answers with a
    cross; a result the harness wrote itself (a refused action) stays on the harness."""
    event = story.trace.events[i]
    if i in story.refused:
        return "H", "->>", API_ID
    if event.kind == "stop" and i - 1 in story.refused:
        return API_ID, "--x", "H"
    if event.kind == "tool_result" and i in story.unrun:
        return "H", "->>", "H"
    return ROUTES[event.kind]


def label(story: RunStory, i: int) -> str:
    """The arrow's text: call ids on requests and results, French verdicts."""
    event = story.trace.events[i]
    message, data = event.message, event.data
    if event.kind == "reply" and isinstance(message, dict) and message.get("tool_calls"):
        return message_label(message)
    if event.kind == "tool_result" and message is not None:
        return f"résultat de {data.get('id')} : {gist(event.text)}"
    if event.kind == "permission":
        return f"Permission : {VERDICTS.get(str(data.get('verdict')), data.get('verdict'))}"
    if event.kind == "stop" and i - 1 in story.refused:
        said = re.search(r"(HTTP \d+|Pas de réponse)\s*:\s*(.*?)(?:\)\.|\s—\s.*)?$",
                         one_line(event.text))
        return f"{said[1]} : {said[2]}" if said else event.text
    return gist(event.text)


def gist(text: str) -> str:
    """The text from its first line that says something (unittest's « ..... » and « ---- »
    lines carry no word): arrow labels are short, they should start with meaning."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if any(c.isalnum() for c in line)), 0)
    return "\n".join(lines[first:])


def from_trace(trace: Trace) -> Diagram:
    """A real run, step by step: its messages, and their estimated size in tokens."""
    events, steps, turn = trace.events, [], 0
    story, written = RunStory(trace), notes(trace)
    tool_results = [i for i, e in enumerate(events) if e.kind == "tool_result"]
    first_request = next((i for i, e in enumerate(events) if e.kind == "request"), 0)
    # The loop frame spans the turns that asked for tools, as in the chapter.
    loop = range(first_request, tool_results[-1] + 1) if tool_results else range(0)
    sent = [trace.system] if trace.system else []  # messages[], grown one event at a time
    for i, event in enumerate(events):
        source, arrow, target = route(story, i)
        turn += event.kind == "request"  # a refused call is still the harness's call n
        sent += [event.message] if event.message is not None else []
        messages = MessagesView(sent, len(sent))  # trace.messages_at(i), without a copy
        steps.append(Step(i + 1, source, target, arrow, shorten(one_line(label(story, i))),
                          _entries(event), written[i],
                          TOOL_LOOP if i in loop else None, turn, messages))
    task = next((one_line(e.text) for e in events if e.kind == "task"), "")
    api = (Participant(API_ID, "API"),) if story.refused else ()
    participants = (Participant("U", "Personne"), Participant("H", "Harness"), *api,
                    Participant("M", "Modèle"), Participant("T", _tools_label(trace)))
    description = (f"Une exécution réelle : {plural(len(steps), 'étape')}, "
                   f"{plural(turn, 'appel')} au modèle. "
                   "Chaque étape montre ce que messages[] contient.")
    return Diagram(shorten(task or "Trace d’une exécution"), description, participants,
                   _initial(trace), tuple(steps))


def _initial(trace: Trace) -> tuple[Entry, ...]:
    entries = [Entry("system", message_tokens(trace.system), "Prompt système")] \
        if trace.system is not None else []
    functions = [s.get("function") for s in trace.tools if isinstance(s, dict)]
    names = [str(f.get("name")) for f in functions if isinstance(f, dict)]
    if tokens := trace.tools_tokens or tools_tokens(trace.tools):
        entries.append(Entry("tools", tokens, shorten("Définitions de " + ", ".join(names))
                             if names else "Définition des outils"))
    return tuple(entries)


def _tools_label(trace: Trace) -> str:
    """The tool's own name when the run used only one tool, else « Outils »."""
    used = {str(e.data.get("tool")) for e in trace.events if e.kind == "tool_call"}
    return shorten(one_line(used.pop()), 40) if len(used) == 1 else "Outils"


def _entries(event: Event) -> tuple[Entry, ...]:
    message = event.message
    if not isinstance(message, dict):
        return ()
    role = ROLE_ALIASES.get(message.get("role"), message.get("role"))
    if role not in ROLES:
        return ()
    label = shorten(one_line(message_label(message)))
    return (Entry(role, message_tokens(message), label),)
