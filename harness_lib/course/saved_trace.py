"""Your own run, kept and replayed: a trace saved by `run --trace FICHIER.jsonl`, in the player.

`python -m harness_lib run "…" --trace ma_trace.jsonl` saves the run, with a mock or a
real model. `read_trace(text)` reads it back, checking every line, and says in French
what is wrong and where (which line, which field) instead of a traceback. In a
notebook, `trace_picker()` opens an uploaded file or a typed path in the player.

>>> read_trace('{"system": null, "tools_tokens": 0, "tools": []}\\n'
...            '{"kind": "task", "turn": 0, "text": "Bonjour"}').events[0].text
'Bonjour'
>>> try:
...     read_trace('{"system": null}\\n{"kind": "robot", "turn": 0, "text": "?"}')
... except TraceFileError as err:
...     print(err.explication[:50])
ligne 2 : kind vaut 'robot', qui n'est pas un type
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from ..errors import HarnessError
from ..trace import KINDS, Event, Trace

EVENT_FIELDS = {"kind": str, "turn": int, "text": str, "message": (dict, type(None)),
                "data": dict, "ledger": dict}
HEADER_FIELDS = {"system": (dict, type(None)), "tools_tokens": int, "tools": list}


class TraceFileError(HarnessError):
    """A file that is not a trace of harness_lib; the message says where (French)."""


def open_trace(path: str | Path) -> Trace:
    """Read a saved trace (.jsonl); a missing or broken file is a TraceFileError in French."""
    file = Path(path).expanduser()
    if not file.is_file():
        where = "est un dossier" if file.is_dir() else "est introuvable"
        raise TraceFileError(f"{file} {where} (dossier courant : {Path.cwd()}). Vérifiez le "
                             "chemin : relatif, il part du dossier du notebook.")
    return read_trace(file.read_bytes(), file.name)


def read_trace(content: str | bytes, name: str = "la trace") -> Trace:
    """A trace from the text of its file: a header line, then one JSON event a line."""
    try:
        text = content.decode("utf-8") if isinstance(content, bytes) else content
    except UnicodeDecodeError:
        raise TraceFileError(f"{name} n'est pas un fichier texte (UTF-8) : une trace est "
                             "faite de lignes JSON.") from None
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise TraceFileError(f"{name} est vide : une trace commence par une ligne d'en-tête.")
    header = _fields(_json(*lines[0]), HEADER_FIELDS, lines[0][0], required=())
    trace = Trace(**header)
    for number, line in lines[1:]:
        event = _fields(_json(number, line), EVENT_FIELDS, number, required=("kind", "text"))
        if event["kind"] not in KINDS:
            raise TraceFileError(f"ligne {number} : kind vaut {event['kind']!r}, qui n'est pas "
                                 f"un type d'événement ({', '.join(KINDS)})")
        trace.add(Event(**{"turn": 0, **event}))
    return trace


def _json(number: int, line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError) as err:
        raise TraceFileError(f"ligne {number} : JSON illisible ({err})") from None
    if not isinstance(value, dict):
        raise TraceFileError(f"ligne {number} : un objet JSON {{…}} est attendu")
    return value


def _fields(value: dict[str, Any], types: dict[str, Any], number: int,
            required: tuple[str, ...]) -> dict[str, Any]:
    """The known fields of one line, each of the right type; an unknown one is refused."""
    for field in value:
        if field not in types:
            raise TraceFileError(f"ligne {number} : champ inconnu {field!r} : ce n'est pas une "
                                 "trace de harness_lib (attendu : " + ", ".join(types) + ")")
    for field in required:
        if field not in value:
            raise TraceFileError(f"ligne {number} : il manque le champ {field}")
    for field, kind in types.items():
        wrong = field in value and not isinstance(value[field], kind)
        if wrong or (kind is int and isinstance(value.get(field), bool)):  # True is an int
            raise TraceFileError(f"ligne {number} : {field} n'a pas le bon type "
                                 f"({type(value[field]).__name__})")
    return value


def open_player(source: str | Path | Trace) -> Any:
    """The player on a saved trace, or a French message saying why not. Never raises."""
    from .player import Player

    try:
        return Player(source if isinstance(source, Trace) else open_trace(source))
    except HarnessError as err:
        return _message(f"Impossible d'ouvrir la trace : {err.explication}")
    except Exception as err:  # a trace that reads but does not play: say so, calmly
        return _message(f"Cette trace ne se rejoue pas ({type(err).__name__} : {err}).")


def _message(text: str) -> Any:
    from IPython.display import HTML

    return HTML(f'<div class="harness-trace-error" style="border-left:4px solid #c62828;'
                f'padding:4px 10px">{html.escape(text)}</div>')


def trace_picker() -> Any:
    """Upload a .jsonl file, or type its path, then « Ouvrir » shows it in the player."""
    import ipywidgets as w

    upload = w.FileUpload(accept=".jsonl", description="Téléverser", multiple=False)
    path = w.Text(placeholder="ou un chemin : ma_trace.jsonl", layout=w.Layout(width="24em"))
    button = w.Button(description="Ouvrir dans le lecteur", button_style="primary",
                      layout=w.Layout(width="auto"))
    shown = w.Output()

    def open_(_: object) -> None:
        files = list(upload.value or ())
        if files:  # an uploaded file wins over the typed path
            try:
                found = open_player(read_trace(bytes(files[-1]["content"]), files[-1]["name"]))
            except TraceFileError as err:
                found = _message(f"Impossible d'ouvrir la trace : {err.explication}")
        elif path.value.strip():
            found = open_player(path.value.strip())
        else:
            found = _message("Choisissez un fichier .jsonl, ou tapez son chemin.")
        # One assignment replaces what was shown (as the player does with its diagram).
        data = found._repr_mimebundle_() if hasattr(found, "_repr_mimebundle_") else \
            {"text/html": found.data}
        shown.outputs = ({"output_type": "display_data", "metadata": {}, "data": data},)

    button.on_click(open_)
    box = w.VBox([w.HBox([upload, path, button]), shown])
    box.add_class("harness-trace-picker")
    return box
