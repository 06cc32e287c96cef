"""For the class and its teacher: the final assessment, the guide, the class's progress.

    assessment.py  notebook 09: the score out of 20 of the first answers, its « Bilan »
                   (the notebook to revisit per concept missed), kept in progression.json

Imports exercises/ (the question bank) and progress/ (the learner's progress file).
"""
