"""A class's progress files, read together: one row per learner, one per question, a CSV.

`read_class(folder)` reads every `*.json` of `folder` with `progress.read_progress`; a
file that is not a progress file (broken, hand-edited) is kept aside with its French
error, naming it, and never stops the others. `learner_table` and `question_table` are
what `python -m harness_lib classe` prints; `write_csv` writes one row per learner, one
column per question (1 right, 0 wrong, empty if not answered), `;`-separated, UTF-8 with
a BOM: what a French spreadsheet opens as it is; a name a spreadsheet would read as a
formula (« =… ») is written as text.

>>> import tempfile
>>> from pathlib import Path
>>> from harness_lib.course.progress import Item, record
>>> folder = Path(tempfile.mkdtemp())
>>> _ = record("04-facture", Item("question", "04", answer="36 000", correct=False),
...            folder / "ada.json")
>>> (folder / "abime.json").write_text("{", encoding="utf-8")
1
>>> found = read_class(folder)
>>> [row.name for row in found.learners], [b.file.name for b in found.broken]
(['ada'], ['abime.json'])
>>> question_table(found)[1].split()[:4]
['04-facture', '04', '1', '0']
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ...files import write_atomically
from ..progress import Item, Progress, ProgressError, read_progress

GRADE, SCORE = "08-grade", "09-score"  # 08's grader, 09's score out of 20: not questions


@dataclass(frozen=True)
class Learner:
    file: Path
    progress: Progress

    @property
    def name(self) -> str:
        return self.progress.learner.strip() or self.file.stem

    @cached_property
    def graded(self) -> dict[str, bool]:
        """Each question answered with a verdict: right (True) or wrong (False)."""
        return {name: item.correct for name, item in self.progress.items.items()
                if item.correct is not None and name not in (GRADE, SCORE)}

    def mark(self, name: str) -> str:
        """« 18/20 », « 4/5 »: the score of item `name` (08-grade, 09-score), or « – »."""
        item = self.progress.items.get(name)
        if item is None or item.score is None:
            return "–"
        return f"{_number(item.score)}/{_number(item.out_of)}" if item.out_of is not None \
            else _number(item.score)


@dataclass(frozen=True)
class Broken:
    file: Path
    error: str  # French, names the file and what is wrong in it


@dataclass(frozen=True)
class Classroom:
    learners: tuple[Learner, ...]
    broken: tuple[Broken, ...]

    def questions(self) -> list[str]:
        """Every question some learner answered with a verdict, by notebook (their ids)."""
        return sorted({name for row in self.learners for name in row.graded})


def read_class(folder: Path | str) -> Classroom:
    """Every progress file of `folder` (its *.json, in name order), the broken ones aside."""
    learners, broken = [], []
    paths = sorted(Path(e.path) for e in os.scandir(folder) if e.name.lower().endswith(".json"))
    for path in paths:
        try:
            learners.append(Learner(path, read_progress(path)))
        except ProgressError as err:
            broken.append(Broken(path, str(err)))
    return Classroom(tuple(learners), tuple(broken))


def _number(value: float | None) -> str:
    if value is None:
        return "–"
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}".replace(".", ",")


def _columns(rows: Iterable[Iterable[str]], right: set[int]) -> list[str]:
    """Rows as aligned text columns (those in `right` aligned right, for numbers)."""
    rows = [list(r) for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.rjust(w) if i in right else cell.ljust(w)
                      for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in rows]


def learner_table(room: Classroom) -> list[str]:
    """One line per learner: right, wrong, 08's grade, 09's score out of 20, last change."""
    head = ["Apprenant", "Justes", "Fausses", "08 (missions)", "09 (sur 20)", "Mis à jour"]
    rows = [[row.name, str(sum(row.graded.values())),
             str(sum(not ok for ok in row.graded.values())), row.mark(GRADE), row.mark(SCORE),
             row.progress.updated[:16].replace("T", " ")] for row in room.learners]
    return _columns([head, *rows], right={1, 2, 3, 4})


def question_table(room: Classroom) -> list[str]:
    """One line per question, the most missed first: answered, right, missed (and its %)."""
    counts = []
    for name in room.questions():
        said = [row.graded[name] for row in room.learners if name in row.graded]
        notebook = next(row.progress.items[name].notebook for row in room.learners
                        if name in row.progress.items)
        counts.append((name, notebook, len(said), sum(said)))
    counts.sort(key=lambda c: (-(c[2] - c[3]) / c[2], c[0]))
    rows = [[name, notebook, str(answered), str(right), str(answered - right),
             f"{round(100 * (answered - right) / answered)} %"]
            for name, notebook, answered, right in counts]
    return _columns([["Question", "Notebook", "Répondu", "Justes", "Manquées", "Manquées %"],
                     *rows], right={2, 3, 4, 5})


def write_csv(room: Classroom, path: Path | str) -> None:
    """One row per learner, one column per question (1, 0 or empty), `;`, UTF-8 with BOM."""
    questions = room.questions()
    lines = [["apprenant", "fichier", "mis_a_jour", "justes", "fausses", "note_08",
              "score_09_sur_20", *questions]]
    for row in room.learners:
        graded = row.graded
        score = row.progress.items.get(SCORE)
        grade = row.progress.items.get(GRADE)
        lines.append([_text(row.name), _text(row.file.name), _text(row.progress.updated),
                      str(sum(graded.values())),
                      str(sum(not ok for ok in graded.values())), _cell(grade), _cell(score),
                      *("" if q not in graded else str(int(graded[q])) for q in questions)])
    write_atomically(Path(path), _csv_text(lines).encode("utf-8-sig"))


def _text(value: str) -> str:
    """A learner's text as a spreadsheet cell: never a formula (« =… » is read as text)."""
    return f"'{value}" if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def _cell(item: Item | None) -> str:
    return "" if item is None or item.score is None else _number(item.score)


def _csv_text(lines: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=";", lineterminator="\r\n").writerows(lines)
    return out.getvalue()
