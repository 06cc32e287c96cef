"""`send(messages)` and the mock/real toggle: what the API does with a conversation.

    toggle.py        Playground, toggle(), current_model(): one model for the notebook
    sending.py       send(): a learner's messages[] to that model, never raising
    replies.py       what send() displays: the reply, the refusal, the problems found
    conversation.py  a learner's messages[] as a diagram, the refused message marked
    listing.py       messages[] as a listing, the refused field highlighted
    misconceptions.py  the classic mistake behind a refusal, explained in French
    live.py (+.js, .css)  live regions (status lines, verdicts) and the toggle's radio group
    fresh_kernel.py  an IPython extension: a later cell run first in a new kernel names the
                     cell to run (loaded by every kernel of the install: etc/ipython)
    server_extension.py  a Jupyter Server extension: the server reaches a notebook's new
                     kernel as soon as it is up (loaded by every server: etc/jupyter)

Imports the harness, drawing/ (the diagram, fitted as the players' are: drawing/fit.py),
missions/ and player/ (the widget that draws send()'s diagram: player/figure.py).
"""
