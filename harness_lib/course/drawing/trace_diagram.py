"""What each event of a run draws in a diagram: its arrow and its label (its note: run_notes.py).

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
>>> from harness_lib.trace import Trace
>>> refused = Event("stop", 1, "Arrêt : HTTP 400 : bad", data={"reason": "api_error"})
>>> story = RunStory(Trace(events=[Event("request", 1, "Appel 1"), refused]))
>>> route(story, 0), route(story, 1), label(story, 1)
(('H', '->>', 'A'), ('A', '--x', 'H'), 'HTTP 400\\xa0: bad')
"""

from __future__ import annotations

import re

from ...messages import Message, read_call
from ...text import one_line
from ...trace import ARROWS
from .run_notes import FORGOTTEN, VERDICTS, RunStory

__all__ = ["FORGOTTEN", "ROUTES", "TOOL_LOOP", "gist", "label", "message_label", "route"]

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
