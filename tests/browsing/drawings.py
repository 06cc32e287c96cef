"""What a notebook draws, waited for in the page: Lab's Mermaid diagrams, the players' own
drawings (the bundled Mermaid, docs/player.md) and send()'s figures, none refused; how many
there must be is counted from the notebook's source.

    players = wait_for_players(notebook, path)   # every player the source builds, drawn
    wait_for_drawings(notebook, mermaid_fences(path) + players.count(), shot)
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

from browsing import ROOT
from browsing.notebook import Notebook

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
FENCE = re.compile(r"^```mermaid[ \t]*$", re.MULTILINE)

# How the test finds the widgets' parts: the harness-* classes that player.py, stepper.js
# and playground.py put on them, and the controls' accessible names (what a screen
# reader says, and what a learner reads), not their layout.
PLAYER = ".harness-player"  # the whole player; it takes the keys once focused
DIAGRAM = ".jp-RenderedMermaid img"
# The player's drawing: its own (stepper.js, the bundled Mermaid), not Lab's Mermaid.
PLAYER_DIAGRAM = ".harness-diagram .harness-drawing img"
# send()'s conversation diagram: drawn by the course too (player/figure.py, stepper.js).
FIGURE = ".harness-figure"
FIGURE_DIAGRAM = ".harness-figure .harness-drawing img"
REFUSED = ".jp-RenderedMermaid.jp-mod-warning, .harness-drawing.harness-refused"
DRAWN = f"{DIAGRAM}, {PLAYER_DIAGRAM}"  # every diagram drawn, by Lab and by the players


def wait_for_diagrams(notebook: Notebook, at_least: int) -> None:
    """Every Mermaid block drawn (an <img>) or refused (jp-mod-warning), and enough of them."""
    notebook.page.wait_for_function("""(n) => {
      const root = window.jupyterapp.shell.currentWidget.node;
      const blocks = [...root.querySelectorAll('.jp-RenderedMermaid')];
      const drawn = blocks.filter(b => b.querySelector('img'));
      const refused = blocks.filter(b => b.classList.contains('jp-mod-warning'));
      return drawn.length + refused.length === blocks.length && drawn.length >= n;
    }""", arg=at_least)


def wait_for_drawings(notebook: Notebook, at_least: int, shot: Path) -> None:
    """At least `at_least` diagrams drawn, by Lab and by the players, and none refused.

    Waited for, not counted once: the source gives the least number of players (a cell may
    show several: 5 cells, 7 players in 07), and a view that comes later than those shows
    « Dessin en cours… » until its drawing is decoded (seen in CI: 6 of 7 drawn)."""
    drawn = notebook.panel.locator(DRAWN)
    if at_least:
        sync_api.expect(drawn.nth(at_least - 1),
                        f"{at_least} diagrammes attendus (capture : {shot})").to_be_attached()
    refused = notebook.panel.locator(REFUSED).count()
    assert refused == 0, f"{refused} diagramme(s) Mermaid illisible(s) (capture : {shot})"


def mermaid_counts(notebook: Notebook) -> tuple[int, int]:
    """(diagrams drawn, by Lab and by the players; diagrams Mermaid refused to draw)."""
    return notebook.panel.locator(DRAWN).count(), notebook.panel.locator(REFUSED).count()


def check_figures(where: Any, at_least: int) -> None:
    """Every send() diagram in `where` (a page or a locator) drawn as a decoded image by
    the course's own widget, none refused, and at least `at_least` of them; each keeps
    its text version."""
    figures = where.locator(FIGURE)
    if at_least:
        sync_api.expect(figures.nth(at_least - 1), "un diagramme de send() manque") \
            .to_be_attached()
    for i in range(figures.count()):
        image = figures.nth(i).locator(".harness-drawing img")
        sync_api.expect(image, "un diagramme de send() non dessiné").to_be_attached()
        # A decodable SVG (not a broken image: Mermaid's SVG must be well-formed XML).
        assert image.evaluate("(img) => img.decode().then(() => img.naturalWidth)") > 0
        sync_api.expect(figures.nth(i).locator("summary")).to_have_text("Version texte")
    assert where.locator(f"{FIGURE} .harness-refused").count() == 0


def mermaid_fences(path: Path) -> int:
    nb = nbformat.read(path, as_version=4)
    return sum(len(FENCE.findall(c.source)) for c in nb.cells if c.cell_type == "markdown")


def sends(path: Path) -> bool:
    """Does a code cell call send()?"""
    nb = nbformat.read(path, as_version=4)
    return any(re.search(r"\bsend\(", c.source) for c in nb.cells if c.cell_type == "code")


def expected_players(path: Path) -> int:
    """Code cells that build a player (Player(...) or run_live(...)) show at least one each."""
    nb = nbformat.read(path, as_version=4)
    return sum(1 for c in nb.cells if c.cell_type == "code"
               and re.search(r"\b(?:Player|run_live)\(", c.source))


def wait_for_players(notebook: Notebook, path: Path) -> Any:
    """Every player the source builds is in the page, its first diagram drawn.

    Counted from the source: a player that lost its class would otherwise be skipped.
    Waited for: a widget's view may come after the kernel went idle on a loaded machine.
    In Notebook 7 the drawing also proves the player's text/markdown fence: without it
    the text/vnd.mermaid source would show as plain text."""
    players = notebook.panel.locator(PLAYER)
    if expected_players(path):
        sync_api.expect(players.nth(expected_players(path) - 1), "lecteurs introuvables") \
            .to_be_attached()
    for i in range(players.count()):
        sync_api.expect(players.nth(i).locator(PLAYER_DIAGRAM).first,
                        "un lecteur sans diagramme dessiné").to_be_attached()
    return players
