"""A notebook reopened, as a learner finds it the next day: JupyterLab in headless Chromium.

Notebook 03 (a player, send()'s diagrams, questions, the toggle, « jouez le harness »)
runs whole, is saved, its kernel shut down (as a server restart leaves it), and is
opened again in a fresh workspace. Before anything runs: every widget that cannot come
back (« Error displaying widget: model not found ») is followed by the French note that
says what to do; no Mermaid source shows anywhere; every static copy (a player's, a
send()'s) is drawn, with its text version. Then a later cell run first, in that new
kernel, says in French which cell to run below its NameError (the kernel config the
package installs, tests/browsing/lab_server.py `kernel_config`). Screenshots, 1280
and 800 px wide, go to tests/artifacts/reouvert-*.png.

The Lab (this module's folder in the session's shared Lab), the browser and the notebook
opener are tests/browsing/'s fixtures; the checks of a reopened notebook are
tests/browsing/reopening.py's, shared with tests/test_site_reopen.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from browsing.chromium import RUN_TIMEOUT_MS, WIDTHS
from browsing.drawings import wait_for_players
from browsing.labs import LabFolder
from browsing.notebook import Notebook, failures, run_all, screenshot
from browsing.reopening import (
    ALL_DRAWN,
    DEAD,
    LIVE,
    NOTES,
    REOPENED,
    SAVE,
    SHUT_DOWN,
    check_later_cell_first,
    check_reopened,
    shown,
)

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser


def test_a_notebook_reopened_the_next_day_in_lab(lab: LabFolder, open_notebook: Any) -> None:
    path = f"notebooks/{REOPENED.name}"
    notebook = open_notebook(path)
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    wait_for_players(notebook, REOPENED)
    live = shown(notebook)
    assert live["dead"] == [] and all(not c["visible"] for c in live["copies"])  # live: hidden
    assert not notebook.page.evaluate(NOTES, 1)  # every note hidden below its live widget
    widgets = notebook.panel.locator(LIVE).count()
    notebook.page.evaluate(SAVE)
    notebook.page.evaluate(SHUT_DOWN)  # as a server restarted overnight leaves it
    page = notebook.page
    page.goto(lab.address(path))
    page.wait_for_function(DEAD, arg=widgets, timeout=RUN_TIMEOUT_MS)
    panel = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
    reopened = Notebook(page, "reouvert-lab", page.locator(f"[id='{panel}']"))
    # Lab trusts the notebook it saved: static.js draws each copy, its text version folded.
    page.wait_for_function(ALL_DRAWN, timeout=RUN_TIMEOUT_MS)
    found = shown(reopened)
    check_reopened(found, widgets)
    assert all(c["drawn"] >= 1 and c["undrawn"] == 0 for c in found["copies"]), found["copies"]
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        screenshot(reopened, f"-{width}")
    check_later_cell_first(reopened)
    check_untrusted(lab, reopened, path, widgets)


def check_untrusted(lab: LabFolder, notebook: Notebook, path: str, widgets: int) -> None:
    """The same notebook changed elsewhere (its signature no longer matches): Lab runs none
    of its scripts, and shows each widget's text (widgets are no safe output). The notes
    still show; each copy's Mermaid text stays hidden and its text version is open."""
    import nbformat

    nb = nbformat.read(lab.root / path, as_version=4)
    assert "widgets" not in nb.metadata  # Lab saved no widget state: the notes need none
    nb.metadata["modifie_ailleurs"] = True
    nbformat.write(nb, lab.root / path)  # unsigned
    page = notebook.page
    page.evaluate(SHUT_DOWN)
    page.goto(lab.address(path))
    page.wait_for_function(NOTES, arg=widgets, timeout=RUN_TIMEOUT_MS)
    found = shown(notebook)
    assert found["leaks"] == [], "du Mermaid brut est visible"
    assert found["copies"] and all(c["visible"] and c["drawn"] == 0 and c["textOpen"]
                                   and c["text"] > 0 for c in found["copies"]), found["copies"]
    screenshot(Notebook(page, "reouvert-lab-non-fiable", page.locator(".jp-NotebookPanel")))


