"""French typography in what a learner reads: the notebooks' prose (rules in typography.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typography import NBSP, NNBSP, fix, markdown_cells, problems

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_prose_follows_french_typography(path: Path) -> None:
    found = [f"{cell} : {problem}" for cell, text in markdown_cells(path)
             for problem in problems(text)]
    assert not found, (f"{len(found)} faute(s), corrigez avec "
                       f"`python tests/typography.py --fix {path}` :\n" + "\n".join(found[:20]))


@pytest.mark.parametrize(("text", "expected"), [
    ("Que sait-il ? Rien : il attend ; « voilà » !",
     f"Que sait-il{NNBSP}? Rien{NBSP}: il attend{NNBSP}; «{NBSP}voilà{NBSP}»{NNBSP}!"),
    ("l'outil et l'**étape**", "l’outil et l’**étape**"),
    ("`run()` : la boucle", f"`run()`{NBSP}: la boucle"),  # a colon after code is prose
    ("Voir `a ; b` et https://x.org/?q=1 à 14:30", "Voir `a ; b` et https://x.org/?q=1 à 14:30"),
    ("```python\nx = {'a': 1}\n```", "```python\nx = {'a': 1}\n```"),
    ("Arrêt propre: maximum de 15 tours dépassé.", "Arrêt propre: maximum de 15 tours dépassé."),
])
def test_the_fixer_puts_the_spaces_and_leaves_code_alone(text: str, expected: str) -> None:
    assert fix(text) == expected
    assert problems(fix(text)) == [] and fix(fix(text)) == fix(text)


def test_the_checker_finds_each_kind_of_fault() -> None:
    assert len(problems("Quoi ? Rien: « non » ; l'outil")) == 6
