"""Where am I: the course map with what the learner did, notebook by notebook (00, and
each notebook's first cell), and the two things a learner may want with their progress:
export it (`exporter_progression`), start over (`recommencer`).

What counts: each question of the bank (questions.py) answered right, each exercise
(✏️ targets all reached, « jouez le rôle du harness » right, 08's grader passed). What
is left is named. Read from the progress file (progress/) each time it is shown.

>>> from harness_lib.course.progress import Item, Progress
>>> done = Progress(items={"04-facture": Item("question", "04", "234 000", True)})
>>> four = standing(done, "04")
>>> four.right, four.questions, four.left
(1, 3, ['2 questions'])
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from ...text import plural
from ..exercises.questions import QUESTIONS
from ..progress.form import Progress, ProgressError
from ..progress.keep import everything
from ..progress.store import export_progress, forget, progress_path, set_aside

NOTEBOOKS = {  # number -> title (each notebook's first heading)
    "00": "Bienvenue", "01": "Deux tours de function calling", "02": "Les deux règles de la boucle",
    "03": "Une erreur est aussi une observation", "04": "La boucle complète",
    "05": "Conditions d’arrêt", "06": "ReAct", "07": "Dans le code du mini-harness",
    "08": "Écrire la boucle", "09": "Évaluation finale",
    "annexe": "La carte du chapitre et votre clé d’API"}
EXERCISES = {"02": {"02-cibles": "les cibles ✏️ de messages[]"},
             "03": {"03-message-outil": "« jouez le rôle du harness »"},
             "05": {"05-cibles": "les cibles ✏️ des arrêts"},
             "08": {"08-grade": "votre boucle, notée par grade()"}}


@dataclass(frozen=True)
class Standing:
    """One notebook's progress: what is done and what is left."""

    notebook: str
    right: int  # questions answered right (an open question: answered)
    questions: int
    exercises: int  # exercises passed
    out_of: int
    left: list[str]  # what is left, in French
    graded: str = ""  # 08: the last verdict

    @property
    def done(self) -> bool:
        return not self.left and bool(self.questions + self.out_of)

    def summary(self) -> str:
        """What is done and what is left, without the notebook's name."""
        parts = []
        if self.questions:
            parts.append(f"questions justes\u00a0: {self.right} sur {self.questions}")
        if self.out_of:
            parts.append(f"exercices réussis\u00a0: {self.exercises} sur {self.out_of}")
        if self.graded:
            parts.append(f"dernière correction\u00a0: {self.graded}")
        rest = "tout est fait ✔." if self.done else f"reste\u00a0: {', '.join(self.left)}."
        return " ; ".join(parts) + " ; " + rest if parts else "à lire, rien à rendre."

    def __str__(self) -> str:
        return f"{self.notebook} {NOTEBOOKS[self.notebook]}\u00a0: {self.summary()}"


def standing(progress: Progress, notebook: str) -> Standing:
    """What `progress` says of `notebook`."""
    items = progress.items
    asked = [name for name in QUESTIONS if name[:2] == notebook]
    right = [n for n in asked if n in items and items[n].correct is not False]
    wrong = [n for n in asked if n in items and items[n].correct is False]
    tasks = EXERCISES.get(notebook, {})
    passed = [n for n in tasks if n in items and items[n].correct]
    unanswered = len(asked) - len(right) - len(wrong)
    left = ([plural(len(wrong), "question à revoir", "questions à revoir")] if wrong else []) + \
        ([plural(unanswered, "question")] if unanswered else []) + \
        [tasks[n] for n in tasks if n not in passed]
    grade = items.get("08-grade") if notebook == "08" else None
    return Standing(notebook, len(right), len(asked), len(passed), len(tasks), left,
                    grade.verdict if grade else "")


class CourseMap:
    """The map: every notebook's standing (or one's), as text and as an HTML table."""

    def __init__(self, notebooks: list[str]) -> None:
        progress, self.problem = everything()
        self.rows = [standing(progress, n) for n in notebooks]

    def __str__(self) -> str:
        return "\n".join([str(row) for row in self.rows] + ([self.problem] if self.problem else []))

    __repr__ = __str__  # what an HTML export or a text viewer shows of the map

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th scope='row'>{row.notebook} {html.escape(NOTEBOOKS[row.notebook])}</th>"
            f"<td>{'✔ fait' if row.done else html.escape(row.summary())}</td></tr>"
            for row in self.rows)
        problem = f"<p role='alert'>{html.escape(self.problem)}</p>" if self.problem else ""
        return (f"<div lang='fr' class='harness-course-map'><table><caption>Votre progression "
                f"(relancez la cellule pour la mettre à jour)</caption><thead><tr><th scope='col'>"
                f"notebook</th><th scope='col'>fait et reste à faire</th></tr></thead>"
                f"<tbody>{rows}</tbody></table>{problem}</div>")


def progression(notebook: str | None = None) -> CourseMap:
    """The course map (every notebook), or one notebook's line: `print(progression("04"))`."""
    return CourseMap([notebook] if notebook else list(NOTEBOOKS))


def exporter_progression(nom: str | None = None) -> None:
    """Write the copy of your progress you keep or hand in, and say where (never raises)."""
    try:
        target = export_progress(learner=nom)
    except ProgressError as err:
        print(f"Rien n’est exporté : {err}")
        return
    print(f"Progression exportée dans « {target} ». Pour la garder : clic droit sur le "
          "fichier dans l’explorateur de fichiers › Télécharger.")


def recommencer(notebook: str | None = None) -> None:
    """Start over: one notebook's answers forgotten, or the whole file set aside (kept)."""
    print(_start_over(notebook))


def _start_over(notebook: str | None) -> str:
    try:
        if notebook is not None:
            before = everything()[0].items
            after = forget([n for n, item in before.items() if item.notebook == notebook]).items
            gone = len(before) - len(after)
            return (f"{plural(gone, 'réponse')} de {notebook} oubliée{'s' if gone > 1 else ''} ; "
                    "relancez ses cellules pour repartir de zéro.")
        kept = set_aside()
    except ProgressError as err:
        return f"Rien n’a changé : {err}"
    if kept is None:
        return f"Rien à recommencer : aucune progression dans « {progress_path()} »."
    return (f"Votre progression est mise de côté dans « {kept.name} » (rien n’est effacé) ; "
            "le cours repart de zéro.")
