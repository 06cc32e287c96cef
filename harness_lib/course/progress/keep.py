"""What the widgets call: an answer kept, an earlier one recalled, never an exception.

A widget must work with a broken progress file: `keep` and `recall` return, beside their
result, a French sentence saying what went wrong ("" when all is well), which the widget
shows. The learner's file is left as it is; `recommencer()` sets it aside.

>>> import os, tempfile
>>> os.environ["HARNESS_PROGRESSION"] = os.path.join(tempfile.mkdtemp(), "progression.json")
>>> keep("04-facture", Item("question", "04", answer="234 000", correct=True))
''
>>> item, problem = recall("04-facture")
>>> item.answer, problem
('234 000', '')
>>> del os.environ["HARNESS_PROGRESSION"]
"""

from __future__ import annotations

from datetime import datetime

from .form import Item, Progress, ProgressError
from .store import forget, progress_path, read_progress, record

ADVICE = ("Votre fichier est laissé tel quel ; « recommencer() » le met de côté (renommé, "
          "rien n’est effacé) et repart de zéro.")


def problem_text(err: ProgressError, doing: str) -> str:
    """« Réponse non enregistrée : <why>. <advice> » for the learner."""
    return f"{doing} : {err}. {ADVICE}"


def keep(name: str, item: Item) -> str:
    """Record `item` for `name`; "" if done, else why not (in French)."""
    doing = "Correction non enregistrée" if item.kind == "grade" else "Réponse non enregistrée"
    try:
        record(name, item)
    except ProgressError as err:
        return problem_text(err, doing)
    except Exception as err:  # a bug of ours must not break the widget
        return f"{doing} ({type(err).__name__}). {ADVICE}"
    return ""


def recall(name: str) -> tuple[Item | None, str]:
    """The item kept for `name` (None if none), and "" or why the file could not be read."""
    progress, problem = everything()
    return progress.items.get(name), problem


def everything() -> tuple[Progress, str]:
    """The whole progress (empty if unreadable), and "" or why the file could not be read."""
    try:
        return read_progress(progress_path(), missing_ok=True), ""
    except ProgressError as err:
        return Progress(), problem_text(err, "Réponses précédentes non relues")


def start_over(names: list[str]) -> str:
    """Forget `names`; "" if done, else why not (in French)."""
    try:
        forget(names)
    except ProgressError as err:
        return problem_text(err, "Rien n’a été effacé")
    return ""


def when(item: Item) -> str:
    """« le 2/12 à 10 h 15 » (local time) for the item's instant, or "" if unreadable."""
    try:
        at = datetime.fromisoformat(item.at).astimezone()
    except ValueError:
        return ""
    return f"le {at.day}/{at.month} à {at.hour} h {at.minute:02d}"
