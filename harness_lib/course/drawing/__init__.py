"""A run, or one of the chapter's diagrams, as annotated Mermaid text.

    diagram.py        Diagram, Step, Entry: steps and context entries; the transcript
    trace_diagram.py  from_trace: a run as a diagram, each event an arrow (routes, labels)
    run_notes.py      each event's note, written from the whole run; stop reasons in French
    mermaid.py        Mermaid text out (escaped, windowed) and in (the chapter's .mmd files)
    fit.py            how wide Mermaid draws a sequence diagram: the labels that fit the cell
    hub.py            the hub view: who talks to whom through the harness
    charts.py         the context bar, its table, the bill per call
    held.py           what messages[] holds at a step, counted as messages arrive (run_notes)
    message_json.py   a run's messages as pretty JSON, each once, long texts folded (the player)
    export.py         a diagram as a file: .mmd, or SVG/PNG through mermaid.ink (teachers)

Imports only the harness: no widget here.
"""
