"""Answers that persist in the JupyterLite site (issue 34): in 04, two questions answered
(one wrong, one right); the progress file is in the browser's storage beside the notebooks
(the contents the file browser lists); the page reloaded, a new kernel, the cells run
again: the earlier answers come back, and 04's first cell says what was done.

The site, its server and the browser profile are tests/browsing/'s fixtures.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from browsing.exercises import answer, cell_index, open_exercise, output, run_cells
from browsing.site import Traffic, open_in_site

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")
pytestmark = [pytest.mark.browser, pytest.mark.site]

FOUR = "04_boucle_complete.ipynb"
STORED = """async () => {
  const contents = window.jupyterapp.serviceManager.contents;
  const file = await contents.get('notebooks/progression.json', {content: true});
  if (typeof file.content !== 'string') return JSON.stringify(file.content);
  return file.format === 'base64' ? new TextDecoder().decode(
    Uint8Array.from(atob(file.content), (c) => c.charCodeAt(0))) : file.content;
}"""


def test_answers_come_back_in_the_site_after_a_reload(context: tuple[Any, Traffic],
                                                      served: str) -> None:
    browser = context[0]
    notebook, [bill, calls] = open_exercise(lambda path: open_in_site(browser, served, FOUR),
                                            FOUR, "04-facture", "04-appels")
    try:
        assert answer(bill, "432 000").startswith("✘")
        assert answer(calls, "4").startswith("✔")
        kept = json.loads(notebook.page.evaluate(STORED))  # in the browser's storage
        assert {n: i["correct"] for n, i in kept["items"].items()} == {"04-facture": False,
                                                                       "04-appels": True}
    finally:
        notebook.page.close()

    again = open_in_site(browser, served, FOUR)  # a new page, a new kernel
    try:
        first = cell_index(FOUR, r"harness_lib")
        indexes = [cell_index(FOUR, rf'^question\("04-{n}"\)') for n in ("facture", "appels")]
        run_cells(again, first, *indexes)
        assert "questions justes : 1 sur 3 ; reste : 1 question à revoir, 1 question." \
            in output(again, first)
        bill, calls = (again.cell(i) for i in indexes)
        sync_api.expect(bill.locator(".harness-answer input")).to_have_value("432 000")
        sync_api.expect(calls.locator(".harness-answer input")).to_have_value("4")
        sync_api.expect(bill.locator(".harness-feedback")).to_contain_text(
            "Votre réponse enregistrée")
    finally:
        again.page.close()
