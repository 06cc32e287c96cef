"""The course machinery: everything that exists to *show* the harness to a learner.

The harness (one level up) runs the agentic loop; nothing there knows about
this folder. Here live the widgets and the diagrams the notebooks display, and
the only imports of ipywidgets and IPython in the project.

    diagram.py, mermaid.py, trace_diagram.py   a run or a chapter diagram as annotated Mermaid
    player.py, player_state.py, panels.py      the player: what each step shows, prepared once
    stepper.py (+ .js, .css)                   its browser side: controls, keys, the step's text
    browser_widget.py                          the base of stepper.py and question.py
    hub.py, narration.py                       the hub view; what each step says
    charts.py                                  the context bar, the bill, a player's static copy
    playground.py, replies.py                  the mock/real toggle and `send(messages)`
    conversation.py, listing.py                what send() draws: messages[], the refusal marked
    targets.py                                 goals of a ✏️ cell, ticked by themselves
    exercises.py, question.py (+ .js, .css)    question widgets, one model each in the page
    tool_message.py                            « jouez le rôle du harness », its checks
    answers.py, french.py, questions.py        grading without widgets, the question bank
    approval.py                                a human's yes or no, action by action
    hand_harness.py                            be the harness for a whole mission, each step checked
    own_loop.py, logbook.py, grader.py         your own loop, run, watched and graded
    react.py                                   a run read as ReAct (reasoning, action, observation)
    codeview.py                                the harness's source, with its key lines marked
    scenarios.py, data/                        the chapter's missions, incidents, workspaces
    saved_trace.py                             a saved run (`run --trace`) back in the player
    export.py                                  a diagram as a file (.mmd, or SVG/PNG)

Import the module you need (`from harness_lib.course.player import Player`):
this package imports nothing by itself.
"""
