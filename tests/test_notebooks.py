"""Structure of the course notebooks, read as files: no kernel, fast.

nbval runs the notebooks (`python -m pytest --nbval-lax notebooks/`); this module
checks what a run cannot see: that each notebook is committed clean (no outputs,
no widget state, unique cell ids), written in French, built on harness_lib
rather than on pasted library code, closed by a recap, and that every Mermaid
diagram in its Markdown parses, the chapter's ones word for word. It also checks
that the start page's map covers every notebook and every section of the chapter.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import nbformat
import pytest

from harness_lib.course.diagram import DiagramError
from harness_lib.course.mermaid import CHAPTER, chapter_diagram, chapter_source, parse

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
START = NOTEBOOKS / "00_bienvenue.ipynb"

# The course, in reading order (README.md, « Le cours »).
COURSE = (
    "00_bienvenue.ipynb", "01_deux_tours.ipynb", "02_deux_regles.ipynb",
    "03_erreur_observation.ipynb", "04_boucle_complete.ipynb", "05_conditions_arret.ipynb",
    "06_react.ipynb", "07_dans_le_code.ipynb", "08_ecrire_la_boucle.ipynb",
)
# The chapter's section titles, with its typographic apostrophe (’, U+2019).
SECTIONS = (
    "Deux tours de function calling", "Les deux règles de la boucle",
    "Une erreur est aussi une observation", "La boucle complète", "Conditions d\u2019arrêt",
    "ReAct", "Dans le code du mini-harness",
)
MAX_DEF_LINES = 5  # a longer def/class in a cell is library code that belongs in harness_lib
FRENCH_WORDS = {"le", "la", "les", "des", "une", "est", "vous", "pour", "dans", "que", "qui"}
FENCE = re.compile(r"^```mermaid[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=nbformat.NO_CONVERT)


def markdown(nb: nbformat.NotebookNode) -> list[str]:
    return [cell.source for cell in nb.cells if cell.cell_type == "markdown"]


def code(nb: nbformat.NotebookNode) -> list[str]:
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


def python_only(source: str) -> str:
    """A cell without its IPython-only lines (%magic, !shell), so that ast can read it."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())


def fences(nb: nbformat.NotebookNode) -> list[str]:
    return [body for text in markdown(nb) for body in FENCE.findall(text)]


def headings(nb: nbformat.NotebookNode) -> list[str]:
    return [line.lstrip("#").strip() for text in markdown(nb) for line in text.splitlines()
            if re.match(r"#{1,6}\s", line)]


def test_the_course_has_notebooks() -> None:
    assert PATHS, f"aucun notebook dans {NOTEBOOKS}"
    assert START in PATHS, "la page d'accueil 00_bienvenue.ipynb manque"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
class TestEachNotebook:
    def test_valid_nbformat_4_5_with_unique_ids(self, path: Path) -> None:
        nb = read(path)
        nbformat.validate(nb)
        assert (nb.nbformat, nb.nbformat_minor) >= (4, 5), "nbformat 4.5 attendu (ids de cellule)"
        # Read the raw JSON: nbformat.read silently renames duplicate ids.
        ids = [cell.get("id") for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]]
        assert all(ids), "chaque cellule doit avoir un id"
        assert len(set(ids)) == len(ids), "ids de cellule en double"
        assert nb.metadata.get("kernelspec", {}).get("name") == "python3"

    def test_committed_without_outputs_nor_widget_state(self, path: Path) -> None:
        nb = read(path)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [], f"cellule {cell.id} : sorties à effacer"
                assert cell.execution_count is None, f"cellule {cell.id} : execution_count"
            assert "widgets" not in cell.get("metadata", {})
        assert "widgets" not in nb.metadata, "état des widgets enregistré dans le notebook"

    def test_written_in_french(self, path: Path) -> None:
        words = re.findall(r"\w+", " ".join(markdown(read(path))).lower())
        assert len(words) >= 100, "trop peu de texte pour un notebook du cours"
        share = sum(w in FRENCH_WORDS for w in words) / len(words)
        assert share > 0.05, f"le Markdown ne semble pas écrit en français ({share:.0%})"

    def test_first_code_cell_imports_harness_lib(self, path: Path) -> None:
        cells = code(read(path))
        assert cells, "aucune cellule de code"
        tree = ast.parse(python_only(cells[0]))
        modules = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        modules += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert any(m and m.split(".")[0] == "harness_lib" for m in modules), \
            "la première cellule de code doit importer harness_lib"

    def test_no_library_code_pasted(self, path: Path) -> None:
        # A ✏️ cell is the learner's own code (notebook 08: the loop they write), not the library's.
        for source in (s for s in code(read(path)) if not s.startswith("# ✏️")):
            for node in ast.walk(ast.parse(python_only(source))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    size = node.end_lineno - node.lineno + 1
                    assert size <= MAX_DEF_LINES, (
                        f"{node.name} fait {size} lignes : ce code a sa place dans harness_lib")

    def test_ends_with_a_recap(self, path: Path) -> None:
        last = read(path).cells[-1]
        assert last.cell_type == "markdown", "la dernière cellule doit être le récapitulatif"
        first_heading = next((ln for ln in last.source.splitlines() if ln.startswith("#")), "")
        assert "Récapitulatif" in first_heading, "la dernière cellule s'ouvre sur « Récapitulatif »"

    def test_questions_do_not_show_their_answers(self, path: Path) -> None:
        # A Question's code holds `correct=` and the feedback, a Prediction's its reveal:
        # the learner must see the widget, not the answer, before answering.
        for cell in read(path).cells:
            if cell.cell_type == "code" and re.search(r"^\s*(?:Question|Prediction)\(",
                                                      cell.source, re.M):
                hidden = cell.metadata.get("jupyter", {}).get("source_hidden")
                assert hidden, f"cellule {cell.id} : code de la question à masquer (source_hidden)"

    def test_mermaid_fences_parse_and_chapter_ones_are_exact(self, path: Path) -> None:
        titles = {chapter_diagram(name).title: name for name in CHAPTER}
        for body in fences(read(path)):
            try:
                diagram = parse(body)
            except DiagramError as err:
                pytest.fail(f"diagramme Mermaid illisible : {err}\n{body[:300]}")
            if diagram.title in titles:  # a chapter diagram: the chapter's text, exactly
                assert body == chapter_source(titles[diagram.title]), (
                    f"le diagramme « {diagram.title} » diffère du texte du chapitre")


def test_the_start_page_maps_every_notebook_and_section() -> None:
    text = "\n".join(markdown(read(START)))
    for name in sorted({*COURSE, *(p.name for p in PATHS)}):
        assert name in text, f"la carte de la page d'accueil ne mentionne pas {name}"
    for title in SECTIONS:
        assert title in text, f"la carte de la page d'accueil ne mentionne pas « {title} »"


def map_rows() -> list[tuple[str, str]]:
    """(notebook, cell heading) for each row of the start page's map table."""
    rows = []
    for text in markdown(read(START)):
        for line in text.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.lstrip().startswith("|") and len(cells) >= 3:
                found = re.search(r"\d\d_\w+\.ipynb", cells[1])
                if found:
                    heading = re.sub(r"^«\s*(.*?)\s*»$", r"\1", cells[2].replace("**", ""))
                    rows.append((found[0], heading))
    return rows


def test_the_map_points_to_real_headings() -> None:
    rows = map_rows()
    assert len(rows) >= len(SECTIONS), "la carte doit avoir une ligne par section au moins"
    for notebook, heading in rows:
        target = NOTEBOOKS / notebook
        if not target.exists():  # written by another author, maybe not yet
            continue
        assert heading in headings(read(target)), (
            f"la carte renvoie à « {heading} », absent des titres de {notebook}")
