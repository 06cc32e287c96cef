"""A class's progress files, generated: what tests/test_classe.py and bench/classe.py read.

`make_class(folder, n, broken=2)` writes n files `progression-eleve-NN-2026-12-02.json`,
each a learner who answered every checked question of the bank (right with a probability
that depends on the question, so that some questions are missed by most), with 08's grade
and 09's score; the last `broken` files are spoiled: one cut in the middle (not JSON), one
hand-edited (`"correct": "oui"`).
"""

from __future__ import annotations

import random
from pathlib import Path

from harness_lib.course.exercises.answers import Open
from harness_lib.course.exercises.questions import QUESTIONS
from harness_lib.course.progress import Item, Progress, write_progress

CHECKED = [name for name, spec in QUESTIONS.items() if not isinstance(spec, Open)]
AT = "2026-12-02T10:15:00+00:00"


def learner(k: int, rng: random.Random) -> Progress:
    items = {}
    for i, name in enumerate(CHECKED):
        ok = rng.random() < 0.35 + 0.6 * (i % 5) / 4  # every 5th question: mostly missed
        kind = "assessment" if name.startswith("09-") else "question"
        items[name] = Item(kind, name[:2], answer=1, correct=ok, verdict="Juste." if ok
                           else "Faux.", at=AT)
    items["08-grade"] = Item("grade", "08", score=rng.randint(0, 5), out_of=5, at=AT)
    items["09-score"] = Item("assessment", "09", score=rng.randint(0, 20), out_of=20, at=AT)
    return Progress(learner=f"Élève {k:02d}", updated=AT, items=items)


def make_class(folder: Path, n: int, broken: int = 2, seed: int = 35) -> list[Path]:
    rng = random.Random(seed)
    paths = []
    for k in range(1, n + 1):
        path = folder / f"progression-eleve-{k:04d}-2026-12-02.json"
        write_progress(path, learner(k, rng))
        paths.append(path)
    spoiled = paths[len(paths) - broken:]
    if spoiled:
        text = spoiled[0].read_text(encoding="utf-8")
        spoiled[0].write_text(text[:len(text) // 2], encoding="utf-8")
    for path in spoiled[1:]:
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace('"correct": true', '"correct": "oui"', 1), encoding="utf-8")
    return paths
