"""What one notebook shows, beyond players and questions.

    approval.py     a human's yes or no, action by action (05)
    react.py        a run read as ReAct: reasoning, action, observation; a fixed pipeline (06)
    codeview.py     the harness's source with its key lines marked (04, 07)
    saved_trace.py  a saved run (`run --trace`, or OTLP/JSON GenAI spans) back in the player (07)
    course_map.py   where am I: the course map with what is done and left (00, each first
                    cell); `exporter_progression()`, `recommencer()`

Imports the harness and the other course folders; nothing imports it back.
"""
