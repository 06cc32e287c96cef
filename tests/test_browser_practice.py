"""The hands-on cells in a real browser: a learner edits, runs, and sees the effect.

In JupyterLab (headless Chromium, tests/browsing/'s fixtures: this module's folder in the
session's shared Lab): in notebook 02 the learner breaks RULE 2 in the ✏️ messages[] cell
and sees the API's refusal, the conversation drawn with the refused message framed and its
field named, and the target « une demande sans résultat » ticked; in notebook 08 the
learner fills the skeleton of their loop, first without RULE 1 (the grader's French
explanation), then right (5 / 5), and unfolds « Voir le corrigé »; in notebook 05 the
approval panel shows each action in full and asks for each one. Screenshots of each cell, at
1280 and 800 px wide, go to tests/artifacts/practice-*.png.
"""

from __future__ import annotations

import base64
import re
from typing import Any
from urllib.parse import unquote

import pytest
from browsing import ARTIFACTS
from browsing.chromium import VIEWPORT
from browsing.drawings import FIGURE, FIGURE_DIAGRAM
from browsing.notebook import IDLE, SCROLLER, Notebook, failures, kernel_errors, run_all
from hand_played import play

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")
pytestmark = pytest.mark.browser

EDITABLE = "# ✏️"
# The source of a Mermaid <img>: send()'s diagram, drawn by the course (player/figure.py),
# is an SVG data URL, as Lab's own drawings are.
SVG_TEXT = """(img) => img.src"""


def cell_index(cells: list[dict[str, Any]], start: str, contains: str = "") -> int:
    """The index of the code cell whose source starts with `start` (and holds `contains`)."""
    return next(c["index"] for c in cells
                if c["source"].startswith(start) and contains in c["source"])


def type_into(notebook: Notebook, index: int, source: str) -> None:
    """Replace the cell's text as a learner would (select all, type), then Maj+Entrée."""
    notebook.cell(index).locator(".cm-content").click()
    notebook.page.keyboard.press("Control+a")
    notebook.page.keyboard.insert_text(source)  # no key events: no auto-closed brackets
    notebook.page.keyboard.press("Shift+Enter")
    notebook.page.wait_for_function(IDLE)


def svg(image: Any) -> str:
    """The text of a drawn diagram (its <img> holds an SVG data URL)."""
    src = image.evaluate(SVG_TEXT)
    head, _, body = src.partition(",")
    return base64.b64decode(body).decode("utf-8") if "base64" in head else unquote(body)


def shots(notebook: Notebook, element: Any, name: str) -> None:
    """The element at 1280 and at 800 px wide: tests/artifacts/practice-NAME-WIDTH.png.

    Lab lays out only what is in view: the element is scrolled to the top first, measured,
    the window made taller than it, and that part of the page photographed.
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = notebook.page
    chrome = page.evaluate(f"() => window.innerHeight - {SCROLLER}.clientHeight")  # menus, bars
    for width in (1280, 800):
        resize(page, width, VIEWPORT["height"], chrome)
        to_top(element)
        height = int(min(element.bounding_box()["height"] + chrome + 100, 8000))
        resize(page, width, height, chrome)
        to_top(element)
        box = element.bounding_box()
        clip = {"x": box["x"], "y": box["y"], "width": box["width"],
                "height": min(box["height"], height - box["y"])}
        page.screenshot(path=str(ARTIFACTS / f"practice-{name}-{width}.png"), clip=clip)
    resize(page, VIEWPORT["width"], VIEWPORT["height"], chrome)


# Scrolled to the top again until it stays there: in Lab's default windowing mode the cells
# above get their real height only once drawn, and push the element down (seen in CI: the
# element below the window, and an empty photograph).
SETTLE = """node => new Promise(done => {
  let last = null, tries = 0;
  const frame = (then) => requestAnimationFrame(() => requestAnimationFrame(then));
  const again = () => {
    node.scrollIntoView({block: 'start'});
    frame(() => {
      const top = Math.round(node.getBoundingClientRect().top);
      if (top === last || ++tries > 50) done(top); else { last = top; again(); }
    });
  };
  again();
})"""


def to_top(element: Any) -> None:
    """Scroll the element to the top of the notebook, and wait until it is drawn there."""
    top = element.evaluate(SETTLE)
    assert 0 <= top < element.page.viewport_size["height"], f"élément hors de la vue : {top}"
    element.page.wait_for_function(IDLE)


def resize(page: Any, width: int, height: int, chrome: int) -> None:
    """A new window size, once Lab has laid the notebook out again to fill it."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(f"() => {SCROLLER}.clientHeight >= {height - chrome - 2} && "
                           f"{SCROLLER}.clientWidth <= {width}")


def test_02_breaking_rule_2_marks_the_message_and_ticks_a_target(open_notebook: Any) -> None:
    notebook = open_notebook("notebooks/02_deux_regles.ipynb")
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    index = cell_index(cells, EDITABLE, "send(messages)")
    source = next(c["source"] for c in cells if c["index"] == index)
    tool_line = next(line for line in source.splitlines() if '"role": "tool"' in line)
    type_into(notebook, index, source.replace(tool_line + "\n", ""))  # RULE 2 broken
    cell = notebook.cell(index)
    sync_api.expect(cell).to_contain_text("did not have response messages: call_1")
    sync_api.expect(cell).to_contain_text("HTTP 400")
    # The list under the provider's text: message 2 written out, marked, its field named.
    sync_api.expect(cell.locator("mark").first).to_contain_text('"role": "assistant"')
    sync_api.expect(cell).to_contain_text("[2] ✘ messages[2].role")
    # The diagram: drawn (not refused by Mermaid), message 2 framed with its note.
    image = cell.locator(FIGURE_DIAGRAM)
    sync_api.expect(image).to_have_count(1)
    assert cell.locator(f"{FIGURE} .harness-refused").count() == 0
    drawn = svg(image)
    assert "messages[2].role" in drawn and "[2] assistant" in drawn
    assert re.search(r"rgba\(229, ?57, ?53", drawn), "le message refusé n'est pas encadré"
    # The target ticks itself, in the ✏️ cell's own view of the list.
    ticked = cell.locator(".harness-targets li", has_text="did not have response messages")
    sync_api.expect(ticked).to_contain_text("✔")
    sync_api.expect(cell.locator(".harness-targets")).to_contain_text("2 / 6 cibles atteintes.")
    shots(notebook, cell, "02-regle-2")
    assert kernel_errors(notebook) == []


MODEL_CALL = "modele.complete(messages, definitions)"
RUN_TOOL = "run_tool(read_call(appel), outils).content"


def fill(source: str, answers: dict[str, str]) -> str:
    """The skeleton with the `...` of each line marked by a key replaced by its answer."""
    lines = source.splitlines()
    for i, line in enumerate(lines):
        for mark, answer in answers.items():
            if mark in line and "..." in line:
                lines[i] = line.replace("...", answer, 1)
    return "\n".join(lines) + "\n"


def test_08_the_learner_writes_the_loop_from_the_skeleton_wrong_then_right(
        open_notebook: Any) -> None:
    notebook = open_notebook("notebooks/08_ecrire_la_boucle.ipynb")
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    index = cell_index(cells, EDITABLE, "def ma_boucle")
    cell = notebook.cell(index)
    grader = cell.locator(".harness-grader")
    # As shipped: the skeleton, graded as not written yet; the rest ran on the corrigé.
    sync_api.expect(grader).to_contain_text("n’est pas encore écrite")
    sync_api.expect(grader).to_contain_text("0 / 5 missions réussies.")
    skeleton = next(c["source"] for c in cells if c["index"] == index)
    filled = fill(skeleton, {"# la limite": "max_tours", "# appeler": MODEL_CALL,
                             "# EXIT": "not reponse.tool_calls", "# exécuter": RUN_TOOL,
                             "# RULE 2": 'messages.append(tool_result(appel["id"], resultat))'})
    wrong = fill(filled, {"# RULE 1": "pass"})
    type_into(notebook, index, wrong)  # RULE 1 forgotten
    sync_api.expect(grader).to_contain_text("0 / 5 missions réussies.")
    sync_api.expect(grader).to_contain_text("Appel 2 refusé par l’API")
    sync_api.expect(grader).to_contain_text("must be a response to a preceeding message")
    sync_api.expect(grader).to_contain_text("RULE 1 manque")
    sync_api.expect(grader).to_contain_text("messages.append(reponse.message)")
    shots(notebook, cell, "08-sans-regle-1")
    right = fill(filled, {"# RULE 1": "messages.append(reponse.message)"})
    type_into(notebook, index, right)
    sync_api.expect(grader).to_contain_text("5 / 5 missions réussies.")
    sync_api.expect(grader).not_to_contain_text("même problème")
    shots(notebook, cell, "08-juste")
    # « Voir le corrigé »: folded in the next cell's output, unfolded by a click.
    solution = notebook.panel.locator(".harness-solution")
    sync_api.expect(solution.locator("pre")).to_be_hidden()
    solution.locator("summary").click()
    sync_api.expect(solution.locator("pre")).to_contain_text("messages.append(reponse.message)")
    assert kernel_errors(notebook) == []


def test_05_approval_shows_and_decides_each_action(open_notebook: Any) -> None:
    notebook = open_notebook("notebooks/05_conditions_arret.ipynb")
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    panel = notebook.panel.locator(".harness-approval")
    sync_api.expect(panel).to_contain_text("Action 1 : validation humaine nécessaire")
    sync_api.expect(panel).to_contain_text("edit_file")
    sync_api.expect(panel).not_to_contain_text("bash")
    shots(notebook, panel, "05-action-1")
    panel.get_by_role("button", name="Autoriser cette action").click()
    # Allowing edit_file did not allow bash: the command is shown, whole, and waits.
    sync_api.expect(panel).to_contain_text("Action 2 : validation humaine nécessaire")
    sync_api.expect(panel).to_contain_text("python test_price.py")
    sync_api.expect(panel).to_contain_text("✔ autorisé : action 1")
    notebook.page.wait_for_function(IDLE)
    shots(notebook, panel, "05-action-2")
    panel.get_by_role("button", name="Refuser cette action").click()
    sync_api.expect(panel).to_contain_text("Vos décisions : edit_file autorisé, bash refusé.")
    sync_api.expect(panel.get_by_role("button", name="Refuser cette action")).to_be_hidden()
    notebook.page.wait_for_function(IDLE)
    shots(notebook, panel, "05-fin")
    assert kernel_errors(notebook) == []


# Each ✏️ cell of 01, 04, 05, 06: the learner's edit changes what the cell shows.
EDITS = [
    ("01_deux_tours.ipynb", "mission = ", 'mission = "Lis notes.txt et résume le projet"',
     "3 appels au modèle"),
    ("04_boucle_complete.ipynb", "mission_essai = ", "mission_essai = PRICE_TASK",
     "['read_file', 'edit_file', 'bash']"),
    ("05_conditions_arret.ipynb", "limites = Limits(max_turns=15",
     "limites = Limits(max_turns=2, max_tokens=None, max_failures=3, model_timeout=120.0,",
     "✔ obtenez l’arrêt max_turns"),
    ("06_react.ipynb", "think = True", "think = False", "dont 0 avec un raisonnement affiché"),
]


@pytest.mark.parametrize(("name", "line", "edited", "seen"), EDITS, ids=[e[0][:2] for e in EDITS])
def test_an_edit_of_the_pencil_cell_changes_what_it_shows(
        open_notebook: Any, name: str, line: str, edited: str, seen: str) -> None:
    notebook = open_notebook(f"notebooks/{name}")
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    index = cell_index(cells, EDITABLE, line)
    cell = notebook.cell(index)
    sync_api.expect(cell).not_to_contain_text(seen)
    if name.startswith("05"):  # its targets: shown once, none reached by the default
        sync_api.expect(notebook.panel.locator(".harness-targets")).to_have_count(1)
        sync_api.expect(cell).to_contain_text("Dernier essai\u00a0: aucune cible atteinte")
    source = next(c["source"] for c in cells if c["index"] == index)
    old = next(li for li in source.splitlines() if li.startswith(line))
    type_into(notebook, index, source.replace(old, edited))
    sync_api.expect(cell).to_contain_text(seen)
    shots(notebook, cell, f"{name[:2]}-crayon")
    assert kernel_errors(notebook) == []


def test_03_the_whole_mission_by_hand_draws_the_learners_conversation(
        open_notebook: Any) -> None:
    notebook = open_notebook("notebooks/03_erreur_observation.ipynb")
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    for tour in (1, 2, 3):  # the tours start empty: the learner writes the three moves
        index = cell_index(cells, f"# ✏️ Tour {tour}")
        ((old, new),) = play(tour).items()
        source = next(c["source"] for c in cells if c["index"] == index)
        type_into(notebook, index, source.replace(old, new))
    last = notebook.cell(cell_index(cells, "# ✏️ Tour 3"))
    sync_api.expect(last).to_contain_text("✔ règle 2 : call_3")
    sync_api.expect(last).to_contain_text("pas de demande d’outil", ignore_case=True)
    drawn = svg(last.locator(FIGURE_DIAGRAM))
    assert all(f"[{i}] " in drawn for i in range(8)), "les huit messages de votre conversation"
    first = notebook.cell(cell_index(cells, "# ✏️ Tour 1"))
    shots(notebook, first, "03-tour-1")
    # After Run All, the learner forgets RULE 1 at turn 1 and runs the cell again: the turn
    # starts over from call 1, the checker names what is missing, the API refuses.
    index = cell_index(cells, "# ✏️ Tour 1")
    ((old, new),) = play(1, rule_1=False).items()
    source = next(c["source"] for c in cells if c["index"] == index)
    type_into(notebook, index, source.replace(old, new))
    sync_api.expect(first).to_contain_text("n’est pas dans messages[]")
    sync_api.expect(first).to_contain_text("preceeding")
    # The misconception named, by the checker and by send(): the assistant message forgotten.
    sync_api.expect(first).to_contain_text("la demande call_1 n’y est pas")
    sync_api.expect(first).to_contain_text("Ce qui s’est sans doute passé")
    sync_api.expect(first).to_contain_text("a été oublié (règle 1")
    sync_api.expect(first).not_to_contain_text("Traceback")
    shots(notebook, first, "03-sans-regle-1")
    assert kernel_errors(notebook) == []


def test_07_a_saved_trace_opens_in_the_player_or_says_why(open_notebook: Any) -> None:
    notebook = open_notebook("notebooks/07_dans_le_code.ipynb")
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    picker = notebook.panel.locator(".harness-trace-picker")
    path = picker.locator("input[type=text]")
    path.fill("absente.jsonl")
    picker.get_by_role("button", name="Ouvrir dans le lecteur").click()
    sync_api.expect(picker).to_contain_text("absente.jsonl est introuvable")
    saved = next(c["source"] for c in cells if "ma_trace = Path(" in c["source"])
    assert saved  # the cell that saved a run with `run --trace`
    target = notebook.page.evaluate("""() => {
      const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
      for (let i = 0; i < cells.length; i++) {
        const text = cells.get(i).outputs ? JSON.stringify(cells.get(i).outputs.toJSON()) : '';
        const found = text.match(/Trace enregistrée\\s*:\\s*(\\S+\\.jsonl)/);
        if (found) return found[1];
      }
      return null;
    }""")
    path.fill(target)
    picker.get_by_role("button", name="Ouvrir dans le lecteur").click()
    try:
        sync_api.expect(picker.locator(".harness-player")).to_have_count(1)
    except AssertionError as err:  # what the picker showed instead, and the kernel's errors
        raise AssertionError(f"pas de lecteur pour {target!r} ; le sélecteur montre "
                             f"{picker.inner_text()!r} ; erreurs du noyau : "
                             f"{kernel_errors(notebook)}") from err
    sync_api.expect(picker.locator(".harness-step")).to_contain_text(re.compile(r"étape 0 sur \d+"))
    picker.get_by_role("button", name="Suivante").click()
    sync_api.expect(picker.locator(".harness-step")).to_contain_text(re.compile(r"étape 1 sur \d+"))
    notebook.page.wait_for_function(IDLE)
    shots(notebook, picker, "07-trace")
    assert kernel_errors(notebook) == []
