"""The teacher's guide (docs/guide-enseignant.md) agrees with the course: every question of
the bank with its answer and the feedback of each wrong one, the durations 00 announces,
the misconceptions the course names, and the links that lead to it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from course_files import ANNEX, README, START, markdown, read, route, same_spaces
from typography import problems

from harness_lib.course.exercises.answers import MultipleChoice, Numeric, Open, ShortText
from harness_lib.course.exercises.questions import QUESTIONS
from harness_lib.course.teaching.guide import BEGIN, END, generated, plain, question_markdown

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide-enseignant.md"
TEXT = GUIDE.read_text(encoding="utf-8")
MISCONCEPTIONS = ROOT / "harness_lib" / "course" / "playground" / "misconceptions.py"


def test_the_generated_part_is_the_bank_and_the_notebooks_as_they_are() -> None:
    part = TEXT[TEXT.index(BEGIN) + len(BEGIN):TEXT.index(END)].strip("\n")
    assert part == generated().rstrip("\n"), (
        "le guide ne dit plus ce que disent la banque ou les notebooks : lancez "
        "`python -m harness_lib.course.teaching.guide docs/guide-enseignant.md`")


@pytest.mark.parametrize("name", list(QUESTIONS))
def test_every_question_has_its_answer_and_why_each_wrong_one_is_wrong(name: str) -> None:
    block = question_markdown(name)
    assert block in TEXT
    spec = QUESTIONS[name]
    if isinstance(spec, MultipleChoice):
        right = [line for line in block.splitlines() if line.startswith("- ✔")]
        assert len(right) == 1 and plain(spec.feedback[spec.correct]) in right[0]
        for i, feedback in enumerate(spec.feedback):
            assert plain(feedback) in block, f"{name} : le feedback du choix {i} manque"
    elif isinstance(spec, Numeric):
        assert all(plain(text) in block for text in spec.mistakes.values())
    elif isinstance(spec, ShortText):
        assert all(f"`{a}`" in block for a in spec.answers)
    else:
        assert isinstance(spec, Open) and plain(spec.model_answer) in block


def test_the_durations_are_the_ones_00_announces() -> None:
    rows = {}
    for line in same_spaces(TEXT).splitlines():
        found = re.match(r"\|\s*\[(\d\d_\w+\.ipynb)\].*\|\s*(\d+) min\s*\|\s*(\d+) min\s*\|\s*$",
                         line)
        if found:
            rows[found[1]] = (int(found[2]), int(found[3]))
    said = route()
    assert rows == said
    full, express = sum(f for f, _ in said.values()), sum(x for _, x in said.values())
    assert f"Les notebooks 01 à 09 font les {full} minutes du parcours complet" in \
        same_spaces(TEXT)
    assert f"Le parcours express dure {express} minutes" in same_spaces(TEXT)
    first = same_spaces(markdown(read(START))[0])
    start = re.search(r"\*\*Durée\*\*\s*:\s*environ (\d+) min", first)
    assert start and f"demande environ {start[1]} minutes" in same_spaces(TEXT)


def test_every_misconception_the_course_names_is_in_the_guide() -> None:
    kinds = set(re.findall(r'Misconception\("(\w+)"', MISCONCEPTIONS.read_text(encoding="utf-8")))
    assert kinds == {"definitions", "before", "separated", "invented", "dropped"}
    for kind in kinds:
        assert f"| **{kind}** :" in same_spaces(TEXT), f"l’idée reçue « {kind} » manque au guide"


def test_the_guide_is_linked_from_the_readme_and_the_annex() -> None:
    assert "](docs/guide-enseignant.md)" in README.read_text(encoding="utf-8")
    assert any("](../docs/guide-enseignant.md)" in text for text in markdown(read(ANNEX)))


def test_the_guide_has_three_session_plans_and_four_ways_to_run() -> None:
    titles = re.findall(r"^### (.+)$", TEXT, re.M)
    for plan in ("Une séance de 2 heures", "Trois séances d’une heure", "Une journée entière"):
        assert any(same_spaces(t).startswith(plan) for t in titles), plan
    for way in ("Binder", "Le site statique", "Un JupyterHub", "Hors ligne, sur une clé USB"):
        assert any(same_spaces(t).startswith(way) for t in titles), way
    assert "python -m harness_lib lien-hub" in TEXT and "python -m harness_lib classe" in TEXT


def test_the_guide_links_lead_to_files_and_follow_french_typography() -> None:
    for target in re.findall(r"\]\(([^)\s]+)\)", TEXT):
        if not re.match(r"[a-z]+:", target):
            assert (GUIDE.parent / target.split("#")[0]).exists(), target
    assert problems(TEXT) == []
