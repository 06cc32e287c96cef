"""A notebook reopened, as a learner finds it the next day: JupyterLab in headless Chromium.

Notebook 03 (a player, send()'s diagrams, questions, the toggle, « jouez le harness »)
runs whole, is saved, its kernel shut down (as a server restart leaves it), and is
opened again in a fresh workspace. Before anything runs: every widget that cannot come
back (« Error displaying widget: model not found ») is followed by the French note that
says what to do; no Mermaid source shows anywhere; every static copy (a player's, a
send()'s) is drawn, with its text version. Then a later cell run first, in that new
kernel, says in French which cell to run below its NameError (the kernel config the
package installs, tests/jupyter_lab.py `kernel_config`). Screenshots, 1280
and 800 px wide, go to tests/artifacts/reouvert-*.png.

The Lab server, the browser and the notebook opener are tests/test_browser.py's; the
same checks, in the site, are tests/test_site.py's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# The fixtures, used by name as parameters below (hence the noqa: F811 on those lines).
from test_browser import (  # noqa: F401
    ARTIFACTS,
    IDLE,
    RUN_TIMEOUT_MS,
    UI_URLS,
    WIDTHS,
    Notebook,
    browser,
    failures,
    lab,
    open_notebook,
    run_all,
    screenshot,
    wait_for_players,
)
from test_browser_exercises import cell_index, plain, run_cells

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
REOPENED = ROOT / "notebooks" / "03_erreur_observation.ipynb"
NOTE = "Ce contenu interactif a besoin de son noyau"
SAVE = "() => window.jupyterapp.commands.execute('docmanager:save')"
SHUT_DOWN = "() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()"
# What a reopened notebook shows, read in the page: each widget output left without its
# kernel (Lab's « model not found », the site's « Loading widget... ») and the note after
# it if that one is visible; the visible texts that hold Mermaid source (none may); each
# static copy: visible, its drawings, its undrawn Mermaid blocks, its text version open.
# Text as in the DOM (textContent): Lab leaves cells out of view unlaid (innerText "").
MERMAID_SOURCE = ["sequenceDiagram", "%% ctx:", "%% note:", "flowchart LR"]
SHOWN = """(words) => {
  const root = window.jupyterapp.shell.currentWidget.node;
  const dead = [...root.querySelectorAll('.jp-OutputArea-output')].filter((o) =>
    /^(Loading widget\\.\\.\\.|Error displaying widget)/.test(o.textContent.trim()));
  const notes = dead.map((o) => {
    const note = o.closest('.jp-OutputArea-child').nextElementSibling
      ?.querySelector('.harness-reopen');
    return note && note.checkVisibility() ? note.textContent : '';
  });
  const leaks = [], walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const where = n.parentElement;
    if (words.some((w) => n.data.includes(w)) && where.checkVisibility()
        && !where.closest('.jp-InputArea')) leaks.push(`${where.tagName}: ${n.data.slice(0, 80)}`);
  }
  const copies = [...root.querySelectorAll('.harness-static:not(.harness-reopen)')].map((c) => ({
    visible: c.checkVisibility(),
    drawn: [...c.querySelectorAll('img.harness-static-drawing')]
      .filter((img) => img.complete && img.naturalWidth > 0).length,
    undrawn: c.querySelectorAll('pre.harness-mermaid').length,
    textOpen: !!c.querySelector('details[open]'),
    text: c.querySelector('details pre')?.textContent.length ?? 0,
  }));
  return {dead: dead.map((o) => o.textContent.trim()), notes, leaks, copies};
}"""
# Until the widget manager has given up on at least `n` widgets (the site's never does).
DEAD = """(n) => {
  const root = window.jupyterapp?.shell.currentWidget?.node;
  return !!root && [...root.querySelectorAll('.jp-OutputArea-output')].filter((o) =>
    /^(Loading widget|Error displaying widget)/.test(o.textContent.trim())).length >= n;
}"""
# Every static copy drawn by static.js, its text version folded.
ALL_DRAWN = """() => {
  const copies = [...document.querySelectorAll('.harness-static:not(.harness-reopen)')];
  return copies.length > 0 && copies.every((c) =>
    !c.querySelector('pre.harness-mermaid') && !c.querySelector('details[open]'));
}"""
NOTES = """(n) => [...document.querySelectorAll('.jp-NotebookPanel .harness-reopen')]
  .filter((note) => note.checkVisibility()).length >= n"""
LIVE = ".jp-OutputArea-child:has(> .jp-OutputArea-output > .lm-Widget)"  # as renderer.css


def shown(notebook: Notebook) -> dict[str, Any]:
    return notebook.page.evaluate(SHOWN, MERMAID_SOURCE)


def check_reopened(found: dict[str, Any], widgets: int) -> None:
    """Each dead widget has its note; no Mermaid source is visible; each copy readable."""
    assert len(found["dead"]) >= widgets, found["dead"]
    assert all(NOTE in note and "Run › Run All Cells" in note for note in found["notes"]), \
        list(zip(found["dead"], found["notes"], strict=True))
    assert found["leaks"] == [], "du Mermaid brut est visible"
    assert found["copies"] and all(c["visible"] and c["text"] > 0 for c in found["copies"])


def test_a_notebook_reopened_the_next_day_in_lab(lab: Any, open_notebook: Any) -> None:  # noqa: F811
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
    page.goto(f"{lab.url}/{UI_URLS['lab'].format(path=path)}token={lab.token}")
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


def check_untrusted(lab: Any, notebook: Notebook, path: str, widgets: int) -> None:  # noqa: F811
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
    page.goto(f"{lab.url}/{UI_URLS['lab'].format(path=path)}token={lab.token}")
    page.wait_for_function(NOTES, arg=widgets, timeout=RUN_TIMEOUT_MS)
    found = shown(notebook)
    assert found["leaks"] == [], "du Mermaid brut est visible"
    assert found["copies"] and all(c["visible"] and c["drawn"] == 0 and c["textOpen"]
                                   and c["text"] > 0 for c in found["copies"]), found["copies"]
    screenshot(Notebook(page, "reouvert-lab-non-fiable", page.locator(".jp-NotebookPanel")))


def check_later_cell_first(notebook: Notebook, shot: str = "reouvert-nameerror") -> None:
    """A question's cell run first in the new kernel: its NameError names the cell to run."""
    index = cell_index(REOPENED.name, r'^question\("03-appels"\)')
    run_cells(notebook, index)
    said = plain(notebook.cell(index).locator(".jp-OutputArea-output").last.inner_text())
    assert "NameError" in said and "Ce noyau ne connaît pas encore « question »" in said, said
    assert "première cellule de code du notebook" in said and "Run › Run All Cells" in said
    notebook.cell(index).screenshot(path=str(ARTIFACTS / f"{shot}.png"))
