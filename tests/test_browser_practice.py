"""The hands-on cells in a real browser: a learner edits, runs, and sees the effect.

In JupyterLab (headless Chromium, the fixtures of test_browser.py): in notebook 02 the
learner breaks RULE 2 in the ✏️ messages[] cell and sees the API's refusal, the
conversation drawn with the refused message framed and its field named, and the target
« une demande sans résultat » ticked; in notebook 08 the learner deletes the RULE 1 line
of their loop and reads the grader's French explanation; in notebook 05 the approval
panel shows each action in full and asks for each one. Screenshots of each cell, at
1280 and 800 px wide, go to tests/artifacts/practice-*.png.
"""

from __future__ import annotations

import base64
import re
from typing import Any
from urllib.parse import unquote

import pytest
from test_browser import (  # noqa: F401  (lab and browser are fixtures open_notebook uses)
    ARTIFACTS,
    IDLE,
    VIEWPORT,
    Notebook,
    browser,
    failures,
    kernel_errors,
    lab,
    open_notebook,
    run_all,
    sync_api,
)

pytestmark = pytest.mark.browser

EDITABLE = "# ✏️"
# The source of a Mermaid <img>: Lab draws the diagram as an SVG data URL.
SVG_TEXT = """(img) => img.src"""


def cell_index(cells: list[dict[str, Any]], start: str, contains: str = "") -> int:
    """The index of the code cell whose source starts with `start` (and holds `contains`)."""
    return next(c["index"] for c in cells
                if c["source"].startswith(start) and contains in c["source"])


def type_into(notebook: Notebook, index: int, source: str) -> None:
    """Replace the cell's text as a learner would (select all, type), then Maj+Entrée."""
    notebook.cell(index).locator(".cm-content").click()
    notebook.page.keyboard.press("Control+a")
    notebook.page.keyboard.insert_text(source)  # no key events: no auto-closed brackets
    notebook.page.keyboard.press("Shift+Enter")
    notebook.page.wait_for_function(IDLE)


def svg(image: Any) -> str:
    """The text of a diagram drawn by Lab (its <img> holds an SVG data URL)."""
    src = image.evaluate(SVG_TEXT)
    head, _, body = src.partition(",")
    return base64.b64decode(body).decode("utf-8") if "base64" in head else unquote(body)


def shots(notebook: Notebook, element: Any, name: str) -> None:
    """The element at 1280 and at 800 px wide: tests/artifacts/practice-NAME-WIDTH.png.

    The window is made taller than the element, so that Lab draws all of it at once.
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width in (1280, 800):
        notebook.page.set_viewport_size({"width": width, "height": VIEWPORT["height"]})
        height = element.bounding_box()["height"]
        notebook.page.set_viewport_size({"width": width, "height": int(min(height + 400, 8000))})
        element.scroll_into_view_if_needed()
        notebook.page.wait_for_function(IDLE)
        element.screenshot(path=str(ARTIFACTS / f"practice-{name}-{width}.png"))
    notebook.page.set_viewport_size(VIEWPORT)


def test_02_breaking_rule_2_marks_the_message_and_ticks_a_target(open_notebook: Any) -> None:
    notebook = open_notebook("notebooks/02_deux_regles.ipynb")
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    index = cell_index(cells, EDITABLE, "send(messages)")
    source = next(c["source"] for c in cells if c["index"] == index)
    tool_line = next(line for line in source.splitlines() if '"role": "tool"' in line)
    type_into(notebook, index, source.replace(tool_line + "\n", ""))  # RULE 2 broken
    cell = notebook.cell(index)
    sync_api.expect(cell).to_contain_text("did not have response messages: call_1")
    sync_api.expect(cell).to_contain_text("HTTP 400")
    # The list under the provider's text: message 2 written out, marked, its field named.
    sync_api.expect(cell.locator("mark").first).to_contain_text('"role": "assistant"')
    sync_api.expect(cell).to_contain_text("[2] ✘ messages[2].role")
    # The diagram: drawn (not refused by Mermaid), message 2 framed with its note.
    image = cell.locator(".jp-RenderedMermaid img")
    sync_api.expect(image).to_have_count(1)
    assert cell.locator(".jp-RenderedMermaid.jp-mod-warning").count() == 0
    drawn = svg(image)
    assert "messages[2].role" in drawn and "[2] assistant" in drawn
    assert re.search(r"rgba\(229, ?57, ?53", drawn), "le message refusé n'est pas encadré"
    # The target ticks itself, in the ✏️ cell's own view of the list.
    ticked = cell.locator(".harness-targets li", has_text="did not have response messages")
    sync_api.expect(ticked).to_contain_text("✔")
    sync_api.expect(cell.locator(".harness-targets")).to_contain_text("2 / 6 cibles atteintes.")
    shots(notebook, cell, "02-regle-2")
    assert kernel_errors(notebook) == []


def test_08_the_grader_explains_a_loop_without_rule_1(open_notebook: Any) -> None:
    notebook = open_notebook("notebooks/08_ecrire_la_boucle.ipynb")
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    index = cell_index(cells, EDITABLE, "def ma_boucle")
    cell = notebook.cell(index)
    sync_api.expect(cell.locator(".harness-grader")).to_contain_text("4 / 4 missions réussies.")
    source = next(c["source"] for c in cells if c["index"] == index)
    rule_1 = next(line for line in source.splitlines() if "# RULE 1" in line)
    type_into(notebook, index, source.replace(rule_1 + "\n", ""))
    grader = cell.locator(".harness-grader")
    sync_api.expect(grader).to_contain_text("0 / 4 missions réussies.")
    sync_api.expect(grader).to_contain_text("Appel 2 refusé par l'API")
    sync_api.expect(grader).to_contain_text("must be a response to a preceeding message")
    sync_api.expect(grader).to_contain_text("RULE 1 manque")
    sync_api.expect(grader).to_contain_text("messages.append(reponse.message)")
    shots(notebook, cell, "08-sans-regle-1")
    assert kernel_errors(notebook) == []


def test_05_approval_shows_and_decides_each_action(open_notebook: Any) -> None:
    notebook = open_notebook("notebooks/05_conditions_arret.ipynb")
    cells = run_all(notebook)
    assert failures(cells, notebook) == []
    panel = notebook.panel.locator(".harness-approval")
    sync_api.expect(panel).to_contain_text("Action 1 : validation humaine nécessaire")
    sync_api.expect(panel).to_contain_text("edit_file")
    sync_api.expect(panel).not_to_contain_text("bash")
    shots(notebook, panel, "05-action-1")
    panel.get_by_role("button", name="Autoriser cette action").click()
    # Allowing edit_file did not allow bash: the command is shown, whole, and waits.
    sync_api.expect(panel).to_contain_text("Action 2 : validation humaine nécessaire")
    sync_api.expect(panel).to_contain_text("python -m unittest test_price")
    sync_api.expect(panel).to_contain_text("✔ autorisé : action 1")
    notebook.page.wait_for_function(IDLE)
    shots(notebook, panel, "05-action-2")
    panel.get_by_role("button", name="Refuser cette action").click()
    sync_api.expect(panel).to_contain_text("Vos décisions : edit_file autorisé, bash refusé.")
    sync_api.expect(panel.get_by_role("button", name="Refuser cette action")).to_be_hidden()
    notebook.page.wait_for_function(IDLE)
    shots(notebook, panel, "05-fin")
    assert kernel_errors(notebook) == []
