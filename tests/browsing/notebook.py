"""A notebook opened in JupyterLab (or Notebook 7) in Chromium: Run All, the kernel idle,
its cells' state, what went wrong, a screenshot of the whole notebook. The same page
scripts serve the site (browsing.site), whose JupyterLite has Lab's shell API.

    notebook = open_notebook("notebooks/01_deux_tours.ipynb")   # the fixture: a Notebook
    assert failures(run_all(notebook), notebook) == []
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from browsing import ARTIFACTS
from browsing.chromium import LOCAL, RUN_TIMEOUT_MS, VIEWPORT, Browser
from browsing.labs import LabFolder

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")

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
# The notebook at `path` open, its session's kernel made, and the notebook in front (the
# shell's current widget, which every other script here reads). Found by its path, not as the
# current widget: that one follows the focus, and it was seen empty in CI, the notebook open
# and its kernel idle (why is not known); so it is brought to the front here, as a click on
# its tab would.
READY = """(path) => {
  const app = window.jupyterapp;
  const panel = app && Array.from(app.shell.widgets('main')).find(
    (widget) => widget.context && widget.context.path === path);
  const session = panel && panel.sessionContext && panel.sessionContext.session;
  if (!(session && session.kernel)) return false;
  if (app.shell.currentWidget !== panel) app.shell.activateById(panel.id);
  return app.shell.currentWidget === panel;
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


def opening(lab: LabFolder, browser: Browser) -> Iterator[Any]:
    """open_notebook('notebooks/x.ipynb', ui='lab'|'notebook7') -> Notebook, for any Lab;
    each test starts the course afresh (no earlier answer); its kernels shut down after."""
    pages: list[Any] = []
    browser.external.clear()
    lab.forget_progress()

    def open_(path: str, ui: str = "lab") -> Notebook:
        page = browser.context.new_page()
        pages.append(page)
        # WebSockets escape context.route: record those that leave too.
        page.on("websocket", lambda ws: None if urlsplit(ws.url).hostname in LOCAL
                else browser.external.append(ws.url))
        page.goto(lab.address(path, ui))
        page.wait_for_function(READY, arg=lab.path(path))
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


def switch_theme(page: Any, theme: str) -> None:
    """Lab's theme changed as Settings > Theme changes it (the command saves the setting,
    then Lab loads the theme's sheet and says so on <body>), e.g. "JupyterLab Dark"."""
    page.evaluate("(theme) => window.jupyterapp.commands.execute('apputils:change-theme', "
                  "{ theme })", theme)
    page.wait_for_function("(theme) => document.body.dataset.jpThemeName === theme", arg=theme)


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
