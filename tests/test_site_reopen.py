"""Coming back to the course's site (JupyterLite) in headless Chromium: a reload, a return.

A reload: notebook 03 (a player, send()'s diagrams, questions, the toggle) runs whole and
is saved in the browser, then the page is reloaded. Before anything runs: every widget
left « Loading widget... » is followed by the French note that says what to do; no
Mermaid source shows anywhere; every static copy is drawn (the site runs the scripts of
a notebook it saved), its text version folded below; a question's cell run first says, below
its NameError, which cell to run (site/fresh-kernel.js). Screenshots, 1280 and 800 px
wide: tests/artifacts/reouvert-site-*.png.

A return: two notebooks open, the page closed, the site's address opened again: one
notebook opens (the one the learner was on) with one kernel, not every tab of the last
visit with a kernel each (site/one-notebook.js).

The site, the server, the browser profile and the opener are tests/browsing/'s; the
checks of a reopened notebook, tests/browsing/reopening.py's (shared with
tests/test_browser_reopen.py). One profile for the module.
"""

from __future__ import annotations

from typing import Any

import pytest
from browsing.chromium import RUN_TIMEOUT_MS, WIDTHS
from browsing.drawings import wait_for_players
from browsing.notebook import CELLS, IDLE, RUN_ALL, Notebook, failures, screenshot
from browsing.reopening import (
    ALL_DRAWN,
    DEAD,
    LIVE,
    REOPENED,
    SAVE,
    check_later_cell_first,
    check_reopened,
    shown,
)
from browsing.site import KERNEL_IDLE, KERNEL_MS, OPEN, open_in_site, wait_for_kernel

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = [pytest.mark.browser, pytest.mark.site]


def test_a_notebook_reloaded_in_the_site(context: Any, served: str) -> None:
    browser, _ = context
    notebook = open_in_site(browser, served, REOPENED.name)
    page = notebook.page
    try:
        page.evaluate(RUN_ALL)
        page.wait_for_function(IDLE, timeout=RUN_TIMEOUT_MS)
        assert failures(page.evaluate(CELLS), notebook) == []
        wait_for_players(notebook, REOPENED)
        widgets = notebook.panel.locator(LIVE).count()
        page.evaluate(SAVE)  # into the browser's storage
        saved = "() => window.jupyterapp.shell.currentWidget.context.model.toJSON().metadata"
        assert "widgets" not in page.evaluate(saved)  # no widget state: the notes need none
        page.reload()
        path = f"notebooks/{REOPENED.name}"
        wait_for_kernel(page, path)
        page.wait_for_function(DEAD, arg=widgets, timeout=KERNEL_MS)
        # The site runs the scripts of a notebook it saved: static.js draws each copy once
        # its widget has stayed « Loading widget... » a few seconds.
        page.wait_for_function(ALL_DRAWN, timeout=KERNEL_MS)
        panel = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
        reloaded = Notebook(page, "reouvert-site", page.locator(f"[id='{panel}']"))
        found = shown(reloaded)
        check_reopened(found, widgets)
        assert all(c["drawn"] >= 1 and c["undrawn"] == 0 and not c["textOpen"]
                   for c in found["copies"]), found["copies"]
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            screenshot(reloaded, f"-{width}")
        # A later cell run first: the page (site/fresh-kernel.js) names the cell to run
        # below the NameError, as the IPython extension does in Lab.
        check_later_cell_first(reloaded, "reouvert-site-nameerror")
    finally:
        page.close()


# Every notebook open in the page, and the kernels running (one per notebook that started).
OPENED = """() => {
  const app = window.jupyterapp;
  const notebooks = [...app.shell.widgets('main')].map((w) => w.context?.path)
    .filter((p) => p && p.endsWith('.ipynb'));
  return {notebooks, kernels: [...app.serviceManager.sessions.running()].length};
}"""


def test_the_site_opens_the_notebook_the_learner_was_on(
        context: Any, served: str) -> None:
    browser, _ = context
    first = open_in_site(browser, served, "01_deux_tours.ipynb")
    page = first.page
    path = "notebooks/02_deux_regles.ipynb"
    page.evaluate(OPEN, path)  # a second notebook, in a second tab: two kernels
    page.wait_for_function(KERNEL_IDLE, arg=path, timeout=KERNEL_MS)
    assert len(page.evaluate(OPENED)["notebooks"]) == 2
    page.close()
    again = browser.new_page()
    try:
        again.goto(f"{served}/")  # the site's address, as a learner comes back
        wait_for_kernel(again, path)
        again.evaluate("() => window.jupyterapp.restored")  # the workspace restored, if any
        assert again.evaluate(OPENED) == {"notebooks": [path], "kernels": 1}
    finally:
        again.close()
