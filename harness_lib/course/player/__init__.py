"""The player: a run or a chapter diagram, step by step, in the notebook.

    player.py          Player, run_live: build the widget, prepare steps, follow a live run
    state.py           what one step shows (drawing, note, « Que sait le modèle ? », the bar)
    known.py           « Que sait le modèle ? » (its last call) beside messages[] now
    narration.py       what each step says: its note and its status
    panels.py          the prepared steps: Mermaid text and HTML, in the text part's lists
    stepper.py (+.js, .css)  the controls and the text part, in the browser (an anywidget)
    figure.py          one diagram outside a player (send()'s), drawn by stepper.js too
    renderer.py (+.js, .css) the bundled Mermaid (vendor/): sent once per kernel, draws for
                       every player; its sheet: the course's page-wide focus ring and contrast
    static.py (+.js)   the static copy (the diagram, its hub view, its text version), drawn
                       offline in an HTML export or a notebook reopened,
                       and the note that a widget needs its kernel (`show`, `Shown`)
    browser_widget.py  the base of the course's own anywidgets (stepper, figure, renderer, question)

Imports the harness and drawing/; never the playground, the exercises or the lessons.
"""
