"""French typography in what a learner reads: the notebooks' prose and the library's French
strings (rules in typography.py)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path
from types import ModuleType

import pytest
import typography
import typography_python
from typography import NBSP, NNBSP, VERBATIM, capitals_after_colon, fix, markdown_cells, problems
from typography_python import fix_python, french_strings, notebook_strings

ROOT = Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
MODULES = sorted((ROOT / "harness_lib").rglob("*.py"))
SCRIPTS = sorted((ROOT / "harness_lib").rglob("*.js"))  # the player, the questions


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_prose_follows_french_typography(path: Path) -> None:
    found = [f"{cell} : {problem}" for cell, text in markdown_cells(path)
             for problem in problems(text)]
    assert not found, (f"{len(found)} faute(s), corrigez avec "
                       f"`python tests/typography.py --fix {path}` :\n" + "\n".join(found[:20]))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_code_strings_follow_french_typography(path: Path) -> None:
    # What the cells print and their asserts' messages: a learner reads those too.
    found = [f"{cell}, ligne {line} : {problem}" for cell, line, text in notebook_strings(path)
             for problem in problems(text) + [f"majuscule après deux-points « {word} »"
                                              for word in capitals_after_colon(text)]]
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


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_library_strings_follow_french_typography(path: Path) -> None:
    found = [f"ligne {first} : {problem}" for first, _, text in french_strings(path)
             for problem in problems(text)]
    found += [f"ligne {first} : majuscule après deux-points « {word} »"
              for first, _, text in french_strings(path) for word in capitals_after_colon(text)]
    assert not found, (f"{len(found)} faute(s), corrigez avec "
                       f"`python tests/typography.py --fix {path}` :\n" + "\n".join(found[:20]))


MODULE = """import re
WARNING = "Attention: l'outil"
STOP = f"Arrêt\u00a0: Le modèle a dépassé {TIMEOUT:g} s"
PATTERN = re.compile(r"(?<=[^\\W\\d_])'(?=\\w) ; la")
SHAPE = 'Une définition s’écrit {"type": "function"}'
ENGLISH = ("Invalid value: 'x'.", "la valeur")
MERMAID = "  accTitle: Vue hub"
CHAPTER = "Arrêt propre: maximum de 15 tours dépassé."
"""


def test_the_library_check_finds_a_new_fault_and_only_that(tmp_path: Path) -> None:
    module = tmp_path / "course_module.py"
    module.write_text(MODULE, encoding="utf-8")
    faulty = {text: problems(text) for _, _, text in french_strings(module)}
    assert len(faulty["Attention: l'outil"]) == 2  # the space before « : », the apostrophe
    assert capitals_after_colon(f"Arrêt{NBSP}: Le modèle a dépassé X s") == ["Le"]
    assert [text for text, found in faulty.items() if found] == ["Attention: l'outil"]
    assert fix_python(module) == 1
    fixed = module.read_text(encoding="utf-8")
    assert f'"Attention{NBSP}: l’outil"' in fixed and "{TIMEOUT:g}" in fixed
    assert fixed.replace(f"Attention{NBSP}: l’outil", "Attention: l'outil") == MODULE
    assert VERBATIM[0] in fixed


@pytest.mark.parametrize(("text", "capitals"), [
    ("Arrêt : Le modèle n’a pas répondu.", ["Le"]),
    ("Arrêt : le modèle ; erreur : HTTP 429", []),  # an acronym keeps its capitals
    ("exportez le texte : JupyterLab le dessine", []),
    ("`x` : `True` et <code>a : B</code>", []),
])
def test_lower_case_after_a_colon_except_names_and_code(text: str, capitals: list[str]) -> None:
    assert capitals_after_colon(fix(text)) == capitals


@pytest.mark.parametrize("module", [typography, typography_python], ids=lambda m: m.__name__)
def test_the_checkers_own_examples_hold(module: ModuleType) -> None:
    assert doctest.testmod(module).failed == 0


def script_strings(path: Path) -> list[str]:
    """The French strings of a browser script (stepper.js, question.js)."""
    strings = re.findall(r'"((?:[^"\\\n]|\\.)*)"', path.read_text(encoding="utf-8"))
    return [text for text in strings if re.search("[éèêàùçôîœ«»’]", text)]  # not CSS


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_script_strings_follow_french_typography(path: Path) -> None:
    assert [p for text in script_strings(path) for p in problems(text)] == []


def test_the_script_check_reads_the_players_strings() -> None:
    assert len(script_strings(ROOT / "harness_lib" / "course" / "player" / "stepper.js")) > 5
