"""axe-core (WCAG 2.2 AA) on the course's outputs in a notebook, Lab's or the site's: every
panel open and every player on its last step first, the outputs checked a screenful at a
time in a tall window; and the course's widgets and Markdown in French. For
tests/test_accessibility.py (Lab), test_site.py (the site: the notebooks of CHECKED, after
their own checks) and test_browser_progress.py.

axe-core comes from npm into build/axe (git-ignored; `.ci/run` installs it):
    npm install --no-save --prefix build/axe axe-core@4.14.1

    check_axe(notebook)   # everything open, no serious violation, French everywhere
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from browsing import ROOT
from browsing.chromium import VIEWPORT
from browsing.drawings import PLAYER, wait_for_players
from browsing.notebook import Notebook, failures, run_all
from browsing.players import STEP

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")

AXE = ROOT / "build" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# The course's own outputs (its widgets, its HTML): Lab's own chrome is not ours.
COURSE = ".jp-Notebook .jp-OutputArea-output"
ROOTS = (".harness-player, .harness-figure, .harness-exercise, .harness-toggle, "
         ".harness-status, .harness-approval, .harness-targets-view")
# The notebooks checked in Lab (test_accessibility.py) and in the site (test_site.py).
CHECKED = ["01_deux_tours", "03_erreur_observation", "04_boucle_complete",
           "05_conditions_arret", "07_dans_le_code"]


def path_of(stem: str) -> Path:
    return ROOT / "notebooks" / f"{stem}.ipynb"


def opened(open_notebook: Any, stem: str) -> Notebook:
    """The notebook opened, run whole without a failure, its players drawn."""
    notebook = open_notebook(f"notebooks/{stem}.ipynb")
    assert not failures(run_all(notebook), notebook)
    wait_for_players(notebook, path_of(stem))
    return notebook


ABSENT = f"axe-core absent ({AXE}) : npm install --no-save --prefix build/axe axe-core@4.14.1"


def check_axe(notebook: Notebook) -> None:
    """Every panel open, every player on its last step; axe finds no serious or critical
    violation, and every course widget and the Markdown resolve to French. Without axe-core
    the test is skipped here, after whatever it checked before."""
    if not AXE.exists():
        pytest.skip(ABSENT)
    everything_open(notebook)
    violations = axe_violations(notebook)
    assert violations == [], "\n".join(violations)
    check_french(notebook)


def everything_open(notebook: Notebook) -> None:
    """Every <details> of the course open, every player on its last step (End)."""
    page = notebook.page
    page.evaluate(f"""() => document.querySelectorAll('{COURSE} details')
                              .forEach((d) => {{ d.open = true; }})""")
    players = notebook.panel.locator(PLAYER)
    for i in range(players.count()):
        player = players.nth(i)
        player.evaluate("p => p.focus()")
        page.keyboard.press("End")
        sync_api.expect(player.locator(STEP)).to_have_text(re.compile(r"^étape (\d+) sur \1\b"))
        sync_api.expect(player.locator(".harness-diagram img")).to_be_attached()


# axe measures contrast only where an element is on screen (not clipped by the notebook's
# scroller): the outputs are scrolled into a tall window and checked a screenful at a time
# (axe_run.js: 43 outputs of 07 in 19 runs, the same 393 elements passing the contrast
# check as with one run per output, and its test 11 to 26 s shorter).
AXE_RUN = (Path(__file__).parent / "axe_run.js").read_text("utf-8")


def axe_violations(notebook: Notebook) -> list[str]:
    """axe-core's serious and critical WCAG 2.2 A/AA violations in the course's outputs."""
    page = notebook.page
    page.add_script_tag(path=str(AXE))
    page.set_viewport_size({"width": VIEWPORT["width"], "height": 2400})
    # Lab's <body> is 0 px high (its shell is absolutely placed) with overflow: hidden, so
    # axe would take every static element for clipped and skip its contrast: given its
    # real height while axe looks, nothing moves on screen.
    page.evaluate("() => { document.body.style.height = '100vh'; }")
    try:
        result = page.evaluate(AXE_RUN, [COURSE, WCAG])
    finally:
        page.evaluate("() => { document.body.style.height = ''; }")
        page.set_viewport_size(VIEWPORT)
    # axe read the course: the text of its outputs passed the contrast check, node by node.
    assert result["checked"] > 2 * result["outputs"] > 0, f"axe n’a presque rien vérifié : {result}"
    return [f"{v['id']} ({v['impact']}) {v['help']} : {v['where']}" for v in result["violations"]
            if v["impact"] in ("serious", "critical")]


def check_french(notebook: Notebook) -> None:
    """Every course widget, and the Markdown around, resolves to lang="fr"."""
    langs = notebook.page.evaluate(f"""() => [...document.querySelectorAll(
        '{ROOTS}, .jp-MarkdownCell .jp-RenderedMarkdown')]
        .map((e) => [e.className, e.closest('[lang]')?.lang])""")
    assert langs, "aucun widget du cours"
    assert [x for x in langs if x[1] != "fr"] == []
