"""The course in a real browser: JupyterLab in headless Chromium runs every notebook.

One Lab server (tests/jupyter_lab.py: on 127.0.0.1, a free port, a token, its root a
temporary copy of notebooks/ and harness_lib/, so the committed files are never
touched) and one Chromium (Debian's, driven by Playwright; never `playwright install`)
serve the whole module. For each notebook: open it, run all cells, wait until every
code cell has run, then check what a learner would see: no error (in a cell, or in a
widget callback), every Mermaid diagram drawn, the toggle in mock mode, the API's
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
/usr/bin/chromium the module is skipped.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import nbformat
import pytest
from jupyter_lab import CHROMIUM, CHROMIUM_ARGS, LOCAL, ROOT, Lab, running_lab

if not CHROMIUM.exists():
    pytest.skip("installez chromium (apt-get install chromium) pour activer ce test",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")

pytestmark = pytest.mark.browser

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
ARTIFACTS = ROOT / "tests" / "artifacts"
VIEWPORT = {"width": 1280, "height": 900}
WIDTHS = (1280, 800)  # a laptop, and a narrow window (or a zoomed page)
TIMEOUT_MS = 60_000  # any single wait; a whole notebook run gets RUN_TIMEOUT_MS
RUN_TIMEOUT_MS = 240_000
# expect() waits 5 s by default: too short for a widget view on a loaded CI machine.
sync_api.expect.set_options(timeout=TIMEOUT_MS)
FENCE = re.compile(r"^```mermaid[ \t]*$", re.MULTILINE)

# How the test finds the widgets' parts: the harness-* classes that player.py, stepper.js
# and playground.py put on them, and the controls' accessible names (what a screen
# reader says, and what a learner reads), not their layout.
PLAYER = ".harness-player"  # the whole player; it takes the keys once focused
CONTROLS = ".harness-controls"  # the row of buttons, slider and « étape k sur N »
STEP = ".harness-step"  # « étape k sur N » (.harness-announce is what a screen reader hears)
MATHS = "mjx-container, .MathJax"  # a formula typeset by MathJax (Lab's LaTeX)
TEXT = ".harness-text"  # the current step's status, note and context bar
TOGGLE = ".harness-toggle"  # the mock/real ToggleButtons
STATUS = ".harness-status"  # the HTML under the toggle that says which model answers
DIAGRAM = ".jp-RenderedMermaid img"
# The player's drawing: its own (stepper.js, the bundled Mermaid), not Lab's Mermaid.
PLAYER_DIAGRAM = ".harness-diagram .harness-drawing img"
# send()'s conversation diagram: drawn by the course too (player/figure.py, stepper.js).
FIGURE = ".harness-figure"
FIGURE_DIAGRAM = ".harness-figure .harness-drawing img"
REFUSED = ".jp-RenderedMermaid.jp-mod-warning, .harness-drawing.harness-refused"
MIN_TEXT_PX = 12.5  # the smallest arrow label a player may draw (body text: 14 px, Lab UI: 13 px)
MOCK_STATUS = "Modèle simulé : réponses calculées hors ligne"


# ---------------------------------------------------------------- the Lab server

@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    yield from serving(tmp_path_factory.mktemp("lab"), self_tests=True)


def serving(tmp: Path, self_tests: bool = False, disabled: tuple[str, ...] = ()) -> Iterator[Lab]:
    """A Lab server (`disabled`: extensions turned off) on a copy of the notebooks."""
    root = tmp / "root"
    # The notebooks and what they may link to, copied: Lab autosaves, the repo stays clean.
    shutil.copytree(ROOT / "notebooks", root / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    if self_tests:
        write_self_tests(root / "selftest")
    try:
        with running_lab(tmp, root, disabled=disabled) as server:
            yield server
    except RuntimeError as err:  # it did not start: say why
        pytest.fail(str(err))


# ---------------------------------------------------------------- the browser

@dataclass
class Browser:
    context: Any
    external: list[str] = field(default_factory=list)  # requests aborted, this test
    seen: set[str] = field(default_factory=set)  # every host aborted, the whole module


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = chromium.new_context(viewport=VIEWPORT)
        context.set_default_timeout(TIMEOUT_MS)
        state = Browser(context)

        def route(route: Any) -> None:
            host = urlsplit(route.request.url).hostname or ""
            if host in LOCAL or route.request.url.startswith(("data:", "blob:", "file:")):
                route.continue_()
            else:
                state.external.append(route.request.url)
                state.seen.add(host)
                route.abort()

        context.route("**/*", route)
        yield state
        chromium.close()


# In the page: a listener on the kernel's messages keeps every error it sends,
# including those of widget callbacks, which no cell shows.
LISTEN = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  window.harnessErrors = [];
  panel.sessionContext.session.kernel.iopubMessage.connect((_, msg) => {
    const c = msg.content;
    if (msg.header.msg_type === 'error') window.harnessErrors.push(c.ename + ': ' + c.evalue);
    const stderr = msg.header.msg_type === 'stream' && c.name === 'stderr';
    if (stderr && /Traceback|Exception/.test(c.text)) window.harnessErrors.push(c.text);
  });
}"""
READY = """(path) => {
  const app = window.jupyterapp, panel = app && app.shell.currentWidget;
  return !!(panel && panel.context && panel.context.path === path && panel.sessionContext
            && panel.sessionContext.session && panel.sessionContext.session.kernel);
}"""
RUN_ALL = """async () => {
  const app = window.jupyterapp, panel = app.shell.currentWidget;
  await panel.context.ready;
  await panel.sessionContext.ready;
  app.shell.collapseLeft();
  return await app.commands.execute('notebook:run-all-cells');
}"""
IDLE = """() => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  return kernel.status === 'idle';
}"""
# Each code cell: its execution count, its error outputs, whether it may raise.
CELLS = """() => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.cells, out = [];
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    const outputs = cell.outputs.toJSON();
    out.push({index: i, count: cell.executionCount, source: cell.sharedModel.getSource(),
              tags: cell.getMetadata('tags') || [],
              errors: outputs.filter(o => o.output_type === 'error')
                             .map(o => o.ename + ': ' + o.evalue)});
  }
  return out;
}"""


@dataclass
class Notebook:
    page: Any
    name: str
    panel: Any  # the notebook's own tab: every lookup stays inside it

    def cell(self, index: int) -> Any:
        return self.panel.locator(".jp-Cell").nth(index)


# reset: a fresh workspace, or Lab would reopen the previous test's notebooks too.
# Notebook 7, served by the same server, shows one notebook a page, with Lab's shell
# API (window.jupyterapp.shell.currentWidget) and DOM classes: the same checks apply.
UI_URLS = {"lab": "lab/tree/{path}?reset&", "notebook7": "notebooks/{path}?"}


@pytest.fixture
def open_notebook(lab: Lab, browser: Browser) -> Iterator[Any]:
    """open_notebook('notebooks/x.ipynb', ui='lab'|'notebook7') -> Notebook; its kernel is
    shut down after."""
    yield from opening(lab, browser)


def opening(lab: Lab, browser: Browser) -> Iterator[Any]:
    """What open_notebook yields, for any Lab server."""
    pages: list[Any] = []
    browser.external.clear()
    if lab.progress is not None:  # each test starts the course afresh: no earlier answer
        lab.progress.unlink(missing_ok=True)

    def open_(path: str, ui: str = "lab") -> Notebook:
        page = browser.context.new_page()
        pages.append(page)
        # WebSockets escape context.route: record those that leave too.
        page.on("websocket", lambda ws: None if urlsplit(ws.url).hostname in LOCAL
                else browser.external.append(ws.url))
        page.goto(f"{lab.url}/{UI_URLS[ui].format(path=path)}token={lab.token}")
        page.wait_for_function(READY, arg=path)
        page.evaluate(LISTEN)
        panel = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
        name = Path(path).name if ui == "lab" else f"nb7-{Path(path).name}"  # the screenshot's
        return Notebook(page, name, page.locator(f"[id='{panel}']"))

    yield open_
    for page in pages:
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
        page.close()
    assert not browser.external, f"requêtes hors de 127.0.0.1 : {browser.external}"


def run_all(notebook: Notebook) -> list[dict[str, Any]]:
    """Run all cells like Run > Run All Cells, wait for the kernel, return the cells' state."""
    notebook.page.evaluate(RUN_ALL)
    notebook.page.wait_for_function(IDLE, timeout=RUN_TIMEOUT_MS)
    return notebook.page.evaluate(CELLS)


def failures(cells: list[dict[str, Any]], notebook: Notebook) -> list[str]:
    """What went wrong: cells not run, errors outside cells tagged raises-exception."""
    found = []
    for cell in cells:
        first = cell["source"].strip().splitlines()[:1]
        where = f"cellule {cell['index']} ({first[0][:60] if first else 'vide'})"
        if cell["source"].strip() and cell["count"] is None:
            found.append(f"{where} : pas exécutée")
        if cell["errors"] and "raises-exception" not in cell["tags"]:
            found.append(f"{where} : {cell['errors']}")
    shown = notebook.panel.locator(".jp-OutputArea-output", has_text="Error displaying widget")
    found += [f"widget : {text}" for text in shown.all_inner_texts()]
    return found


def kernel_errors(notebook: Notebook) -> list[str]:
    return notebook.page.evaluate("() => window.harnessErrors")


def wait_for_diagrams(notebook: Notebook, at_least: int) -> None:
    """Every Mermaid block drawn (an <img>) or refused (jp-mod-warning), and enough of them."""
    notebook.page.wait_for_function("""(n) => {
      const root = window.jupyterapp.shell.currentWidget.node;
      const blocks = [...root.querySelectorAll('.jp-RenderedMermaid')];
      const drawn = blocks.filter(b => b.querySelector('img'));
      const refused = blocks.filter(b => b.classList.contains('jp-mod-warning'));
      return drawn.length + refused.length === blocks.length && drawn.length >= n;
    }""", arg=at_least)


def wait_for_drawings(notebook: Notebook, at_least: int, shot: Path) -> None:
    """At least `at_least` diagrams drawn, by Lab and by the players, and none refused.

    Waited for, not counted once: the source gives the least number of players (a cell may
    show several: 5 cells, 7 players in 07), and a view that comes later than those shows
    « Dessin en cours… » until its drawing is decoded (seen in CI: 6 of 7 drawn)."""
    drawn = notebook.panel.locator(f"{DIAGRAM}, {PLAYER_DIAGRAM}")
    if at_least:
        sync_api.expect(drawn.nth(at_least - 1),
                        f"{at_least} diagrammes attendus (capture : {shot})").to_be_attached()
    refused = notebook.panel.locator(REFUSED).count()
    assert refused == 0, f"{refused} diagramme(s) Mermaid illisible(s) (capture : {shot})"


def mermaid_counts(notebook: Notebook) -> tuple[int, int]:
    """(diagrams drawn, by Lab and by the players; diagrams Mermaid refused to draw)."""
    drawn = notebook.panel.locator(f"{DIAGRAM}, {PLAYER_DIAGRAM}").count()
    return drawn, notebook.panel.locator(REFUSED).count()


def check_figures(where: Any, at_least: int) -> None:
    """Every send() diagram in `where` (a page or a locator) drawn as a decoded image by
    the course's own widget, none refused, and at least `at_least` of them; each keeps
    its text version."""
    figures = where.locator(FIGURE)
    if at_least:
        sync_api.expect(figures.nth(at_least - 1), "un diagramme de send() manque") \
            .to_be_attached()
    for i in range(figures.count()):
        image = figures.nth(i).locator(".harness-drawing img")
        sync_api.expect(image, "un diagramme de send() non dessiné").to_be_attached()
        # A decodable SVG (not a broken image: Mermaid's SVG must be well-formed XML).
        assert image.evaluate("(img) => img.decode().then(() => img.naturalWidth)") > 0
        sync_api.expect(figures.nth(i).locator("summary")).to_have_text("Version texte")
    assert where.locator(f"{FIGURE} .harness-refused").count() == 0


# The notebook's scroller, and the height of its cells without the blank space Lab
# adds below the last one (to scroll past the end).
SCROLLER = "window.jupyterapp.shell.currentWidget.node.querySelector('.jp-WindowedPanel-outer')"
CONTENT = f"() => [...{SCROLLER}.children].reduce((sum, child) => sum + child.offsetHeight, 0)"


def screenshot(notebook: Notebook, suffix: str = "") -> Path:
    """The whole notebook in one image: the window grows to the notebook's height."""
    page, path = notebook.page, ARTIFACTS / f"{Path(notebook.name).stem}{suffix}.png"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"]
    chrome = page.evaluate(f"() => window.innerHeight - {SCROLLER}.clientHeight")  # menus, bars
    height = min(page.evaluate(CONTENT) + chrome + 20, 16_000)
    page.set_viewport_size({"width": width, "height": height})
    try:  # the notebook laid out again for the new height...
        page.wait_for_function(f"() => {SCROLLER}.clientHeight >= {height - chrome}",
                               timeout=10_000)
    except sync_api.TimeoutError:
        pass  # ...or a bar that came since took some of it (seen once, Notebook 7, in CI):
        # this image is for people to look at, not a check; take it as it is
    page.evaluate(f"() => {{ {SCROLLER}.scrollTop = 0; }}")  # Run All ended at the last cell
    page.wait_for_function(f"() => {SCROLLER}.scrollTop === 0")
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size({"width": width, "height": VIEWPORT["height"]})
    return path


# ---------------------------------------------------------------- players and toggle

@dataclass(frozen=True)
class View:
    """One player as drawn now."""
    step: int
    total: int
    src: str  # the shown drawing's <img> src (an SVG data URL)
    text: str  # the shown status, note and context bar, as read on screen
    text_px: float  # the smallest arrow label, as drawn on screen (0 in the hub view)
    number: int  # the highest arrow number drawn (autonumber): the step shown (0: none)


# In the page: the player's drawing now shown, and the size on screen of its smallest
# arrow label: Mermaid's font size times the scale the browser applied to fit the image
# in the cell.
SHOWN = """([player, old]) => {
  const img = [...player.querySelectorAll('.harness-diagram .harness-drawing img')]
    .find(i => i.checkVisibility() && i.complete && i.src);
  if (img && img.naturalWidth === 0) return {broken: img.src.slice(0, 3000)};  // not an image
  if (!img || img.src === old) return null;
  const svg = decodeURIComponent(img.src.split(',')[1]);
  const sizes = [...svg.matchAll(/class="messageText"[^>]*?font-size: ?([0-9.]+)px/g)]
    .map(m => +m[1]);
  const scale = img.getBoundingClientRect().width / Number(img.getAttribute('width'));
  const numbers = [...svg.matchAll(/class="sequenceNumber"[^>]*>([0-9]+)</g)].map(m => +m[1]);
  return {src: img.src, textPx: sizes.length ? Math.min(...sizes) * scale : 0,
          number: Math.max(0, ...numbers)};
}"""
# What the player shows, when its drawing does not come: for the failure message.
SEEN = """(player) => ({
  step: player.querySelector('.harness-step').textContent,
  drawings: player.querySelectorAll('.harness-diagram .harness-drawing img').length,
  shown: [...player.querySelectorAll('.harness-diagram .harness-drawing img')]
    .filter((img) => img.checkVisibility()).map((img) => [img.complete, img.src.length]),
  area: player.querySelector('.harness-diagram .harness-drawing')?.className,
  refused: player.querySelectorAll('.harness-refused').length,
  prepared: player.querySelector('.harness-text').parentElement.dataset.prepared,
  text: player.querySelector('.harness-text').innerText.slice(0, 80)})"""
# Where the controls and the current arrow (the last one drawn, at the bottom of the
# drawing) are, against the part of the notebook a learner sees.
PLACES = """(player) => {
  const panel = window.jupyterapp.shell.currentWidget.node;
  const scroller = panel.querySelector('.jp-WindowedPanel-outer') || panel;
  const img = [...player.querySelectorAll('.harness-diagram .harness-drawing img')]
    .find(i => i.checkVisibility());
  const box = scroller.getBoundingClientRect();
  const seen = {top: Math.max(box.top, 0), bottom: Math.min(box.bottom, window.innerHeight)};
  const controls = player.querySelector('.harness-controls').getBoundingClientRect();
  return {seen, controls: controls.toJSON(), arrow: img.getBoundingClientRect().bottom};
}"""


def player_view(player: Any, old_src: str = "") -> View:
    """Read the player once its drawing is shown and differs from old_src."""
    try:
        shown = player.page.wait_for_function(SHOWN, arg=[player.element_handle(), old_src])
    except sync_api.TimeoutError:
        seen = player.evaluate(SEEN)
        pytest.fail(f"le diagramme du lecteur n'a pas été (re)dessiné : {seen}")
    found = shown.json_value()
    assert "broken" not in found, f"dessin illisible par le navigateur : {found}"
    # The controls are another widget view: their label may come a moment after the drawing.
    try:
        sync_api.expect(player.locator(STEP)).to_have_text(re.compile(r"^étape \d+ sur \d+"))
    except AssertionError:
        pass  # the assert below says what was read
    # textContent, not innerText: a cell that scrolled out of view in Notebook 7 is skipped
    # by content-visibility, and its innerText may read as empty.
    label = (player.locator(STEP).text_content() or "").strip()
    step = re.match(r"étape (\d+) sur (\d+)", label)
    assert step, f"libellé « étape k sur N » attendu, lu : {label!r}"
    return View(int(step[1]), int(step[2]), found["src"], player.locator(TEXT).text_content() or "",
                found["textPx"], found["number"])


def moved(player: Any, step: int | None, old: View | None = None) -> View:
    """Wait until the player shows `step` (None: any), drawing included. No kernel
    round trip is awaited: stepping happens in the browser."""
    if step is not None:
        sync_api.expect(player.locator(STEP)).to_have_text(re.compile(rf"^étape {step} sur \d+"))
    view = player_view(player, old.src if old is not None else "")
    assert view.text.strip(), f"étape {view.step} : aucune note"  # every step says something
    # The drawing of this step, not another one of the steps that share its Output.
    assert view.number in (0, view.step), f"étape {view.step}, flèche {view.number} dessinée"
    return view


def in_view(player: Any) -> None:
    """The controls and the current arrow fit in one view, the arrow below the controls:
    with the controls at the top of the notebook, the learner sees both.

    Measured as a span, not against the scroll position: in Lab's default windowing mode
    (content-visibility), cells above the player get their real height only when the
    browser draws them, so the player may move down while the test steps it (seen in
    CI: the controls 330 px lower than where `to_top` had put them)."""
    places = player.evaluate(PLACES)
    seen, controls = places["seen"], places["controls"]
    room = seen["bottom"] - seen["top"]
    assert controls["bottom"] - controls["top"] <= room, \
        f"commandes plus hautes que la vue : {places}"
    assert controls["top"] <= places["arrow"] <= controls["top"] + room + 1, \
        f"flèche courante hors de la vue, les commandes en haut : {places}"


def readable(view: View) -> None:
    assert view.text_px == 0 or view.text_px >= MIN_TEXT_PX, \
        f"étape {view.step} : texte du diagramme à {view.text_px:.1f} px (< {MIN_TEXT_PX})"


def button(player: Any, name: str) -> Any:
    """A control by its accessible name (its visible text)."""
    return player.locator(CONTROLS).get_by_role("button", name=name, exact=True)


def to_top(player: Any) -> None:
    """Scroll the notebook so that the player's controls are at the top, as a learner would."""
    player.locator(CONTROLS).evaluate("e => e.scrollIntoView({block: 'start'})")


def rewind(player: Any) -> View:
    """Back to step 0 with « Début » (greyed out when already there)."""
    to_top(player)
    first = button(player, "Début")
    if first.is_enabled():
        first.click()
    return moved(player, 0)


def check_player(player: Any, clicks: int = 3, keys: bool = True, lab: bool = True) -> list[View]:
    """From the start, « Suivante » moves the diagram and the note, with the controls and
    the current arrow in view (`lab`: in Lab's or Notebook 7's notebook panel);
    « Précédente » goes back; the keys do the same."""
    views = [rewind(player)]
    total = views[0].total
    assert total >= 1, "un lecteur sans étape"
    for step in range(1, min(clicks, total) + 1):
        button(player, "Suivante").click()
        views.append(moved(player, step, views[-1]))
        if lab:
            in_view(player)
        readable(views[-1])
    if len(views) > 2:  # a step may keep the note, not every step
        assert len({v.text for v in views}) > 1, f"la note ne change pas : {views[0].text!r}"
    if any(v.text_px for v in views):  # the sequence view: its arrows are numbered
        assert any(v.number for v in views), "aucun numéro de flèche lu dans le dessin"
    button(player, "Précédente").click()
    back = moved(player, views[-2].step, views[-1])
    assert back.text == views[-2].text and back.src == views[-2].src, "« Précédente » diffère"
    if keys:
        views += check_keys(player, back)
    return views


def check_keys(player: Any, start: View) -> list[View]:
    """With the player focused: Home, End, ←, → step; Tab shows where the focus is.
    It ends on the last step: the fullest drawing, for the screenshots."""
    page = player.page
    player.locator(STEP).click()  # a click in the player gives it the keys
    views, total = [start], start.total
    keys = [("End", total), ("ArrowLeft", total - 1), ("ArrowRight", total)]
    for key, step in [("Home", 0)] * (start.step > 0) + keys:
        page.keyboard.press(key)
        views.append(moved(player, step, views[-1]))
        in_view(player)
        readable(views[-1])
    # The keyboard focus is visible: Tab lands on « Début », which draws an outline.
    page.keyboard.press("Tab")
    outline = page.evaluate("() => { const s = getComputedStyle(document.activeElement);"
                            " return [document.activeElement.textContent, s.outlineStyle,"
                            " parseFloat(s.outlineWidth)]; }")
    assert outline[1] != "none" and outline[2] >= 2, f"focus invisible : {outline}"
    return views


def check_hub(player: Any) -> None:
    """« Hub » shows the same step with the harness at the centre; « Séquence » comes back."""
    sequence = player_view(player)
    button(player, "Hub").click()
    hub = moved(player, sequence.step, sequence)
    assert "flowchart" in unquote(hub.src) and hub.text == sequence.text
    sync_api.expect(button(player, "Hub")).to_have_attribute("aria-pressed", "true")
    button(player, "Séquence").click()
    back = moved(player, sequence.step, hub)
    assert back.src == sequence.src


def check_accessible_names(player: Any) -> None:
    """What a screen reader says: named controls, and each step as it changes."""
    for name in ("Début", "Précédente", "Lecture", "Suivante", "Séquence", "Hub"):
        sync_api.expect(button(player, name)).to_have_count(1)
    # The step is announced with its note by the text part (tests/test_accessibility.py).
    sync_api.expect(player.locator(".harness-announce")).to_have_attribute("aria-live", "polite")
    slider = player.locator(CONTROLS).get_by_role("slider", name="Étape")
    sync_api.expect(slider).to_have_attribute("aria-valuetext", re.compile(r"^étape \d+ sur \d+$"))


# The kernel runs a cell that sleeps: busy until its execute request is done (its
# status light may blink « idle » in between, as it answers other messages).
BUSY = """(seconds) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({code: `import time; time.sleep(${seconds})`});
  window.harnessBusy = true;
  future.done.then(() => { window.harnessBusy = false; });
}"""
KERNEL_BUSY = "() => window.harnessBusy === true"
KERNEL_DONE = "() => window.harnessBusy === false"


def check_play_while_busy(player: Any) -> None:
    """« Lecture » moves the diagram while the kernel is busy; « Pause » keeps the step."""
    start = rewind(player)
    player.page.evaluate(BUSY, 8)
    button(player, "Lecture").click()
    first = moved(player, 1, start)
    second = moved(player, 2, first)
    assert player.page.evaluate(KERNEL_BUSY), "le noyau n'était plus occupé : test sans objet"
    button(player, "Pause").click()
    paused = player_view(player)
    assert paused.step >= second.step, "« Pause » a ramené le lecteur en arrière"
    sync_api.expect(button(player, "Lecture")).to_have_count(1)
    player.page.wait_for_function(KERNEL_DONE, timeout=RUN_TIMEOUT_MS)
    player.page.wait_for_function(IDLE, timeout=RUN_TIMEOUT_MS)
    assert player_view(player).step == paused.step, "l'étape a changé après la pause"


def check_reduced_motion(player: Any) -> None:
    """With « reduce motion » asked by the system, « Lecture » moves one step, no more."""
    page = player.page
    page.emulate_media(reduced_motion="reduce")
    start = rewind(player)
    play = button(player, "Lecture")
    sync_api.expect(play).to_have_attribute("title", re.compile("Mouvement réduit"))
    play.click()
    moved(player, 1, start)
    page.wait_for_timeout(1500)  # three intervals of the self-test's player: no animation
    assert player_view(player).step == 1, "« Lecture » anime malgré prefers-reduced-motion"
    sync_api.expect(button(player, "Lecture")).to_have_count(1)  # not « Pause »
    page.emulate_media(reduced_motion="no-preference")


def check_players(notebook: Notebook, path: Path, busy: bool = True) -> None:
    """Every player, at each width: by button and by keyboard, in view, readable; the
    first one also plays while the kernel is busy, and switches to the hub and back.
    Each player, as left after its check, goes to tests/artifacts/ (look at them)."""
    players = notebook.panel.locator(PLAYER)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = Path(notebook.name)
    for width in WIDTHS:
        notebook.page.set_viewport_size({"width": width, "height": VIEWPORT["height"]})
        totals = []
        for i in range(players.count()):
            views = check_player(players.nth(i))
            totals.append(views[0].total)
            players.nth(i).screenshot(path=str(ARTIFACTS / f"{path.stem}-lecteur{i}-{width}.png"))
        if players.count():
            check_accessible_names(players.first)
            check_hub(players.first)
            longest = players.nth(totals.index(max(totals)))  # 07: the max-turns run
            to_top(longest)
            readable(player_view(longest))
        screenshot(notebook, f"-{width}")
    if busy and players.count():
        check_play_while_busy(players.first)
    notebook.page.set_viewport_size(VIEWPORT)


def check_toggle_is_mock(notebook: Notebook) -> None:
    """Every view of the toggle (one per cell that shows it) is on « Modèle simulé »."""
    toggles, statuses = notebook.panel.locator(TOGGLE), notebook.panel.locator(STATUS)
    sync_api.expect(statuses).to_have_count(toggles.count())
    for i in range(toggles.count()):
        active = toggles.nth(i).locator("button.mod-active")
        sync_api.expect(active).to_have_text(re.compile("Modèle simulé"))
        sync_api.expect(statuses.nth(i)).to_contain_text(MOCK_STATUS)
        sync_api.expect(statuses.nth(i)).to_be_visible()


# ---------------------------------------------------------------- self-tests

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
             "from harness_lib.course.playground.toggle import send, toggle\ntoggle()"),
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
from harness_lib.course.missions.scenarios import README_TASK, example_workspace
from harness_lib.course.player.player import Player
mission = run(README_TASK, MockModel(), workspace_tools(example_workspace("mini")))"""
KNOWING_PLAYERS = ('"deux_tours"', '"erreur_outil"', '"boucle_complete"', "mission.trace")
NOTHING_YET = "ne sait encore rien"


def knowing_diagrams() -> list[Any]:
    """The same four diagrams, built here: what each call must bring to the model."""
    from harness_lib import MockModel, run, workspace_tools
    from harness_lib.course.drawing.diagram import from_trace
    from harness_lib.course.drawing.mermaid import chapter_diagram
    from harness_lib.course.missions.scenarios import README_TASK, example_workspace

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

def mermaid_fences(path: Path) -> int:
    nb = nbformat.read(path, as_version=4)
    return sum(len(FENCE.findall(c.source)) for c in nb.cells if c.cell_type == "markdown")


def display_formulas(path: Path) -> int:
    """The formulas the course means: $$…$$ blocks of its Markdown (04's quadratic cost)."""
    nb = nbformat.read(path, as_version=4)
    return sum(c.source.count("$$") // 2 for c in nb.cells if c.cell_type == "markdown")


def says(path: Path, text: str) -> bool:
    nb = nbformat.read(path, as_version=4)
    return any(text in c.source for c in nb.cells if c.cell_type == "markdown")


def sends(path: Path) -> bool:
    """Does a code cell call send()?"""
    nb = nbformat.read(path, as_version=4)
    return any(re.search(r"\bsend\(", c.source) for c in nb.cells if c.cell_type == "code")


EDITABLE = "# ✏️"  # first line of the cells the course asks the learner to edit
FORGET_ASSISTANT = 'reponse = send([m for m in messages if m["role"] != "assistant"])'


def expected_players(path: Path) -> int:
    """Code cells that build a player (Player(...) or run_live(...)) show at least one each."""
    nb = nbformat.read(path, as_version=4)
    return sum(1 for c in nb.cells if c.cell_type == "code"
               and re.search(r"\b(?:Player|run_live)\(", c.source))


def wait_for_players(notebook: Notebook, path: Path) -> Any:
    """Every player the source builds is in the page, its first diagram drawn.

    Counted from the source: a player that lost its class would otherwise be skipped.
    Waited for: a widget's view may come after the kernel went idle on a loaded machine.
    In Notebook 7 the drawing also proves the player's text/markdown fence: without it
    the text/vnd.mermaid source would show as plain text."""
    players = notebook.panel.locator(PLAYER)
    if expected_players(path):
        sync_api.expect(players.nth(expected_players(path) - 1), "lecteurs introuvables") \
            .to_be_attached()
    for i in range(players.count()):
        sync_api.expect(players.nth(i).locator(PLAYER_DIAGRAM).first,
                        "un lecteur sans diagramme dessiné").to_be_attached()
    return players


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
def lab_without_mermaid(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    yield from serving(tmp_path_factory.mktemp("lab-sans-mermaid"), disabled=NO_MERMAID)


@pytest.fixture
def open_without_mermaid(lab_without_mermaid: Lab, browser: Browser) -> Iterator[Any]:
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


THEME = "(name) => window.jupyterapp.commands.execute('apputils:change-theme', {theme: name})"


def check_dark_theme(notebook: Notebook, player: Any) -> None:
    """Lab's dark theme: the player draws its step again, in Mermaid's dark colours, and
    so does send()'s first diagram, if the notebook has one."""
    figure = notebook.panel.locator(FIGURE_DIAGRAM).first
    before = figure.get_attribute("src") if notebook.panel.locator(FIGURE).count() else None
    light = player_view(player)
    notebook.page.evaluate(THEME, "JupyterLab Dark")
    dark = player_view(player, light.src)
    text = [unquote(v.src).split("<style>")[1][:400] for v in (light, dark)]  # its text colour
    assert dark.step == light.step and "fill:#333" in text[0] and "fill:#333" not in text[1]
    if before is not None:
        sync_api.expect(figure).not_to_have_attribute("src", before)
        looks = [unquote(src).split("<style>")[1][:400]
                 for src in (before, figure.get_attribute("src") or "")]
        assert "fill:#333" in looks[0] and "fill:#333" not in looks[1]
    notebook.page.evaluate(THEME, "JupyterLab Light")
    assert player_view(player, dark.src).src == light.src  # from the cache
    if before is not None:
        sync_api.expect(figure).to_have_attribute("src", before)


VOILA = """from harness_lib.course.player.player import Player, run_live
from harness_lib.course.missions.scenarios import README_TASK, example_workspace
from harness_lib.mock.model import MockModel
from harness_lib.tools import workspace_tools
Player("boucle_complete")"""
LIVE = "run_live(README_TASK, MockModel(), workspace_tools(example_workspace('mini')));"
# A learner's send() the API refuses (a result that answers no request): its diagram, a
# refused message framed in red and the API's cross, drawn by the course's own widget.
SEND = """from harness_lib.course.playground.toggle import send
from harness_lib.messages import tool_result, user
send([user("Lis README.md"), tool_result("call_1", "# Projet")]);"""


@pytest.fixture(scope="module")
def voila(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Voilà serving one notebook (a player, a live run) on 127.0.0.1: its URL."""
    pytest.importorskip("voila", reason="pip install -e '.[test]'")
    import subprocess
    import urllib.request

    from jupyter_lab import free_port, lab_environ, wait_for

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
