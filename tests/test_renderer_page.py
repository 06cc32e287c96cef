"""renderer.js alone, in a bare Chromium page (no Lab): Mermaid is installed in a hidden
page of its own, sandboxed, and every drawing comes back from it by message; a library
that cannot be installed is said, not waited for."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from harness_lib.course.player.renderer import library_bytes

pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")

RENDERER = Path(__file__).parents[1] / "harness_lib" / "course" / "player" / "renderer.js"

# anywidget's part, played by the test: the module's `initialize` with a model whose
# `source` is the library's bytes (a DataView, as anywidget gives a Bytes trait).
INSTALL = """async ([code, library]) => {
  const url = URL.createObjectURL(new Blob([code], {type: 'text/javascript'}));
  const renderer = (await import(url)).default;
  const bytes = Uint8Array.from(atob(library), (c) => c.charCodeAt(0));
  renderer.initialize({model: {get: () => new DataView(bytes.buffer)}});
  const drawer = await globalThis.__harnessDrawer.ready;
  const frame = document.querySelector('iframe');
  return {failed: drawer.failed || null, sandbox: frame.getAttribute('sandbox'),
          hidden: frame.getAttribute('aria-hidden'), tabIndex: frame.tabIndex,
          reachable: frame.contentDocument !== null, pageMermaid: typeof window.mermaid};
}"""
DRAW = "async (text) => (await globalThis.__harnessDrawer.ready).draw(text)"
DIAGRAM = ("sequenceDiagram\n  accTitle: Deux messages\n  Harness->>Modèle: messages[]\n"
           "  Modèle-->>Harness: réponse")


def installed(browser: Any, library: bytes) -> tuple[Any, dict[str, Any]]:
    page = browser.context.new_page()
    page.set_content('<!doctype html><html lang="fr"><body></body></html>')
    found = page.evaluate(INSTALL, [RENDERER.read_text("utf-8"),
                                    base64.b64encode(library).decode("ascii")])
    return page, found


def test_mermaid_draws_in_a_sandboxed_page_of_its_own(browser: Any) -> None:
    page, found = installed(browser, library_bytes())
    assert found["failed"] is None
    # Scripts only: an origin of its own, which the notebook's page cannot reach into.
    assert (found["sandbox"], found["reachable"]) == ("allow-scripts", False)
    assert (found["hidden"], found["tabIndex"]) == ("true", -1)  # not heard, not focused
    assert found["pageMermaid"] == "undefined"  # the page's own globals left alone
    figure = page.evaluate(DRAW, DIAGRAM)
    svg = figure["svg"]
    assert svg.startswith("<svg") and 'xmlns="http://www.w3.org/2000/svg"' in svg
    assert "messages[]" in svg and figure["title"] == "Deux messages"
    assert figure["width"] > 100
    # A text Mermaid refuses: its message comes back, and the next drawing still comes.
    refused = page.evaluate(DRAW, "sequenceDiagram\n  Harness->>")
    assert refused.get("error") and "svg" not in refused
    assert page.evaluate(DRAW, DIAGRAM.replace("réponse", "fin"))["svg"].count("fin") >= 1
    page.close()


def test_a_library_that_cannot_be_installed_is_said(browser: Any) -> None:
    page, found = installed(browser, b"ceci n'est pas du gzip")
    assert found["failed"], "les lecteurs doivent dire « Dessin impossible : … »"
    page.close()
