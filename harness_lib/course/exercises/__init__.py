"""Questions and graders: the learner answers, the course checks.

    questions.py      the question bank (every question of the course, by id)
    answers.py        grading without widgets: choices, numbers, short texts, open questions
    french.py         numbers and texts as French speakers type them
    widgets.py        question(id), check_answer(id, x), « jouez le rôle du harness »
    question.py (+.js, .css)  a question in the page: one anywidget model
    tool_message.py   the checks of a tool message written by hand
    hand_harness.py   be the harness for a whole mission, each step checked
    hand_checks.py    its checks, step by step, agreeing with what the API will answer
    targets.py        the goals of a ✏️ cell, ticked by themselves

Imports the harness, drawing/, missions/, player/, playground/ and progress/: widgets.py and
targets.py keep the learner's answers and reached targets in progression.json (progress/keep.py,
never an exception) and show them again when the cell runs again.
"""
