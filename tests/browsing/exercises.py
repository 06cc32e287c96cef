"""The course's questions answered in the page as a learner would, and cells run one by
one (Maj+Entrée, by index: a cell whose source is hidden runs too). Works in Lab and in the
site.

    notebook, [cell] = open_exercise(open_notebook, "06_react.ipynb", "06-docs")
    assert answer(cell, 2).startswith("✔")
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from browsing import ROOT
from browsing.notebook import IDLE

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")

# Run one cell like Maj+Entrée: by its index, so a cell whose source is hidden runs too.
RUN_CELL = """async (index) => {
  const app = window.jupyterapp, panel = app.shell.currentWidget;
  await panel.context.ready;
  await panel.sessionContext.ready;
  app.shell.collapseLeft();
  panel.content.activeCellIndex = index;
  await app.commands.execute('notebook:run-cell');
}"""
CHANGED = "([element, old]) => element.textContent !== old"  # exactly: no whitespace folding


def plain(text: str) -> str:
    """Text as read, without French typography: no-break spaces as spaces, ’ as '."""
    text = text.replace("\u00a0", " ").replace("\u202f", " ").replace("’", "'")
    return " ".join(text.split())


def cell_index(notebook: str, pattern: str) -> int:
    cells = json.loads((ROOT / "notebooks" / notebook).read_text(encoding="utf-8"))["cells"]
    return next(i for i, c in enumerate(cells) if c["cell_type"] == "code"
                and re.search(pattern, "".join(c["source"]), re.M))


def run_cells(notebook: Any, *indexes: int) -> None:
    for index in indexes:
        notebook.page.evaluate(RUN_CELL, index)
        notebook.page.wait_for_function(IDLE)


def open_exercise(opener: Any, name: str, *questions: str) -> tuple[Any, list[Any]]:
    """Open `name`, run its imports and the cells that ask `questions`: (notebook, cells)."""
    notebook = opener(f"notebooks/{name}")
    indexes = [cell_index(name, rf'^question\("{q}"\)') for q in questions]
    run_cells(notebook, cell_index(name, r"harness_lib"), *indexes)
    cells = [notebook.panel.locator(".jp-Cell").nth(i) for i in indexes]
    for cell in cells:
        sync_api.expect(cell.locator(".harness-exercise")).to_be_visible()
    return notebook, cells


def answer(cell: Any, value: Any) -> str:
    """Choose or type `value`, click « Vérifier », return the feedback once it changed."""
    feedback = cell.locator(".harness-feedback")
    before = feedback.text_content()
    if isinstance(value, int):
        cell.locator(".harness-answer label").nth(value).click()
    else:
        cell.locator(".harness-answer input").fill(value)
    cell.locator(".harness-check").click()
    cell.page.wait_for_function(CHANGED, arg=[feedback.element_handle(), before])
    cell.page.wait_for_function(IDLE)
    return plain(feedback.inner_text())


def output(notebook: Any, index: int) -> str:
    return plain(" ".join(notebook.cell(index).locator(".jp-OutputArea-output").all_inner_texts()))
