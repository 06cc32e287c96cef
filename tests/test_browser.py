"""The course in a real browser: JupyterLab in headless Chromium runs every notebook.

The session's shared Lab server (tests/browsing/: on 127.0.0.1, a free port, a token;
this module works in its own folder there, a temporary copy of notebooks/ and
harness_lib/, so the committed files are never touched) and one Chromium (Debian's,
driven by Playwright; never `playwright install`) serve the whole module. For each
notebook: open it, run all cells, wait until every code cell has run, then check what
a learner would see: no error (in a cell, or in a widget callback), every Mermaid
diagram drawn, the toggle in mock mode, the API's
« preceeding » refusal where the text announces it, and each `# ✏️` cell that sends
messages[]: edited like a learner would (dropping the assistant message), it must
bring that refusal. Every player, at 1280 and at 800 px: « Suivante », « Précédente »
and the keys (Début, Fin, ←, →) move the diagram and the note, with the controls and
the current arrow in view and the diagram's text above MIN_TEXT_PX; the first one
switches to the hub view and back, and plays while the kernel runs a cell. Every
request that leaves 127.0.0.1 is aborted and recorded; none may be attempted.
Screenshots go to tests/artifacts/ (git-ignored): each notebook whole, and each
player as left after its checks: look at them.

The same server also serves Notebook 7 (the `notebook` package) at /notebooks/<path>:
the eight notebooks run there too, from its Run menu, with the same player checks
(Notebook 7 draws Mermaid only from a Markdown fence, the players' text/markdown).

The players draw their own diagrams (the bundled Mermaid, docs/player.md), and so does
send() (player/figure.py): every send() diagram of a notebook must be a decoded image. A
second Lab, its Mermaid extension disabled, runs notebooks 04 and 03 with the same player
checks (its Markdown blocks stay code); Voilà (its own server) shows a player, a live
run, which step, and a send() diagram; and an `nbconvert --to html` export, opened from
the disk with no network, draws every player's static copy and send()'s.

Two self-tests check the checks on notebooks written here: a broken diagram, a
raised exception and a failing widget callback must be seen; the toggle and a
learner's edit of messages[] must reach send(); a cell that fails and a send() of
garbage, run below a player, must leave the player, the toggle and the kernel usable;
« Lecture » respects prefers-reduced-motion. About 15 minutes here for the eight
notebooks in Lab, 10 more in Notebook 7 (a loaded 2-core machine). Without
/usr/bin/chromium its tests are skipped.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import nbformat
import pytest
from browsing import ARTIFACTS, ROOT
from browsing.chromium import RUN_TIMEOUT_MS, Browser
from browsing.drawings import (
    FIGURE,
    FIGURE_DIAGRAM,
    NOTEBOOKS,
    PLAYER,
    PLAYER_DIAGRAM,
    REFUSED,
    check_figures,
    expected_players,
    mermaid_counts,
    mermaid_fences,
    sends,
    wait_for_diagrams,
    wait_for_drawings,
    wait_for_players,
)
from browsing.labs import LabFolder, lab_of_its_own
from browsing.notebook import (
    CELLS,
    IDLE,
    Notebook,
    failures,
    kernel_errors,
    opening,
    run_all,
    screenshot,
    switch_theme,
)
from browsing.player_checks import (
    check_hub,
    check_play_while_busy,
    check_player,
    check_players,
    check_reduced_motion,
    check_toggle_is_mock,
)
from browsing.players import (
    MOCK_STATUS,
    STATUS,
    STEP,
    TOGGLE,
    button,
    moved,
    player_view,
    readable,
    rewind,
    to_top,
)

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")

pytestmark = pytest.mark.browser

MATHS = "mjx-container, .MathJax"  # a formula typeset by MathJax (Lab's LaTeX)


# ---------------------------------------------------------------- self-tests

@pytest.fixture(scope="module")
def self_tests(lab: LabFolder) -> None:
    """The self-tests' notebooks, in the module's folder of the Lab: selftest/."""
    write_self_tests(lab.root / "selftest")


def write_self_tests(folder: Path) -> None:
    """Two small notebooks whose expected results are known: they test this test."""
    folder.mkdir(parents=True)
    new, md, code = (nbformat.v4.new_notebook, nbformat.v4.new_markdown_cell,
                     nbformat.v4.new_code_cell)
    spec = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    mermaid = new(metadata=spec, cells=[
        md("# Mermaid\n\n```mermaid\nsequenceDiagram\n    accTitle: Deux flèches\n"
           "    U->>H: tâche\n    H->>M: messages[]\n```"),
        code("from IPython.display import display\n"
             "display({'text/vnd.mermaid': 'sequenceDiagram\\n    A->>B: bonjour'}, raw=True)"),
        md("```mermaid\nsequenceDiagram\n    A->>B: un ; casse le diagramme\n```"),
        md("Prix : 0,15 $ en entrée, 0,60 $ en sortie."),  # Lab reads « $ … $ » as maths
        code("import sys\nprint('un avertissement', file=sys.stderr)"),
        code("import ipywidgets\nboom = ipywidgets.Button(description='boum')\n"
             "boom.on_click(lambda _: {}['rappel'])\nboom"),
        code("1 / 0"),
    ])
    widgets = new(metadata=spec, cells=[
        code("from harness_lib.course.player.player import Player\n"
             "from harness_lib.course.playground.sending import send\n"
             "from harness_lib.course.playground.toggle import toggle\ntoggle()"),
        code('Player("deux_tours", interval=0.5)'),
        code(CONVERSATION),
        code(RAISES, metadata={"tags": ["raises-exception"]}),  # Run All goes on after it
        code(GARBAGE),
        code(ALIVE),
    ])
    nbformat.write(mermaid, folder / "mermaid.ipynb")
    nbformat.write(widgets, folder / "widgets.ipynb")
    knowing = new(metadata=spec, cells=[code(KNOWING), *(code(f"Player({source})")
                                                         for source in KNOWING_PLAYERS)])
    nbformat.write(knowing, folder / "knowing.ipynb")


CONVERSATION = """from harness_lib.messages import assistant, tool_call, tool_result, user
messages = [
    user("Lis README.md"),
    assistant(tool_calls=[tool_call("call_1", "read_file", {"path": "README.md"})]),
    tool_result("call_1", "# Projet"),
]
send(messages)"""
# The learner deletes the assistant message: the tool result answers no request.
BROKEN = CONVERSATION.replace(
    '    assistant(tool_calls=[tool_call("call_1", "read_file", {"path": "README.md"})]),\n', "")
# Below the player: a cell that fails, a learner's send() of garbage, then a cell
# that counts its runs (the kernel still answers, and keeps its variables).
RAISES, ZERO = "1 / 0", "ZeroDivisionError: division by zero"
GARBAGE = 'send("pas une liste")'
ALIVE = 'vivant = globals().get("vivant", 0) + 1\nprint(f"noyau vivant : {vivant}")'


# The chapter's three diagrams and one run (01's mission, mock model): « Que sait le
# modèle ? » read on screen just before and just after each call to the model.
KNOWING = """from harness_lib import MockModel, run, workspace_tools
from harness_lib.course.missions.tasks import README_TASK, example_workspace
from harness_lib.course.player.player import Player
mission = run(README_TASK, MockModel(), workspace_tools(example_workspace("mini")))"""
KNOWING_PLAYERS = ('"deux_tours"', '"erreur_outil"', '"boucle_complete"', "mission.trace")
NOTHING_YET = "ne sait encore rien"


def knowing_diagrams() -> list[Any]:
    """The same four diagrams, built here: what each call must bring to the model."""
    from harness_lib import MockModel, run, workspace_tools
    from harness_lib.course.drawing.mermaid import chapter_diagram
    from harness_lib.course.drawing.trace_diagram import from_trace
    from harness_lib.course.missions.tasks import README_TASK, example_workspace

    mission = run(README_TASK, MockModel(), workspace_tools(example_workspace("mini")))
    return [*(chapter_diagram(name) for name in ("deux_tours", "erreur_outil",
                                                 "boucle_complete")), from_trace(mission.trace)]


def carried(diagram: Any, call: int) -> list[str]:
    """What a learner reads of each tool result that the call at step `call` brings to the
    model for the first time: its label (a diagram), its tool_call_id (a run)."""
    from harness_lib.course.player.known import since_call

    fresh = [e for e in since_call(diagram, call - 1) if e.role == "tool"]
    if diagram.steps[0].messages is None:
        return [e.label for e in fresh]
    sent = list(diagram.steps[call - 1].messages)
    return [f'"tool_call_id": "{m["tool_call_id"]}"' for m in sent if m.get("role") == "tool"
            ][-len(fresh):] if fresh else []


def known_views(player: Any) -> tuple[str, str]:
    """(« Que sait le modèle ? », « messages[] maintenant ») as read on screen."""
    return (player.locator(".harness-model-view").text_content() or "",
            player.locator(".harness-now-view").text_content() or "")


def check_knowing(player: Any, diagram: Any) -> None:
    """Step by step: just before each call, the model knows neither the mission (first
    call) nor the tool results this call carries, which messages[] already holds; just
    after it, it knows them. « Appel suivant » jumps from call to call."""
    from harness_lib.course.player.known import call_steps

    calls = call_steps(diagram)
    view = rewind(player)
    player.locator("summary", has_text="Que sait le modèle").click()
    model, now = known_views(player)
    assert NOTHING_YET in model, model
    player.locator(STEP).click()  # the keys
    for k in range(1, view.total + 1):
        player.page.keyboard.press("ArrowRight")
        view = moved(player, k, view)
        readable(view)
        if k + 1 in calls:  # just before a call
            model, now = known_views(player)
            for text in carried(diagram, k + 1):
                assert text not in model and text in now, (k, text, model, now)
            assert k + 1 != calls[0] or NOTHING_YET in model, (k, model)
        if k in calls:  # just after it
            model, _ = known_views(player)
            assert NOTHING_YET not in model, (k, model)
            for text in carried(diagram, k):
                assert text in model, (k, text, model)
    view = rewind(player)
    for call in calls:
        button(player, "Appel suivant").click()
        view = moved(player, call, view)
    sync_api.expect(button(player, "Appel suivant")).to_be_disabled()


@pytest.mark.usefixtures("self_tests")
def test_what_the_model_knows_before_and_after_each_call(open_notebook: Any) -> None:
    notebook = open_notebook("selftest/knowing.ipynb")
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    players = notebook.panel.locator(PLAYER)
    sync_api.expect(players).to_have_count(len(KNOWING_PLAYERS))
    for i, diagram in enumerate(knowing_diagrams()):
        to_top(players.nth(i))
        check_knowing(players.nth(i), diagram)
        players.nth(i).screenshot(path=str(ARTIFACTS / f"knowing-{i}.png"))


@pytest.mark.usefixtures("self_tests")
def test_lab_renders_mermaid_and_the_checks_see_failures(open_notebook: Any) -> None:
    notebook = open_notebook("selftest/mermaid.ipynb")
    cells = run_all(notebook)
    wait_for_diagrams(notebook, 2)
    assert mermaid_counts(notebook) == (2, 1), "2 diagrammes dessinés, 1 refusé (le « ; »)"
    sync_api.expect(notebook.panel.locator(MATHS)).to_have_count(1)  # what the course avoids
    # The stderr line is a warning, not an error; the division by zero is one.
    problems = failures(cells, notebook)
    assert len(problems) == 1 and "ZeroDivisionError" in problems[0], problems
    assert any("ZeroDivisionError" in e for e in kernel_errors(notebook))
    # An exception in a widget callback shows in no cell: the kernel listener sees it.
    notebook.panel.get_by_role("button", name="boum").click()
    notebook.page.wait_for_function("() => window.harnessErrors.some(e => e.includes('rappel'))")
    assert screenshot(notebook).stat().st_size > 10_000


@pytest.mark.usefixtures("self_tests")
def test_player_toggle_and_a_learners_edit_in_lab(open_notebook: Any) -> None:
    notebook = open_notebook("selftest/widgets.ipynb")
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    check_figures(notebook.cell(2), 1)  # send()'s diagram, drawn by the course
    page, panel = notebook.page, notebook.panel
    players = panel.locator(PLAYER)
    sync_api.expect(players).to_have_count(1)
    check_failure_below(notebook, cells)
    check_player(players.first)  # the failed cell, run after the player, broke nothing
    check_play_while_busy(players.first)
    check_reduced_motion(players.first)
    check_toggle_is_mock(notebook)
    sync_api.expect(notebook.cell(2)).to_contain_text("Réponse du modèle")
    # Real model without a key: the toggle says so, and send() explains instead of failing.
    toggle, status = panel.locator(TOGGLE), panel.locator(STATUS)
    toggle.locator("button", has_text="Vrai modèle").click()
    sync_api.expect(status).to_contain_text("Pas de clé d’API")
    sync_api.expect(status).to_be_visible()
    rerun(notebook, 2)
    sync_api.expect(notebook.cell(2)).to_contain_text("Appel impossible")
    toggle.locator("button", has_text="Modèle simulé").click()
    sync_api.expect(status).to_contain_text(MOCK_STATUS)
    sync_api.expect(status).to_be_visible()
    # A learner edits messages[] in the cell and runs it with Maj+Entrée.
    editor = notebook.cell(2).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(BROKEN)  # no key events: no auto-closed brackets
    page.keyboard.press("Shift+Enter")
    sync_api.expect(notebook.cell(2)).to_contain_text("preceeding")
    sync_api.expect(notebook.cell(2)).to_contain_text("HTTP 400")
    page.wait_for_function(IDLE)
    check_still_usable(notebook)
    assert kernel_errors(notebook) == [ZERO, ZERO], "seules les deux divisions par zéro"


def check_failure_below(notebook: Notebook, cells: list[dict[str, Any]]) -> None:
    """After Run All: the division failed (its cell says so), send() of garbage explains
    in French without a traceback, and the last cell ran after them."""
    assert cells[3]["errors"] == [ZERO], cells[3]
    sync_api.expect(notebook.cell(3)).to_contain_text("ZeroDivisionError")
    garbage = notebook.cell(4)
    assert cells[4]["errors"] == [], cells[4]
    sync_api.expect(garbage).to_contain_text("HTTP 400")
    sync_api.expect(garbage).to_contain_text("pas une chaîne (str)")
    sync_api.expect(garbage).not_to_contain_text("Traceback")
    assert cells[5]["count"] > cells[3]["count"], "la cellule suivante n'a pas tourné après"
    sync_api.expect(notebook.cell(5)).to_contain_text("noyau vivant : 1")


def check_still_usable(notebook: Notebook) -> None:
    """The learner runs the failing cell again: « Suivante » still redraws the player,
    the toggle still switches, and a later cell still runs, with its variables kept."""
    page, panel = notebook.page, notebook.panel
    rerun(notebook, 3)
    page.wait_for_function("() => window.harnessErrors.length === 2")  # Run All's, this one's
    assert page.evaluate(CELLS)[3]["errors"] == [ZERO]
    player = panel.locator(PLAYER).first
    start = rewind(player)
    button(player, "Suivante").click()
    moved(player, 1, start)
    toggle, status = panel.locator(TOGGLE), panel.locator(STATUS)
    toggle.locator("button", has_text="Vrai modèle").click()
    sync_api.expect(status).to_contain_text("Pas de clé d’API")
    toggle.locator("button", has_text="Modèle simulé").click()
    sync_api.expect(status).to_contain_text(MOCK_STATUS)
    rerun(notebook, 5)
    sync_api.expect(notebook.cell(5)).to_contain_text("noyau vivant : 2")


def rerun(notebook: Notebook, index: int) -> None:
    """Select a cell and run it, as Maj+Entrée would."""
    notebook.cell(index).locator(".jp-InputPrompt").click()
    notebook.page.keyboard.press("Shift+Enter")
    notebook.page.wait_for_function(IDLE)


# ---------------------------------------------------------------- the course


def display_formulas(path: Path) -> int:
    """The formulas the course means: $$…$$ blocks of its Markdown (04's quadratic cost)."""
    nb = nbformat.read(path, as_version=4)
    return sum(c.source.count("$$") // 2 for c in nb.cells if c.cell_type == "markdown")


def says(path: Path, text: str) -> bool:
    nb = nbformat.read(path, as_version=4)
    return any(text in c.source for c in nb.cells if c.cell_type == "markdown")


EDITABLE = "# ✏️"  # first line of the cells the course asks the learner to edit
FORGET_ASSISTANT = 'reponse = send([m for m in messages if m["role"] != "assistant"])'


def editable_messages_cells(path: Path) -> list[int]:
    """Cells a learner edits, that send a messages[] holding a tool result."""
    nb = nbformat.read(path, as_version=4)
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
            and c.source.startswith(EDITABLE) and "send(messages" in c.source
            and re.search(r"""["']role["']:\s*["']tool["']""", c.source)]


def edit_like_a_learner(notebook: Notebook, index: int) -> None:
    """Add a line that drops the assistant message, run the cell: the API must refuse."""
    notebook.cell(index).locator(".cm-content").click()
    notebook.page.keyboard.press("Control+End")
    notebook.page.keyboard.press("Enter")
    notebook.page.keyboard.insert_text(FORGET_ASSISTANT)
    notebook.page.keyboard.press("Shift+Enter")
    sync_api.expect(notebook.cell(index)).to_contain_text("preceeding")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_course_notebook_in_lab(open_notebook: Any, path: Path) -> None:
    notebook = open_notebook(f"notebooks/{path.name}")
    cells = run_all(notebook)
    problems = failures(cells, notebook)
    players = wait_for_players(notebook, path)
    wait_for_diagrams(notebook, mermaid_fences(path))
    shot = screenshot(notebook)
    assert problems == [], f"{path.name} : {problems} (capture : {shot})"
    wait_for_drawings(notebook, mermaid_fences(path) + players.count(), shot)
    check_figures(notebook.panel, 1 if sends(path) else 0)
    check_players(notebook, path)
    check_toggle_is_mock(notebook)
    # No amount read as a formula: « 0,15 $ … 0,60 $ » between two $ is maths to Lab.
    sync_api.expect(notebook.panel.locator(MATHS), "une formule de trop, ou manquante") \
        .to_have_count(display_formulas(path))
    if says(path, "preceeding"):  # the notebook announces the API's refusal: it must show
        sync_api.expect(notebook.panel.locator(".jp-OutputArea-output", has_text="preceeding")
                        .first).to_be_visible()
    for index in editable_messages_cells(path):
        edit_like_a_learner(notebook, index)
    notebook.page.wait_for_function(IDLE)
    assert kernel_errors(notebook) == [], "erreurs du noyau (rappels de widgets ?)"


# ---------------------------------------------------------------- Notebook 7

# Every code cell that has a source has run (Run All clears the counts, then fills them).
ALL_COUNTED = """() => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    const waiting = cell.type === 'code' && cell.sharedModel.getSource().trim();
    if (waiting && cell.executionCount === null) return false;
  }
  return true;
}"""
SESSION_READY = """async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  await panel.context.ready;
  await panel.sessionContext.ready;
}"""


def run_all_from_menu(notebook: Notebook) -> list[dict[str, Any]]:
    """Run > Run All Cells in Notebook 7's menu bar, as a learner would; the cells' state."""
    page = notebook.page
    page.evaluate(SESSION_READY)
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-item", has_text=re.compile(r"^Run All Cells")).click()
    page.wait_for_function(ALL_COUNTED, timeout=RUN_TIMEOUT_MS)
    page.wait_for_function(IDLE)  # then the widgets' messages settle
    return page.evaluate(CELLS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook7_runs_a_course_notebook(open_notebook: Any, path: Path) -> None:
    pytest.importorskip("notebook", minversion="7.1", reason="pip install -e '.[test]'")
    notebook = open_notebook(f"notebooks/{path.name}", ui="notebook7")
    problems = failures(run_all_from_menu(notebook), notebook)
    players = wait_for_players(notebook, path)
    wait_for_diagrams(notebook, mermaid_fences(path))
    shot = screenshot(notebook)
    assert problems == [], f"Notebook 7, {path.name} : {problems} (capture : {shot})"
    wait_for_drawings(notebook, mermaid_fences(path) + players.count(), shot)
    check_figures(notebook.panel, 1 if sends(path) else 0)
    check_players(notebook, path, busy=False)  # by button and by keyboard, at both widths
    notebook.page.wait_for_function(IDLE)
    assert kernel_errors(notebook) == [], "erreurs du noyau (rappels de widgets ?)"


# ---------------------------------------------------------------- players anywhere

# The players draw their diagrams themselves (renderer.js, the bundled Mermaid): in a Lab
# without its Mermaid extension, in Voilà, and in an HTML export opened offline.
NO_MERMAID = ("@jupyterlab/mermaid-extension",)


@pytest.fixture(scope="module")
def lab_without_mermaid(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabFolder]:
    """A Lab of its own: an extension turned off is the whole server's page config."""
    yield from lab_of_its_own(tmp_path_factory.mktemp("lab-sans-mermaid"), disabled=NO_MERMAID)


@pytest.fixture
def open_without_mermaid(lab_without_mermaid: LabFolder, browser: Browser) -> Iterator[Any]:
    yield from opening(lab_without_mermaid, browser)


@pytest.mark.parametrize("name", ["04_boucle_complete.ipynb", "03_erreur_observation.ipynb"])
def test_players_draw_in_a_lab_without_its_mermaid(open_without_mermaid: Any, name: str) -> None:
    """Lab draws no Mermaid at all here (its Markdown blocks stay code); every player
    draws its own, steps, switches to the hub, plays while the kernel is busy; every
    send() diagram (03's hand-played mission) is drawn too."""
    path = ROOT / "notebooks" / name
    notebook = open_without_mermaid(f"notebooks/{name}", ui="lab")
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    players = wait_for_players(notebook, path)
    assert players.count() >= expected_players(path) > 0
    sync_api.expect(notebook.panel.locator("pre code").first).to_be_attached()  # a fence, as code
    assert notebook.panel.locator(".jp-RenderedMermaid").count() == 0, "Lab dessine encore"
    assert notebook.panel.locator(REFUSED).count() == 0
    check_figures(notebook.panel, 1 if sends(path) else 0)
    check_players(notebook, path)
    check_dark_theme(notebook, players.first)
    assert kernel_errors(notebook) == []


def check_dark_theme(notebook: Notebook, player: Any) -> None:
    """Lab's dark theme: the player draws its step again, in Mermaid's dark colours, and
    so does send()'s first diagram, if the notebook has one."""
    figure = notebook.panel.locator(FIGURE_DIAGRAM).first
    before = figure.get_attribute("src") if notebook.panel.locator(FIGURE).count() else None
    light = player_view(player)
    switch_theme(notebook.page, "JupyterLab Dark")
    dark = player_view(player, light.src)
    text = [unquote(v.src).split("<style>")[1][:400] for v in (light, dark)]  # its text colour
    assert dark.step == light.step and "fill:#333" in text[0] and "fill:#333" not in text[1]
    if before is not None:
        sync_api.expect(figure).not_to_have_attribute("src", before)
        looks = [unquote(src).split("<style>")[1][:400]
                 for src in (before, figure.get_attribute("src") or "")]
        assert "fill:#333" in looks[0] and "fill:#333" not in looks[1]
    switch_theme(notebook.page, "JupyterLab Light")
    assert player_view(player, dark.src).src == light.src  # from the cache
    if before is not None:
        sync_api.expect(figure).to_have_attribute("src", before)


VOILA = """from harness_lib.course.player.player import Player, run_live
from harness_lib.course.missions.tasks import README_TASK, example_workspace
from harness_lib.mock.model import MockModel
from harness_lib.tools import workspace_tools
Player("boucle_complete")"""
LIVE = "run_live(README_TASK, MockModel(), workspace_tools(example_workspace('mini')));"
# A learner's send() the API refuses (a result that answers no request): its diagram, a
# refused message framed in red and the API's cross, drawn by the course's own widget.
SEND = """from harness_lib.course.playground.sending import send
from harness_lib.messages import tool_result, user
send([user("Lis README.md"), tool_result("call_1", "# Projet")]);"""


@pytest.fixture(scope="module")
def voila(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Voilà serving one notebook (a player, a live run) on 127.0.0.1: its URL."""
    pytest.importorskip("voila", reason="pip install -e '.[test]'")
    import subprocess
    import urllib.request

    from browsing.lab_server import free_port, lab_environ, wait_for

    tmp = tmp_path_factory.mktemp("voila")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(VOILA),
                                         nbformat.v4.new_code_cell(LIVE),
                                         nbformat.v4.new_code_cell(SEND)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, tmp / "lecteur.ipynb")
    port, log = free_port(), tmp / "voila.log"
    command = [sys.executable, "-m", "voila", "--no-browser", f"--port={port}",
               "--Voila.ip=127.0.0.1", str(tmp / "lecteur.ipynb")]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                   env=lab_environ(tmp), cwd=tmp, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_for(lambda: urllib.request.urlopen(url, timeout=5).status == 200, process, log)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_a_player_draws_and_steps_in_voila(voila: str, browser: Browser) -> None:
    browser.external.clear()
    page = browser.context.new_page()
    page.goto(voila, timeout=RUN_TIMEOUT_MS)
    players = page.locator(PLAYER)
    sync_api.expect(players).to_have_count(2, timeout=RUN_TIMEOUT_MS)
    for i in range(2):
        sync_api.expect(players.nth(i).locator(PLAYER_DIAGRAM)).to_be_attached()
        check_player(players.nth(i), keys=False, lab=False)
    check_hub(players.first)
    # send()'s diagram: Voilà draws no Mermaid, the course does (its text version kept).
    sync_api.expect(page.locator(FIGURE)).to_have_count(1)
    check_figures(page, 1)
    sync_api.expect(page.locator(FIGURE).locator(".harness-transcript")) \
        .to_contain_text("API → Harness", use_inner_text=False)
    sync_api.expect(page.get_by_text("HTTP 400").first).to_be_visible()  # the verdict
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "voila.png"), full_page=True)
    # The live widgets replace their static copies and notes (renderer.css).
    assert page.locator(".harness-static").count() > 0
    assert page.locator(".harness-static:visible").count() == 0
    page.close()
    # Voilà's own template asks a CDN for its icon font (refused here, not needed).
    others = [url for url in browser.external if "fontawesome-free" not in url]
    browser.external.clear()
    assert not others, f"requêtes hors de 127.0.0.1 : {others}"


EXPORTED = ["Player('deux_tours')", "Player('erreur_outil', view='hub')", LIVE, SEND]
COPIES = 2 * 3 + 1  # two drawings in a player's static copy (sequence, hub), one in send()'s


def test_an_html_export_opened_offline_draws_every_players_copy(browser: Browser,
                                                                tmp_path: Path) -> None:
    """nbclient runs the notebook (the widgets' state saved), nbconvert exports it; opened
    from the disk with no network, each player's static copy draws its two diagrams, and
    send()'s its one, each with its text version."""
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    first = VOILA.replace('Player("boucle_complete")', "")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(first),
                                         *map(nbformat.v4.new_code_cell, EXPORTED)])
    NotebookClient(nb, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    page_html, _ = HTMLExporter().from_notebook_node(nb)
    (tmp_path / "export.html").write_text(page_html, encoding="utf-8")
    assert page_html.count('class="harness-static"') == len(EXPORTED)
    assert page_html.count('<script type="application/x-harness-mermaid">') == 1  # once
    page = browser.context.new_page()
    page.goto((tmp_path / "export.html").as_uri())
    page.wait_for_function("""(n) => {
      const imgs = [...document.querySelectorAll('.harness-static img.harness-static-drawing')];
      return imgs.length === n && imgs.every((img) => img.complete && img.naturalWidth > 0);
    }""", arg=COPIES, timeout=RUN_TIMEOUT_MS)
    assert page.locator(".harness-static pre.harness-mermaid").count() == 0
    # The note that a widget needs its kernel says nothing to an export's reader: hidden.
    assert page.locator(".harness-reopen").count() == len(EXPORTED)
    assert page.locator(".harness-reopen:visible").count() == 0
    sync_api.expect(page.locator(".harness-static details")).to_have_count(len(EXPORTED))
    sync_api.expect(page.locator(".harness-static details").last).to_contain_text(
        "API → Harness", use_inner_text=False)  # send()'s transcript, folded
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "export-hors-ligne.png"), full_page=True)
    page.close()
    browser.external.clear()  # the template's own CDN scripts, refused: that is offline
