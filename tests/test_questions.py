"""The course's question bank: every answer key passes, every wrong answer gets its own
feedback, every question is asked by a notebook, and the keys agree with the harness."""

from __future__ import annotations

import copy
import html
import re
from pathlib import Path

import nbformat
import pytest

from harness_lib import SYSTEM_PROMPT, assistant, system, tool_call, tool_result, user
from harness_lib.course.exercises.answers import MultipleChoice, Numeric, Open, ShortText
from harness_lib.course.exercises.french import normalise
from harness_lib.course.exercises.questions import QUESTIONS, REFUSALS, refusal_option
from harness_lib.course.exercises.widgets import question
from harness_lib.course.missions.scenarios import replay
from harness_lib.course.missions.tasks import README_TASK
from harness_lib.course.playground.sending import send
from harness_lib.text import french_number

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ASKED = re.compile(r"""\bquestion\(\s*["']([\w-]+)["']\s*\)""")


def of_kind(kind: type) -> list[str]:
    return [name for name, spec in QUESTIONS.items() if isinstance(spec, kind)]


def asked_by_notebooks() -> dict[str, list[str]]:
    """question id -> the notebooks whose cells ask it (or check its answer)."""
    found: dict[str, list[str]] = {}
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            for name in ASKED.findall(cell.source) if cell.cell_type == "code" else []:
                found.setdefault(name, []).append(path.name)
    return {name: sorted(set(notebooks)) for name, notebooks in found.items()}


@pytest.mark.parametrize("name", [n for n in QUESTIONS if not isinstance(QUESTIONS[n], Open)])
def test_every_answer_key_passes_its_own_check(name: str) -> None:
    spec = QUESTIONS[name]
    assert spec.grade(spec.solution).ok is True  # type: ignore[union-attr]
    assert spec.reveal().strip()  # type: ignore[union-attr]


@pytest.mark.parametrize("name", of_kind(MultipleChoice))
def test_every_wrong_choice_gets_its_own_feedback(name: str) -> None:
    spec = QUESTIONS[name]
    assert isinstance(spec, MultipleChoice)
    for i in range(len(spec.choices)):
        verdict = spec.grade(i)
        assert verdict.ok is (i == spec.correct) and verdict.text == spec.feedback[i]
    assert len(set(spec.feedback)) == len(spec.feedback), "deux options, un même feedback"


@pytest.mark.parametrize("name", of_kind(Numeric) + of_kind(ShortText))
def test_known_mistakes_are_wrong_and_explained(name: str) -> None:
    spec = QUESTIONS[name]
    assert isinstance(spec, (Numeric, ShortText))
    for wrong, text in spec.mistakes.items():
        verdict = spec.grade(wrong)  # type: ignore[arg-type]
        assert verdict.ok is False and verdict.text.startswith(text)


def test_every_question_is_asked_by_the_notebook_its_id_names() -> None:
    asked = asked_by_notebooks()
    assert set(asked) <= set(QUESTIONS), f"questions inconnues : {set(asked) - set(QUESTIONS)}"
    assert set(QUESTIONS) <= set(asked), f"jamais posées : {set(QUESTIONS) - set(asked)}"
    for name, notebooks in asked.items():
        assert notebooks == [f"{name[:2]}_{notebooks[0][3:]}"], (name, notebooks)


# --- the answer keys agree with the harness


def test_the_refusal_questions_agree_with_the_api() -> None:
    intact = [system(SYSTEM_PROMPT), user(README_TASK),
              assistant(None, [tool_call("call_1", "read_file", {"path": "README.md"})]),
              tool_result("call_1", "# Mini harness\nUne boucle et un outil.")]
    variations = [copy.deepcopy(intact) for _ in range(3)]
    del variations[0][2]
    del variations[1][3]
    variations[2][3]["tool_call_id"] = "call_9"
    assert refusal_option(send(intact, show=False)) == 0
    for number, messages in enumerate(variations, start=1):
        answer = refusal_option(send(messages, show=False))
        assert answer == QUESTIONS[f"02-refus-{number}"].solution
    assert [words for _, words in REFUSALS][1:] and all(words for _, words in REFUSALS[1:])


@pytest.mark.parametrize(("name", "missing"), [
    ("normal", "aucun"), ("tool-error", "aucun"), ("missing-call", "message assistant"),
    ("missing-result", "message tool"), ("max-turns", "réponse finale"),
])
def test_the_incident_questions_agree_with_the_incidents(name: str, missing: str) -> None:
    spec = QUESTIONS[f"07-{name}"]
    assert isinstance(spec, MultipleChoice)
    assert missing in replay(name).missing
    assert missing in spec.choices[spec.correct].lower()


def _forms(spec: MultipleChoice | Numeric | ShortText) -> list[str]:
    """How the answer could be written in a feedback: the choice, its core, the number."""
    if isinstance(spec, MultipleChoice):
        right = spec.choices[spec.correct].rstrip(".")
        return [right, *([right.split(" : ", 1)[1]] if " : " in right else [])]
    if isinstance(spec, Numeric):
        value = int(spec.answer) if spec.answer == int(spec.answer) else spec.answer
        return [french_number(value), str(value)]
    return [*spec.answers]


def _wrong_answers(spec: MultipleChoice | Numeric | ShortText) -> list[object]:
    if isinstance(spec, MultipleChoice):
        return [i for i in range(len(spec.choices)) if i != spec.correct]
    if isinstance(spec, Numeric):
        return [*spec.mistakes, spec.answer * 3 + 7, spec.answer / 3 - 1]
    return [*spec.mistakes, "autre chose"]


@pytest.mark.parametrize("name", [n for n in QUESTIONS if not isinstance(QUESTIONS[n], Open)])
def test_a_first_wrong_try_never_shows_the_answer(name: str) -> None:
    """The widget's feedback after one wrong answer: why it is wrong, never the answer."""
    for wrong in _wrong_answers(QUESTIONS[name]):  # type: ignore[arg-type]
        asked = question(name)
        asked.restart()  # « Recommencer »: the wrong answer kept by the last turn is forgotten
        asked.widget.value = wrong if not isinstance(wrong, float) else str(wrong)
        assert asked.check() is False
        shown = normalise(re.sub(r"<[^>]+>", " ", html.unescape(asked.widget.feedback)))
        assert "la bonne reponse" not in shown and "la reponse :" not in shown
        assert not shown.startswith("✘ pas tout a fait") and " oui" not in f" {shown}"
        for form in _forms(QUESTIONS[name]):  # type: ignore[arg-type]
            assert normalise(form) not in shown, (name, wrong, form)
        assert "essayez encore" in shown


@pytest.mark.parametrize("name", of_kind(MultipleChoice))
def test_the_revealed_answer_never_says_oui(name: str) -> None:
    """Shown after two wrong tries: « La bonne réponse : … », then why, with no « Oui »."""
    revealed = QUESTIONS[name].reveal()  # type: ignore[union-attr]
    assert revealed.startswith("La bonne réponse") and "». Oui" not in revealed


def test_the_provider_texts_quoted_by_the_questions_are_word_for_word() -> None:
    """« mot pour mot »: a quoted API text keeps its colon and straight quotes (no French
    typography inside <code>), as provider_texts.py writes it."""
    from harness_lib.course.exercises.french import typography
    from harness_lib.mock.api_texts import TEXTS

    pages = " ".join(typography(f) for spec in QUESTIONS.values()
                     for f in getattr(spec, "feedback", ()) if isinstance(f, str))
    assert "did not have response messages: call_1" in pages
    assert TEXTS["orphan"][0].split(": ", 1)[1].rstrip(".") in pages
    assert "'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message" in pages
