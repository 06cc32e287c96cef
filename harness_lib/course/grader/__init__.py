"""The grader of notebook 08: the learner's own loop, run for real and explained.

    missions.py   the missions, each needing a part of the loop (and one optional)
    grade.py      grade(loop): read it, run it on each mission, bounded; the verdicts
    compare.py    each call against what a correct loop would have sent at that call
    explain.py    a Python error or a cut, in French, at the learner's own line
    lines.py      the learner's lines: found in their source, numbered as in their cell
    report.py     the report: one line per mission, text and HTML
    seal.py       the grader's code out of the loop's reach: what the loop changed, put back
    solution.py   « Voir le corrigé », and the loop the rest of the notebook uses

Imports the harness, drawing/, missions/, player/, exercises/ and progress/ (grade.py keeps
the verdict on the learner's own loop in their progress file).
"""
