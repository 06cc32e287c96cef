"""A run, or one of the chapter's diagrams, as annotated Mermaid text.

    diagram.py        Diagram, Step, Entry: steps and context entries (from a trace or a .mmd)
    trace_diagram.py  how each trace event becomes an arrow: routes, labels
    run_notes.py      each event's note, written from the whole run; stop reasons in French
    mermaid.py        Mermaid text out (escaped, windowed) and in (the chapter's .mmd files)
    hub.py            the hub view: who talks to whom through the harness
    charts.py         the context bar, the bill per call, a player's static copy
    message_json.py   a run's messages as pretty JSON, each once, long texts folded (the player)
    export.py         a diagram as a file: .mmd, or SVG/PNG through mermaid.ink (teachers)

Imports only the harness: no widget here.
"""
