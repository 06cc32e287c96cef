"""The final assessment (notebook 09): a score out of 20, and the « Bilan » of what to revisit.

`score(answers)` is pure: the learner's first answer to each question (by id; missing or
None: not answered) -> a `Score`, whose `lines()` are what the notebook shows: the score,
then one « Bilan » line per notebook to revisit, naming the concepts missed. `Evaluation`
is the notebook's side: it shows each question (widgets.py) and keeps each first answer,
since the feedback of a wrong answer would give the second one away.

>>> from harness_lib.course.exercises.final_questions import ASSESSED, FINAL
>>> right = {item.id: FINAL[item.id].solution for item in ASSESSED}
>>> score(right).points, score({}).points
(20, 0)
>>> print(score({**right, "09-ordre": 0}))
Score : 18/20 (14 bonnes réponses sur 15 questions).
Bilan : revoyez 02_deux_regles.ipynb, pour l’ordre des messages que l’API accepte (question 4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ...text import french_number, plural
from ..exercises.answers import Open
from ..exercises.final_questions import ASSESSED, FINAL, Assessed
from ..exercises.widgets import Checked, exercise, graded
from ..progress import Item, ProgressError, progress_path, record

OUT_OF = sum(item.points for item in ASSESSED)


@dataclass(frozen=True)
class Result:
    """One question of the assessment, graded: `ok` is None when it was not answered."""

    item: Assessed
    number: int  # its place in the notebook, from 1
    ok: bool | None

    @property
    def points(self) -> int:
        return self.item.points if self.ok else 0


@dataclass(frozen=True)
class Score:
    results: tuple[Result, ...]
    note: str = ""  # said after the « Bilan »: where the score was kept, or why not

    @property
    def points(self) -> int:
        return sum(r.points for r in self.results)

    @property
    def out_of(self) -> int:
        return OUT_OF

    def missed(self) -> list[Result]:
        return [r for r in self.results if not r.ok]

    def lines(self) -> list[str]:
        """The score, then the « Bilan »: per notebook to revisit, what was missed there."""
        right = len(self.results) - len(self.missed())
        head = f"Score : {french_number(self.points)}/{self.out_of} (" \
               f"{plural(right, 'bonne réponse', 'bonnes réponses')} sur {len(self.results)} " \
               "questions)."
        note = [self.note] if self.note else []
        if not self.missed():
            return [head, "Bilan : rien à revoir, chaque section du chapitre est acquise.",
                    *note]
        return [head, *(_bilan(notebook, results) for notebook, results in _by_notebook(
            self.missed()).items()), *note]

    def _repr_markdown_(self) -> str:
        return "\n\n".join(_linked(line) for line in self.lines())

    def __str__(self) -> str:
        return "\n".join(self.lines())


def score(answers: Mapping[str, Any]) -> Score:
    """Grade each first answer of the assessment (no widget); unknown ids are ignored."""
    results = []
    for number, item in enumerate(ASSESSED, start=1):
        answer = answers.get(item.id)
        spec = FINAL[item.id]
        ok = None if answer is None or isinstance(spec, Open) else graded(spec, answer).ok
        results.append(Result(item, number, ok))
    return Score(tuple(results))


def _by_notebook(results: list[Result]) -> dict[str, list[Result]]:
    grouped: dict[str, list[Result]] = {}
    for result in results:
        grouped.setdefault(result.item.notebook, []).append(result)
    return grouped


def _bilan(notebook: str, results: list[Result]) -> str:
    concepts = "\u202f; ".join(dict.fromkeys(r.item.concept for r in results))
    numbers = [str(r.number) for r in results]
    said = numbers[0] if len(numbers) == 1 else ", ".join(numbers[:-1]) + " et " + numbers[-1]
    which = "question" if len(numbers) == 1 else "questions"
    blank = sum(r.ok is None for r in results)
    unanswered = "" if not blank else (" ; sans réponse" if blank == len(results) else
                                       f" ; {blank} sans réponse")
    return f"Bilan : revoyez {notebook}, pour {concepts} ({which} {said}{unanswered})."


def _linked(line: str) -> str:
    """A « Bilan » line in Markdown: its notebook as a link the learner clicks."""
    for item in ASSESSED:
        if f" {item.notebook}," in line:
            return line.replace(item.notebook, f"[{item.notebook}]({item.notebook})", 1)
    return line


class Evaluation:
    """The notebook's assessment: `question(id)` shows one question (kind « assessment »:
    its first answer, or its answer shown before any, is kept in the progress file as it is
    given, and shown again after a restart) and keeps its widget; `bilan()` scores the
    first answers and keeps the score (« 09-score »)."""

    def __init__(self) -> None:
        self.asked: dict[str, Checked] = {}

    def question(self, name: str) -> Any:
        shown = exercise(FINAL[name])  # one of the assessment's questions
        shown.kind = "assessment"
        shown.remember(name)
        if isinstance(shown, Checked):
            self.asked[name] = shown
        return shown

    def answers(self) -> dict[str, Any]:
        """Each question's first answer, as given in its widget (None: none, or revealed)."""
        return {name: (None if q.shown_first or not q.given else q.given[0])
                for name, q in self.asked.items()}

    def bilan(self, path: Path | str | None = None) -> Score:
        """The score of the first answers, kept in the learner's progress file (`path`, or
        progression.json where the notebook runs); a file that cannot be written is said."""
        result = score(self.answers())
        target = progress_path() if path is None else Path(path)
        try:
            record("09-score", Item("assessment", "09", verdict=result.lines()[0],
                                    score=result.points, out_of=result.out_of), target)
        except ProgressError as err:
            return replace(result, note=f"Score non enregistré dans votre progression\u00a0: {err}")
        return replace(result, note=f"Score enregistré dans votre progression ({target}).")
