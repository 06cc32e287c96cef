"""Checked answers without any widget: a choice, a number, a short text, an open answer.

Each kind of question is a frozen dataclass with `grade(answer) -> Verdict` and its
`solution`; exercises.py wraps them in widgets, tests and notebooks call `grade`
directly. A question whose own solution fails its check cannot be built: the answer
key is checked every time a notebook builds the question.

>>> bill = Numeric("Combien de tokens facturés ?", 234_000, unit="tokens",
...                mistakes={432_000: "Chaque appel n'envoie pas le dernier contexte."})
>>> [bill.grade(typed).ok for typed in ("234 000", "234000", "234\u202f000 tokens")]
[True, True, True]
>>> bill.grade("432 000").text
"Chaque appel n'envoie pas le dernier contexte."
>>> bill.grade("200 000").text
'Trop bas.'
>>> ShortText("Quel rôle ?", ("tool",)).grade(" « Tool » ").ok
True
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...text import french_number, shorten
from .french import comma_hint, normalise, parse_number, said

__all__ = ["MultipleChoice", "Numeric", "Open", "ShortText", "Spec", "Verdict"]


@dataclass(frozen=True)
class Verdict:
    """`ok` is None when the answer cannot be graded (nothing chosen, not a number)."""

    ok: bool | None
    text: str  # HTML: the feedback for this answer


class _Checked:
    """What the three checked kinds share: the answer key must pass its own check."""

    def __post_init__(self) -> None:
        if self.grade(self.solution).ok is not True:  # type: ignore[attr-defined]
            raise ValueError(f"clé de réponse fausse : la solution de « {self.prompt} » ne "  # type: ignore[attr-defined]
                             "passe pas sa propre vérification")


@dataclass(frozen=True)
class MultipleChoice(_Checked):
    """Choose one of `choices`; `feedback` has one text per choice (HTML)."""

    prompt: str
    choices: Sequence[str]
    correct: int
    feedback: Sequence[str]

    def __post_init__(self) -> None:
        if len(self.feedback) != len(self.choices) or not 0 <= self.correct < len(self.choices):
            raise ValueError("il faut un feedback par choix, et correct parmi les choix")
        super().__post_init__()

    @property
    def solution(self) -> int:
        return self.correct

    def grade(self, answer: int | None) -> Verdict:
        if not isinstance(answer, int) or isinstance(answer, bool) \
                or not 0 <= answer < len(self.choices):
            return Verdict(None, "Choisissez une réponse, puis « Vérifier ».")
        return Verdict(answer == self.correct, self.feedback[answer])

    def reveal(self) -> str:
        right = html.escape(self.choices[self.correct].rstrip("."), quote=False)
        return f"La bonne réponse : « {right} ». {_without_yes(self.feedback[self.correct])}" \
            .strip()


def _without_yes(feedback: str) -> str:
    """The right answer's feedback, told after a wrong try: without its « Oui. » (a learner
    who chose wrong must not read « Oui »).

    >>> _without_yes("Oui : le harness exécute."), _without_yes("Oui.")
    ('Le harness exécute.', '')
    """
    rest = re.sub(r"^Oui\s*[.:,;]?\s*", "", feedback)
    return rest[:1].upper() + rest[1:] if rest != feedback else feedback


@dataclass(frozen=True)
class Numeric(_Checked):
    """A number, typed the French way or not (« 36 000 », « 36000 », « 0,5 », « 0.5 »).

    mistakes     known wrong answers, each with what it reveals about the reasoning
    too_low/high what a wrong answer below/above usually forgot (after « Trop bas. »)
    direction    False when « trop haut / trop bas » would give the answer away
    explanation  the worked answer (HTML), shown once solved or revealed
    """

    prompt: str
    answer: float
    tolerance: float = 0
    unit: str = ""
    mistakes: Mapping[float, str] = field(default_factory=dict)
    too_low: str = ""
    too_high: str = ""
    direction: bool = True
    explanation: str = ""

    def __post_init__(self) -> None:
        if any(abs(wrong - self.answer) <= self.tolerance for wrong in self.mistakes):
            raise ValueError(f"« {self.prompt} » : une erreur connue est dans la tolérance")
        super().__post_init__()

    @property
    def solution(self) -> float:
        return self.answer

    def grade(self, answer: str | float) -> Verdict:
        if not said(answer).strip():  # nothing typed yet
            return Verdict(None, "Écrivez un nombre, puis « Vérifier ».")
        try:
            value = parse_number(answer)
        except ValueError as err:
            return Verdict(None, html.escape(str(err), quote=False))
        known = [text for wrong, text in self.mistakes.items() if abs(value - wrong) < 1e-9]
        if abs(value - self.answer) <= self.tolerance:
            return Verdict(True, f"Oui : {french_number(self.answer)}{self._unit()}. "
                           f"{self.explanation}".strip())
        text = known[0] if known else self._direction(value)
        return Verdict(False, (text + comma_hint(answer)).strip())

    def _direction(self, value: float) -> str:
        if not self.direction:
            return "Ce n’est pas ce nombre."
        low = value < self.answer
        return f"{'Trop bas' if low else 'Trop haut'}. {self.too_low if low else self.too_high}"

    def _unit(self) -> str:
        return f" {self.unit}" if self.unit else ""

    def reveal(self) -> str:
        answer = french_number(self.answer)
        return f"La réponse : {answer}{self._unit()}. {self.explanation}".strip()


@dataclass(frozen=True)
class ShortText(_Checked):
    """A word or two; case, accents, spaces and quotes do not count (`normalise`).

    answers   the accepted variants, the first one shown as the answer
    mistakes  known wrong answers (normalised when compared), each with its feedback
    """

    prompt: str
    answers: Sequence[str]
    feedback: str = ""
    mistakes: Mapping[str, str] = field(default_factory=dict)
    explanation: str = ""

    @property
    def solution(self) -> str:
        return self.answers[0] if self.answers else ""

    def grade(self, answer: str) -> Verdict:
        typed = normalise(said(answer))  # a number, a list…: its text, graded as any other
        if not typed:
            return Verdict(None, "Écrivez une réponse, puis « Vérifier ».")
        if typed in {normalise(a) for a in self.answers}:
            return Verdict(True, f"Oui. {self.feedback}".strip())
        known = {normalise(k): text for k, text in self.mistakes.items()}
        shown = html.escape(shorten(said(answer).strip(), 80), quote=False)
        return Verdict(False, known.get(typed, f"« {shown} » n’est pas la réponse attendue."))

    def reveal(self) -> str:
        said = self.explanation or self.feedback
        return f"La réponse : « {html.escape(self.solution, quote=False)} ». {said}".strip()


@dataclass(frozen=True)
class Open:
    """An open question: the learner writes, then reveals `model_answer` (HTML)."""

    prompt: str
    model_answer: str
    button: str = "Voir la réponse modèle"

    @property
    def solution(self) -> str:
        return self.model_answer


Spec = MultipleChoice | Numeric | ShortText | Open
