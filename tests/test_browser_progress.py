"""Answers that persist, in JupyterLab in headless Chromium (issue 34): two questions of 04
answered (one wrong, one right), the kernel restarted (the next day), the cells run again:
each question shows the earlier answer and its feedback, 04's first cell and 00's map say
what was done; « Recommencer » starts a question over.

The Lab (this module's folder in the session's shared Lab: the kernels keep their progress
file beside the notebooks, this module's own), the browser and the notebook opener are
tests/browsing/'s fixtures; each test starts with no progress file (`opening`).
"""

from __future__ import annotations

from typing import Any

import pytest
from browsing.axe import AXE, axe_violations
from browsing.exercises import answer, cell_index, open_exercise, output, plain, run_cells
from browsing.notebook import IDLE

from harness_lib.course.lessons.course_map import NOTEBOOKS

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

FOUR = "04_boucle_complete.ipynb"
RESTART = """async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  await panel.sessionContext.session.kernel.restart();
}"""


def test_answers_come_back_after_a_restart_and_the_map_says_so(open_notebook: Any) -> None:
    notebook, [bill, calls] = open_exercise(open_notebook, FOUR, "04-facture", "04-appels")
    assert answer(bill, "432 000").startswith("✘")
    assert answer(calls, "4").startswith("✔")
    restart = bill.locator(".harness-restart")
    sync_api.expect(restart).to_be_visible()
    sync_api.expect(restart).to_have_text("Recommencer")

    notebook.page.evaluate(RESTART)  # the next day: a new kernel, nothing in memory
    notebook.page.wait_for_function(IDLE)
    first = cell_index(FOUR, r"harness_lib")
    indexes = [cell_index(FOUR, rf'^question\("04-{n}"\)') for n in ("facture", "appels")]
    run_cells(notebook, first, *indexes)
    assert "questions justes : 1 sur 3 ; reste : 1 question à revoir, 1 question." \
        in output(notebook, first)
    sync_api.expect(bill.locator(".harness-answer input")).to_have_value("432 000")
    sync_api.expect(calls.locator(".harness-answer input")).to_have_value("4")
    for cell, mark in ((bill, "✘"), (calls, "✔")):
        feedback = cell.locator(".harness-feedback")
        sync_api.expect(feedback).to_contain_text("Votre réponse enregistrée")
        sync_api.expect(feedback).to_contain_text(mark)

    if AXE.exists():  # the questions shown again, « Recommencer » in view: WCAG 2.2 AA
        assert axe_violations(notebook) == []
    bill.scroll_into_view_if_needed()
    restart.click()  # « Recommencer »: the answer forgotten, the field empty
    sync_api.expect(bill.locator(".harness-feedback")).to_have_text("")
    sync_api.expect(bill.locator(".harness-answer input")).to_have_value("")
    sync_api.expect(restart).to_be_hidden()

    welcome = open_notebook("notebooks/00_bienvenue.ipynb")
    at = cell_index("00_bienvenue.ipynb", r"^progression\(\)")
    run_cells(welcome, cell_index("00_bienvenue.ipynb", r"harness_lib"), at)
    table = welcome.cell(at).locator(".harness-course-map")
    sync_api.expect(table).to_contain_text("04 La boucle complète")
    shown = plain(table.text_content() or "")
    assert "questions justes : 1 sur 3 ; reste : 2 questions." in shown, shown
    rows = table.locator("th[scope=row]").count()
    assert table.locator("caption").count() == 1 and rows == len(NOTEBOOKS), rows
    if AXE.exists():  # the map is text in a table with headers; its contrast, WCAG 2.2 AA
        table.scroll_into_view_if_needed()
        assert axe_violations(welcome) == []
