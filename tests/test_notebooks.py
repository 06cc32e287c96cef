"""Structure of the course notebooks, read as files: no kernel, fast.

nbval runs the notebooks (`python -m pytest --nbval-lax notebooks/`); this module
checks what a run cannot see: that each notebook is committed clean (no outputs,
no widget state, unique cell ids), written in French, built on harness_lib
rather than on pasted library code, with short teaching cells (the course's checks in
collapsed « # Vérification : … » cells, ten visible asserts at most), opened by objectives
and a duration that 00 counts the same way, closed by « À retenir » and the next notebook,
and that every Mermaid diagram in its Markdown parses, the chapter's ones word for word.
It also checks that the start page lists every notebook with the lessons' own durations,
that the annex's map covers every notebook and every section of the chapter, and that
relative links lead to real files.
One check needs the notebooks executed (test_french_outputs.py executes each once): that
nothing a page shows above a prediction question states its answer.
"""

from __future__ import annotations

import ast
import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from course_files import ANNEX, NOTEBOOKS, README, START, markdown, read, route, same_spaces

from harness_lib.course.drawing.diagram import DiagramError
from harness_lib.course.drawing.mermaid import CHAPTER, chapter_diagram, chapter_source, parse
from harness_lib.course.exercises.answers import MultipleChoice, Numeric, Open, ShortText, Spec
from harness_lib.course.exercises.questions import PREDICTIONS, QUESTIONS, REFUSALS
from harness_lib.text import french_number

PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))

# The course, in reading order (README.md, « Le cours »).
COURSE = (
    "00_bienvenue.ipynb", "01_deux_tours.ipynb", "02_deux_regles.ipynb",
    "03_erreur_observation.ipynb", "04_boucle_complete.ipynb", "05_conditions_arret.ipynb",
    "06_react.ipynb", "07_dans_le_code.ipynb", "08_ecrire_la_boucle.ipynb",
    "09_evaluation.ipynb",
)
# The chapter's section titles, with its typographic apostrophe (’, U+2019).
SECTIONS = (
    "Deux tours de function calling", "Les deux règles de la boucle",
    "Une erreur est aussi une observation", "La boucle complète", "Conditions d\u2019arrêt",
    "ReAct", "Dans le code du mini-harness",
)
# Exercises are built by id from the bank (harness_lib/course/exercises/questions.py), never inline.
ASKED = re.compile(r"""\bquestion\(\s*["']([\w-]+)["']\s*\)""")
INLINE_EXERCISE = re.compile(r"\b(Question|Prediction|MultipleChoice|Numeric|ShortText|Open|"
                             r"exercise)\(")
SHOWN = re.compile(ASKED.pattern + r"(?!\s*\.)")  # displayed, not question(…).check_answer(…)
CHECKED_EXERCISES = 2  # at least, in each notebook 01-07 (« jouez le rôle du harness » counts)
MAX_DEF_LINES = 5  # a longer def/class in a cell is library code that belongs in harness_lib
# A code cell whose source shows keeps at most this many asserts: the code a learner reads
# stays short. Further checks go to the next cell, a « # Vérification : … » cell whose source
# is collapsed (metadata jupyter.source_hidden): it still runs, and nbval runs it.
MAX_SHOWN_ASSERTS = 3
VERIFICATION = "# Vérification : "
FRENCH_WORDS = {"le", "la", "les", "des", "une", "est", "vous", "pour", "dans", "que", "qui"}
FENCE = re.compile(r"^```mermaid[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s]+)\)")  # a Markdown link's target


def code(nb: nbformat.NotebookNode) -> list[str]:
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


def python_only(source: str) -> str:
    """A cell without its IPython-only lines (%magic, !shell), so that ast can read it."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())


def hidden(cell: nbformat.NotebookNode) -> bool:
    """Whether Lab shows the cell's source collapsed (a question, a verification)."""
    return bool(cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"))


def asserts(source: str) -> int:
    """The assert statements of a cell (not the word in a comment or a string)."""
    return sum(isinstance(node, ast.Assert) for node in ast.walk(ast.parse(python_only(source))))


def fences(nb: nbformat.NotebookNode) -> list[str]:
    return [body for text in markdown(nb) for body in FENCE.findall(text)]


def headings(nb: nbformat.NotebookNode) -> list[str]:
    return [line.lstrip("#").strip() for text in markdown(nb) for line in text.splitlines()
            if re.match(r"#{1,6}\s", line)]


def numbered() -> list[str]:
    """The course's numbered notebooks (00 to the last), those of COURSE and those on disk."""
    return sorted({*COURSE, *(p.name for p in PATHS if p.name != ANNEX.name)})


def same_heading(text: str) -> str:
    """A heading as a reader finds it: French no-break spaces and ’ count as ' ' and '."""
    return " ".join(text.replace("\u2019", "'").split())


def test_the_course_has_notebooks() -> None:
    assert PATHS, f"aucun notebook dans {NOTEBOOKS}"
    assert START in PATHS, "la page d’accueil 00_bienvenue.ipynb manque"
    assert ANNEX in PATHS, "l’annexe annexe_carte_et_cle.ipynb manque"
    assert PATHS[-1] == ANNEX, "l’annexe doit venir après tous les notebooks numérotés"


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
                assert cell.outputs == [], f"cellule {cell.id} : sorties à effacer"
                assert cell.execution_count is None, f"cellule {cell.id} : execution_count"
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
                        f"{node.name} fait {size} lignes : ce code a sa place dans harness_lib")

    def test_teaching_cells_stay_short_and_their_checks_are_collapsed(self, path: Path) -> None:
        for cell in read(path).cells:
            if cell.cell_type != "code":
                continue
            if cell.source.startswith(VERIFICATION.rstrip()):
                assert hidden(cell), f"cellule {cell.id} : une vérification se replie"
                assert asserts(cell.source), f"cellule {cell.id} : une vérification sans assert"
            elif not hidden(cell):
                count = asserts(cell.source)
                assert count <= MAX_SHOWN_ASSERTS, (
                    f"cellule {cell.id} : {count} assert visibles ; au-delà de "
                    f"{MAX_SHOWN_ASSERTS}, mettez-les dans la cellule suivante, "
                    f"« {VERIFICATION}… », repliée")

    def test_question_cells_are_not_collapsed(self, path: Path) -> None:
        """JupyterLab's ↑ ↓ j k in command mode skip a cell whose source is collapsed
        (NotebookActions.selectBelow: `inputHidden`): a question stays on the keyboard's
        way (docs/accessibility.md; tests/test_accessibility.py presses ↓ in Lab)."""
        folded = [cell.id for cell in read(path).cells if cell.cell_type == "code"
                  and SHOWN.search(cell.source) and hidden(cell)]
        assert folded == [], f"questions repliées, que ↓ saute dans JupyterLab : {folded}"

    def test_ends_with_a_recap(self, path: Path) -> None:
        last = read(path).cells[-1]
        assert last.cell_type == "markdown", "la dernière cellule doit être le récapitulatif"
        first_heading = next((ln for ln in last.source.splitlines() if ln.startswith("#")), "")
        assert "À retenir" in first_heading or "Récapitulatif" in first_heading, \
            "la dernière cellule s’ouvre sur « À retenir »"

    def test_question_cells_show_no_answer(self, path: Path) -> None:
        # Lab previews a collapsed cell's first line: a question built in the cell, with its
        # `correct=` index or its feedback, gave its answer away. The bank keeps them out.
        for cell in read(path).cells:
            if cell.cell_type != "code":
                continue
            built = INLINE_EXERCISE.search(cell.source)
            assert not built, (f"cellule {cell.id} : {built[1]}(...) écrit la réponse dans la "
                               "cellule ; mettez la question dans course/exercises/questions.py, "
                               "puis question(\"id\")")
            for name in SHOWN.findall(cell.source):  # not the checks, run once it is answered
                shown = [a for a in answer_texts(QUESTIONS[name]) if written(a, cell.source)]
                assert not shown, f"cellule {cell.id} : la réponse se lit dans le code ({shown})"

    def test_mermaid_fences_parse_and_chapter_ones_are_exact(self, path: Path) -> None:
        titles = {chapter_diagram(name).title: name for name in CHAPTER}
        for body in fences(read(path)):
            try:
                diagram = parse(body)
            except DiagramError as err:
                pytest.fail(f"diagramme Mermaid illisible : {err}\n{body[:300]}")
            if diagram.title in titles:  # a chapter diagram: the chapter's text, exactly
                assert body == chapter_source(titles[diagram.title]), (
                    f"le diagramme « {diagram.title} » diffère du texte du chapitre")


# --- Shape of a lesson (01-08): what you will be able to do, how long, what to keep, what next.
LESSONS = COURSE[1:]
DURATION = re.compile(r"^\*\*Durée\*\*\s*:\s*environ (\d+) min "
                      r"\(parcours express\s*:\s*(\d+) min\)\s*$", re.M)
OBJECTIVES = "**À la fin, vous saurez :**"
NEXT = re.compile(r"^Suite\s*:\s*\[(\d\d_\w+\.ipynb)\]\((\d\d_\w+\.ipynb)\)\s*$")
EXPRESS = re.compile(r"⏩\s*\**Parcours express")
BULLET = re.compile(r"^\s*-\s+\S")


def duration(nb: nbformat.NotebookNode) -> tuple[int, int]:
    """(full, express) minutes, as the notebook's first Markdown cell states them."""
    found = DURATION.search(same_spaces(markdown(nb)[0]))
    assert found, "la première cellule Markdown dit « **Durée** : environ N min (parcours " \
                  "express : M min) »"
    return int(found[1]), int(found[2])


def objectives(nb: nbformat.NotebookNode) -> list[str]:
    lines = same_spaces(markdown(nb)[0]).splitlines()
    assert same_spaces(OBJECTIVES) in lines, f"la première cellule n’a pas la ligne {OBJECTIVES}"
    after = [ln for ln in lines[lines.index(same_spaces(OBJECTIVES)) + 1:] if ln.strip()]
    return [ln for ln in after[:next((i for i, ln in enumerate(after) if not BULLET.match(ln)),
                                     len(after))]]


# How 00 says durations are counted (« Comment ces durées sont comptées »).
WORDS_PER_MINUTE, CODE, PLAYER, QUESTION, EXERCISE = 150, 1.0, 3.0, 1.5, 5.0


def cell_minutes(cell: nbformat.NotebookNode) -> float:
    source = cell.source
    if cell.cell_type == "markdown":
        prose = re.sub(r"```.*?```", "", source, flags=re.S)
        return len(re.findall(r"\w+", prose)) / WORDS_PER_MINUTE
    if asked := len(re.findall(r"\bquestion\(", source)):
        return QUESTION * asked
    if source.startswith((VERIFICATION.rstrip(), "# Corrigé")):
        return 0.0
    if "✏️" in source or "harness_exercise()" in source:
        return EXERCISE
    return PLAYER if re.search(r"\b(?:Player|run_live)\(", source) else CODE


def express_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The first cell, the imports, and every section marked « ⏩ Parcours express » (a
    marked Markdown cell up to the next heading that is not marked)."""
    first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    kept, on = [], False
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and re.search(r"^#{1,6}\s", cell.source, re.M):
            on = EXPRESS.search(cell.source) is not None
        if on or i in (0, first_code):
            kept.append(cell)
    return kept


def estimate(nb: nbformat.NotebookNode) -> tuple[float, float]:
    return (sum(map(cell_minutes, nb.cells)), sum(map(cell_minutes, express_cells(nb))))


@pytest.mark.parametrize("name", LESSONS)
def test_each_lesson_opens_with_objectives_and_a_duration(name: str) -> None:
    nb = read(NOTEBOOKS / name)
    full, express = duration(nb)
    assert 0 < express < full
    assert 2 <= len(objectives(nb)) <= 4, "deux à quatre objectifs"
    assert any(EXPRESS.search(text) for text in markdown(nb)), \
        "le parcours express passe par chaque notebook : une section marquée " \
        "« ⏩ Parcours express »"


@pytest.mark.parametrize("name", LESSONS)
def test_each_duration_is_the_one_00_says_how_to_count(name: str) -> None:
    nb = read(NOTEBOOKS / name)
    paths = ("complet", "express")
    for stated, counted, what in zip(duration(nb), estimate(nb), paths, strict=True):
        assert abs(stated - counted) <= max(5, 0.2 * counted), (
            f"{name} : {stated} min annoncées pour le parcours {what}, {counted:.0f} min "
            "comptées comme le dit 00")


@pytest.mark.parametrize("name", LESSONS)
def test_each_lesson_closes_with_what_to_keep_and_the_next(name: str) -> None:
    last = read(NOTEBOOKS / name).cells[-1]
    assert last.cell_type == "markdown" and last.source.startswith("## À retenir")
    bullets = [ln for ln in last.source.splitlines() if BULLET.match(ln)]
    assert 3 <= len(bullets) <= 5, f"« À retenir » en 3 à 5 points, pas {len(bullets)}"
    if name == LESSONS[-1]:
        return
    following = COURSE[COURSE.index(name) + 1]
    found = NEXT.match(same_spaces(last.source.strip().splitlines()[-1]))
    assert found and found[1] == found[2] == following, f"la dernière ligne : Suite : [{following}]"


@pytest.mark.parametrize("name", LESSONS)
def test_the_express_path_runs_alone(name: str) -> None:
    """00 says: the imports, then the sections marked « ⏩ Parcours express », the others
    skipped. Run that way (mock mode), no cell fails: a marked section needs nothing that
    only an unmarked one defines."""
    import os

    import nbclient

    nb = read(NOTEBOOKS / name)
    nb.cells = express_cells(nb)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENROUTER_API_KEY",
                                                             "HARNESS_MODEL")}
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=300,
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute(env=env)  # raises CellExecutionError, with the cell, on the first failure


def test_the_start_page_says_what_the_chapter_is_and_times_the_route() -> None:
    text = same_spaces("\n".join(markdown(read(START))))
    assert same_spaces("« La boucle agentique »") in text and "cours sur les agents de code" in text
    rows = route()
    assert list(rows) == list(LESSONS)
    for name, said in rows.items():
        assert said == duration(read(NOTEBOOKS / name)), \
            f"00 et {name} ne donnent pas la même durée"
    total = re.search(r"environ (\d+) min \(.*?\) pour le parcours complet, (\d+) min pour le "
                      r"parcours express", text)
    assert total, "00 donne la durée totale des deux parcours"
    assert int(total[1]) == sum(f for f, _ in rows.values())
    assert int(total[2]) == sum(x for _, x in rows.values())
    assert 75 <= int(total[2]) <= 105, "le parcours express dure environ 90 minutes"


def test_the_course_shows_at_most_ten_asserts() -> None:
    """The learner reads the lesson; the course's own checks run in collapsed cells."""
    shown = {path.name: sum(asserts(c.source) for c in read(path).cells
                            if c.cell_type == "code" and not hidden(c)) for path in PATHS}
    assert sum(shown.values()) <= 10, shown


# --- False claims the issue found, now absent: in the notebooks, in what they print, in the
# notes of every player and in the harness's own texts.
FALSE_CLAIMS = {
    "quatre endroits": "le chapitre dit « Trois endroits suffisent pour la lire »",
    "le chapitre dit 3": "le chapitre ne donne pas de nombre d’échecs : 3 est le choix du harness",
    "arrête la boucle après 3 échecs": "le chapitre dit « échecs répétés », sans nombre",
    "y pèse le plus lourd": "le prompt système (1 200) pèse plus que le résultat (800)",
    "affirmation du cours est vérifiée": "toutes ne le sont pas par un assert",
    "ne connaîtra le résultat": "la note donnait la réponse de la question de l’étape 5",
    "la ligne 30": "une ligne du corrigé, que l’apprenant ne voit pas",
    "tournent avec vos droits": "faux dans le navigateur, où l’onglet est le bac à sable",
    "demo missing-call fonctionne aussi": "« !python » ne fonctionne pas dans le navigateur",
    "montre bien le fichier": "faux là où aucun bac à sable ne démarre",
    "compris (RULE 1)": "« règle 1 » dans une phrase française",
    "demande(s)": "un pluriel accordé, pas « (s) »",
    "Au harness de les exécuter, puis d’ajouter à messages[] ce message assistant et un message "
    "tool par id.</p><table>": "l’accord se fait sur le nombre d’outils demandés",
}


def _claims(where: str, text: str) -> list[str]:
    text = same_spaces(text)
    return [f"{where} : « {claim} » ({why})" for claim, why in FALSE_CLAIMS.items()
            if same_spaces(claim) in text]


def test_no_false_claim_in_the_notebooks_nor_in_what_they_print() -> None:
    from executed_notebooks import executed, texts

    found = []
    for path in PATHS:
        found += [c for cell in read(path).cells for c in _claims(path.name, cell.source)]
        found += [c for where, text in texts(executed(path.name))
                  for c in _claims(f"{path.name}, {where}", text)]
    assert not found, "\n".join(found)


def test_no_false_claim_in_the_players_nor_in_the_harness_texts() -> None:
    import course_players

    from harness_lib.course.player.state import state

    found = []
    for title, build in course_players.PLAYERS.items():
        diagram = build()
        for k in range(len(diagram.steps) + 1):
            found += _claims(f"{title}, étape {k}", state(diagram, k).note)
    for source in sorted((NOTEBOOKS.parent / "harness_lib").rglob("*.py")):
        found += _claims(str(source.relative_to(NOTEBOOKS.parent)), source.read_text("utf-8"))
    assert not found, "\n".join(found)


SENTENCE = re.compile(r"(?<=[.!?»])\s+(?=[A-ZÀ-ÝÉ«])")


def test_no_player_says_the_same_sentence_twice() -> None:
    import course_players

    from harness_lib.course.player.state import state

    for title, build in course_players.PLAYERS.items():
        diagram, said = build(), {}
        for k in range(len(diagram.steps) + 1):
            for line in state(diagram, k).note.split("\n"):
                for sentence in SENTENCE.split(line):
                    if len(sentence) >= 25:
                        said.setdefault(sentence, []).append(k)
        again = {s: steps for s, steps in said.items() if len(steps) > 1}
        assert not again, f"{title} : {again}"


def test_messages_now_lists_no_tool_definition() -> None:
    """01 says the definitions are in none of the five messages: « messages[] maintenant »
    shows them beside the list, not as one of its rows."""
    from harness_lib.course.player.known import _now_view

    now = _now_view(chapter_diagram("deux_tours"), 5)
    assert ">tools<" not in now and "À côté de messages[]" in same_spaces(now)


def test_the_seventh_notebooks_questions_do_not_name_the_incident() -> None:
    for name, spec in QUESTIONS.items():
        if name.startswith("07-"):
            prompt = same_spaces(str(spec.prompt))
            assert "sans demande enregistrée" not in prompt and "demande sans résultat" not in \
                prompt.lower(), f"{name} nomme l’incident dans sa question"


def answer_texts(spec: Spec) -> list[str]:
    """How a question's answer could be written in a cell's source."""
    if isinstance(spec, MultipleChoice):
        return [spec.choices[spec.correct], f"correct={spec.correct}", *spec.feedback]
    if isinstance(spec, Numeric):
        value = spec.answer
        return [french_number(value), f"{value:_}", str(int(value)) if value == int(value) else
                str(value)] + ([spec.explanation] if spec.explanation else [])
    if isinstance(spec, ShortText):
        return list(spec.answers)
    assert isinstance(spec, Open)
    return [spec.model_answer]


def written(answer: str, source: str) -> bool:
    """`answer` in `source` as a whole: 4 is not written in question("04-appels")."""
    return re.search(rf"(?<![\w.]){re.escape(answer)}(?![\w])", source) is not None


def test_the_answer_check_sees_an_answer_in_a_cell() -> None:
    """The check above, on cells that do give the answer away (and ones that do not)."""
    def gives(source: str) -> bool:
        return any(written(a, source) for name in SHOWN.findall(source)
                   for a in answer_texts(QUESTIONS[name]))
    assert gives('question("07-normal")  # correct=0')
    assert gives('question("04-facture")  # 234 000'.replace(" 0", "\u202f0"))
    assert gives('question("04-appels")  # 4 appels')
    assert not gives('question("04-appels")') and not gives('question("07-normal")')
    assert not gives('assert question("04-facture").check_answer(234_000)')  # a check
    assert INLINE_EXERCISE.search('Question(f"<b>{Q}</b>", CHOIX, 0, [')


def test_the_assert_count_reads_code_only() -> None:
    source = "assert a\nif b:\n    assert c, 'assert d'  # assert e\n%time x = 1\nprint('assert f')"
    assert asserts(source) == 2
    assert hidden(nbformat.v4.new_code_cell(metadata={"jupyter": {"source_hidden": True}}))
    assert not hidden(nbformat.v4.new_code_cell())


@pytest.mark.parametrize("path", [p for p in PATHS if p.name[:2] in
                                  ("01", "02", "03", "04", "05", "06", "07")],
                         ids=lambda p: p.name)
def test_each_notebook_has_checked_exercises(path: Path) -> None:
    checked = 0
    for source in code(read(path)):
        checked += sum(not isinstance(QUESTIONS[name], Open) for name in ASKED.findall(source))
        checked += source.count("harness_exercise()")
    assert checked >= CHECKED_EXERCISES, f"{path.name} : {checked} exercice(s) vérifié(s)"


def test_the_start_page_lists_every_notebook_with_its_time_and_links_the_annex() -> None:
    text = "\n".join(markdown(read(START)))
    rows = [line for line in text.splitlines() if line.lstrip().startswith("|")]
    for name in numbered()[1:]:  # 00 is the start page itself
        row = next((r for r in rows if f"]({name})" in r), "")
        assert row, f"le parcours de la page d’accueil ne mène pas à {name}"
        assert re.search(r"\d+\s*min", row), f"le parcours ne donne pas la durée de {name}"
    assert f"]({ANNEX.name})" in text, "la page d’accueil doit mener à l’annexe"


def test_the_annex_maps_every_notebook_and_section() -> None:
    text = "\n".join(markdown(read(ANNEX)))
    for name in numbered():
        assert name in text, f"la carte de l’annexe ne mentionne pas {name}"
    for title in SECTIONS:
        assert title in text, f"la carte de l’annexe ne mentionne pas « {title} »"


def test_the_readme_lists_every_notebook() -> None:
    readme = README.read_text(encoding="utf-8")
    for path in PATHS:
        assert f"`{path.name}`" in readme, f"le tableau « Le cours » de README.md omet {path.name}"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_relative_links_lead_to_files(path: Path) -> None:
    for text in markdown(read(path)):
        for target in LINK.findall(re.sub(r"```.*?```|`[^`\n]*`", "", text, flags=re.S)):
            if re.match(r"[a-z][a-z+.-]*:|#", target):  # https:, mailto:, an anchor
                continue
            assert (path.parent / target.split("#")[0]).exists(), \
                f"{path.name} : le lien {target} ne mène à aucun fichier"


def map_rows() -> list[tuple[str, str]]:
    """(notebook, cell heading) for each row of the annex's map table."""
    rows = []
    for text in markdown(read(ANNEX)):
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
        found = [same_heading(h) for h in headings(read(target))]
        assert same_heading(heading) in found, (
            f"la carte renvoie à « {heading} », absent des titres de {notebook}")


# --- Predictions before answers: nothing the page shows above a prediction states its answer.
NUMBER_WORDS = {2: "deux", 3: "trois", 4: "quatre", 5: "cinq", 15: "quinze", 32: "trente-deux"}


def reveals(name: str) -> list[re.Pattern[str]]:
    """What would state the answer of prediction `name`: its words, its number and unit."""
    spec = QUESTIONS[name]
    if isinstance(spec, MultipleChoice):
        right = spec.choices[spec.correct].rstrip(".")
        phrases = [right, *([right.split(" : ", 1)[1]] if " : " in right else [])]
        words = [w for label, w in REFUSALS if label.rstrip(".") == right and w]  # the API's
        return [re.compile(r"\s+".join(map(re.escape, p.split())), re.I)  # any space: « a : b »
                for p in phrases + words]
    assert isinstance(spec, Numeric), name
    n, unit = int(spec.answer), spec.unit or "x"
    said = rf"(?:{n}|{NUMBER_WORDS.get(n, n)})"
    return [re.compile(rf"(?<![\w,]){said}\**\s+{unit}\b", re.I),  # « quatre appels »
            re.compile(rf"{unit.rstrip('s')}s?\b[^.\n]{{0,25}}:\s*{n}(?![\w,])", re.I)]


def shown_around(path: Path, index: int) -> list[tuple[str, str]]:
    """(where, text) a learner sees before answering the question of cell `index`: every
    cell above (Markdown, and the outputs of executed code cells, widgets included, code
    too), and the Markdown right below it. A collapsed <details> solution is not shown."""
    from executed_notebooks import executed

    nb = executed(path.name)
    state = nb.metadata.get("widgets", {}).get(
        "application/vnd.jupyter.widget-state+json", {}).get("state", {})
    below = []
    for cell in nb.cells[index + 1:]:
        if cell.cell_type != "markdown":
            break
        below.append(cell)
    shown = []
    for cell in [*nb.cells[:index], *below]:
        if cell.cell_type == "markdown":
            shown.append((f"Markdown {cell.id}", re.sub(r"<details>.*?</details>", "",
                                                         cell.source, flags=re.S)))
        for output in cell.get("outputs", []):
            shown += [(f"sortie de {cell.id}", text) for text in _output_text(output, state)]
    return shown


def _output_text(output: dict, state: dict) -> list[str]:
    """Everything an output shows, as text (tags dropped, code kept)."""
    if output.get("output_type") == "stream":
        return ["".join(output["text"])]
    data = output.get("data") or {}
    view = data.get("application/vnd.jupyter.widget-view+json")
    if view:
        return list(_widget_text(view["model_id"], state, set()))
    return [_untagged("".join(v) if isinstance(v, list) else str(v)) for k, v in data.items()
            if k in ("text/html", "text/plain", "text/markdown", "text/vnd.mermaid")]


def _widget_text(model_id: str, state: dict, seen: set[str]) -> Iterator[str]:
    """The texts of a widget and of its children; a question's choices are not answers."""
    if model_id in seen or model_id not in state:
        return
    seen.add(model_id)
    for trait, value in state[model_id].get("state", {}).items():
        if trait == "outputs":
            for output in value:
                yield from _output_text(output, state)
        elif trait not in ("choices", "_dom_classes", "layout", "style"):
            for text in _all_strings(value):
                if text.startswith("IPY_MODEL_"):
                    yield from _widget_text(text[len("IPY_MODEL_"):], state, seen)
                else:
                    yield _untagged(text)


def _all_strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, dict)):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _all_strings(item)


def _untagged(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def prediction_cells() -> list[tuple[Path, int, str]]:
    found = []
    for path in PATHS:
        for i, cell in enumerate(read(path).cells):
            found += [(path, i, name) for name in SHOWN.findall(cell.source)
                      if cell.cell_type == "code" and name in PREDICTIONS]
    return found


def test_every_prediction_is_asked_and_every_vote_is_a_prediction() -> None:
    asked = {name for _, _, name in prediction_cells()}
    assert asked == PREDICTIONS
    votes = {name for name, spec in QUESTIONS.items() if "Votez avant" in str(spec.prompt)}
    assert votes <= PREDICTIONS


@pytest.mark.parametrize(("path", "index", "name"), prediction_cells(),
                         ids=[name for _, _, name in prediction_cells()])
def test_nothing_above_a_prediction_states_its_answer(path: Path, index: int, name: str) -> None:
    for where, text in shown_around(path, index):
        for pattern in reveals(name):
            found = pattern.search(text)
            assert not found, f"{name} : {where} donne la réponse avant la question ({found[0]!r})"


def test_the_reveal_check_sees_an_answer() -> None:
    """The patterns catch what 03 and 04 used to show before their questions."""
    def caught(name: str, text: str) -> bool:
        return any(p.search(text) for p in reveals(name))

    assert caught("04-appels", "Appels au modèle : 4") and caught("03-appels", "Il faut "
                                                                  "**quatre** appels au modèle")
    assert caught("02-refus-2", "obtenez une demande sans résultat : `…did not have response "
                  "messages`")
    assert not caught("04-appels", "Appels au modèle : 14") and not caught("03-appels", "4 tokens")
