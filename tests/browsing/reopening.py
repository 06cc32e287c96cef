"""A notebook reopened as a learner finds it the next day, without its kernel (Lab: a
server restarted; the site: a reload): each dead widget followed by its French note, no
Mermaid source in view, each static copy (a player's, a send()'s) drawn or its text version
open; a later cell run first names the cell to run. For tests/test_browser_reopen.py and
tests/test_site_reopen.py.

    check_reopened(shown(notebook), widgets)   # widgets: the live ones before
"""

from __future__ import annotations

from typing import Any

from browsing import ARTIFACTS, ROOT
from browsing.exercises import cell_index, plain, run_cells
from browsing.notebook import Notebook

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


def check_later_cell_first(notebook: Notebook, shot: str = "reouvert-nameerror") -> None:
    """A question's cell run first in the new kernel: its NameError names the cell to run."""
    index = cell_index(REOPENED.name, r'^question\("03-appels"\)')
    run_cells(notebook, index)
    said = plain(notebook.cell(index).locator(".jp-OutputArea-output").last.inner_text())
    assert "NameError" in said and "Ce noyau ne connaît pas encore « question »" in said, said
    assert "première cellule de code du notebook" in said and "Run › Run All Cells" in said
    notebook.cell(index).screenshot(path=str(ARTIFACTS / f"{shot}.png"))
