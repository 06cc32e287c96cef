"""The course's question bank: every answer key passes, every wrong answer gets its own
feedback, every question is asked by a notebook, and the keys agree with the harness."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
import pytest

from harness_lib import SYSTEM_PROMPT, assistant, system, tool_call, tool_result, user
from harness_lib.course.exercises.answers import MultipleChoice, Numeric, Open, ShortText
from harness_lib.course.exercises.questions import QUESTIONS, REFUSALS, refusal_option
from harness_lib.course.missions.scenarios import README_TASK, replay
from harness_lib.course.playground.toggle import send

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
