"""Your own run, kept and replayed: a trace saved by `run --trace FICHIER.jsonl`, in the player.

Also a run recorded elsewhere as OpenTelemetry GenAI spans (OTLP/JSON, `harness_lib.otel`):
a `.json` file, or any file whose beginning holds `"resourceSpans"`. Its sizes are the
file's (`otel_diagram`), and what it does not contain is said at its first step.

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
ligne 2 : kind vaut 'robot', qui n’est pas un type
"""

from __future__ import annotations

import html
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...errors import FileError, HarnessError
from ...files import read_capped
from ...otel import OtelTrace, OtlpError, loads_otlp, looks_like_otlp
from ...otel.importer import MAX_OTLP_BYTES
from ...text import after_colon
from ...trace import MAX_TRACE_BYTES, Trace, TraceError
from ..player.static import Shown


class TraceFileError(HarnessError):
    """A file that is not a trace of harness_lib; the message says where (French)."""


def open_trace(path: str | Path) -> Trace:
    """Read a saved trace (.jsonl); a missing or broken file is a TraceFileError in French."""
    file = Path(path).expanduser()
    if not file.exists() or file.is_dir():
        where = "est un dossier" if file.is_dir() else "est introuvable"
        raise TraceFileError(f"{file} {where} (dossier courant : {Path.cwd()}). Vérifiez le "
                             "chemin : relatif, il part du dossier du notebook.")
    cap = MAX_OTLP_BYTES if file.suffix == ".json" else MAX_TRACE_BYTES
    try:  # a named pipe or a device is refused unread, a huge file unread too (files.py)
        content = read_capped(file, cap)
    except FileError as err:
        raise TraceFileError(str(err)) from None
    return read_trace(content, file.name)


def read_trace(content: str | bytes, name: str = "la trace") -> Trace:
    """A trace from the text of its file (`Trace.loads`, or `otel.loads_otlp` for OTLP/JSON),
    its errors as a TraceFileError."""
    try:
        if name.endswith(".json") or looks_like_otlp(content):
            return loads_otlp(content, name)
        return Trace.loads(content, name)
    except (TraceError, OtlpError) as err:
        raise TraceFileError(str(err)) from None


def otel_diagram(trace: OtelTrace) -> Any:
    """The diagram of an OTLP trace, each entry the size the file gives (not an estimate of
    the placeholder texts), and what the file lacks said at the first step."""
    from ..drawing.trace_diagram import from_trace

    diagram = from_trace(trace)
    steps = [replace(step, entries=tuple(replace(entry, tokens=event.data["tokens"])
                                         for entry in step.entries))
             if "tokens" in event.data else step
             for step, event in zip(diagram.steps, trace.events, strict=True)]
    if steps and trace.notes:
        steps[0] = replace(steps[0], note=" ".join(trace.notes) + " " + steps[0].note)
    initial = tuple(replace(entry, tokens=trace.system_tokens)
                    if entry.role == "system" and trace.system_tokens else entry
                    for entry in diagram.initial)
    return replace(diagram, steps=tuple(steps), initial=initial,
                   title=f"Trace OpenTelemetry : {diagram.title}")


def open_player(source: str | Path | Trace) -> Any:
    """The player on a saved trace, or a French message saying why not. Never raises."""
    from ..player.player import Player

    try:
        trace = source if isinstance(source, Trace) else open_trace(source)
        return Player(otel_diagram(trace) if isinstance(trace, OtelTrace) else trace)
    except HarnessError as err:
        return _message(f"Impossible d’ouvrir la trace : {after_colon(err.explication)}")
    except Exception as err:  # a trace that reads but does not play: say so, calmly
        return _message(f"Cette trace ne se rejoue pas ({type(err).__name__} : {err}).")


def _message(text: str) -> Any:
    from IPython.display import HTML

    return HTML(f'<div class="harness-trace-error" style="border-left:4px solid #c62828;'
                f'padding:4px 10px">{html.escape(text)}</div>')


def trace_picker() -> Any:
    """Upload a .jsonl file (or OTLP .json), or type its path, then « Ouvrir » shows it in
    the player."""
    import ipywidgets as w

    upload = w.FileUpload(accept=".jsonl,.json", description="Téléverser", multiple=False)
    path = w.Text(placeholder="ou un chemin : ma_trace.jsonl", layout=w.Layout(width="24em"))
    button = w.Button(description="Ouvrir dans le lecteur", button_style="primary",
                      layout=w.Layout(width="auto"))
    shown = w.Output()

    def open_(_: object) -> None:
        files = list(upload.value or ())
        if files:  # an uploaded file wins over the typed path
            try:
                found = open_player(read_trace(bytes(files[-1]["content"]), files[-1]["name"]))
            except TraceFileError as err:
                found = _message(f"Impossible d’ouvrir la trace : {after_colon(err.explication)}")
        elif path.value.strip():
            found = open_player(path.value.strip())
        else:
            found = _message("Choisissez un fichier .jsonl (ou OpenTelemetry .json), ou tapez "
                             "son chemin.")
        # One assignment replaces what was shown (as the player does with its diagram).
        data = found._repr_mimebundle_() if hasattr(found, "_repr_mimebundle_") else \
            {"text/html": found.data}
        shown.outputs = ({"output_type": "display_data", "metadata": {}, "data": data},)

    button.on_click(open_)
    return Shown(w.VBox([w.HBox([upload, path, button]), shown],
                        _dom_classes=["harness-trace-picker"]))
