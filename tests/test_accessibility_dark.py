"""The course's widgets under JupyterLab's dark theme (docs/accessibility.md): axe-core
(WCAG 2.2 AA, color-contrast among them) on the course's outputs of 01, 04 and 07 after
Run All, every panel open and every player on its last step, in a Lab whose theme is
« JupyterLab Dark » (its settings). The course's sheets take Lab's theme variables or
dark values of their own: a widget keeps its contrast whatever theme the learner picks.

axe-core comes from npm into build/axe (git-ignored; `.ci/run` installs it):
    npm install --no-save --prefix build/axe axe-core@4.14.1
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browsing import ARTIFACTS
from browsing.axe import AXE, axe_violations, everything_open, opened
from browsing.labs import LabFolder, lab_with

pytestmark = pytest.mark.browser

DARK = "JupyterLab Dark"
# Looked at (tests/artifacts/a11y-dark-*.png): the first of each.
SHOWN = {"controls": ".harness-controls", "diagram": ".harness-diagram",
         "figure": ".harness-figure", "question": ".harness-exercise"}


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabFolder]:
    """A Lab of its own in the dark theme, every cell laid out (test_accessibility.py's
    `lab`): a theme is the whole server's setting."""
    yield from lab_with(tmp_path_factory.mktemp("a11y-dark"),
                        {"apputils-extension/themes": {"theme": DARK}})


@pytest.mark.parametrize("stem", ["01_deux_tours", "04_boucle_complete", "07_dans_le_code"])
def test_axe_finds_no_contrast_violation_in_the_dark_theme(open_notebook: Any,
                                                           stem: str) -> None:
    if not AXE.exists():
        pytest.skip(f"axe-core absent ({AXE}) : npm install --no-save --prefix build/axe "
                    "axe-core@4.14.1")
    notebook = opened(open_notebook, stem)
    page = notebook.page
    assert page.evaluate("() => document.body.dataset.jpThemeName") == DARK
    assert page.evaluate("() => document.body.dataset.jpThemeLight") == "false"
    everything_open(notebook)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, selector in SHOWN.items():
        widget = notebook.panel.locator(selector).first
        if widget.count():
            widget.scroll_into_view_if_needed()
            widget.screenshot(path=str(ARTIFACTS / f"a11y-dark-{stem}-{name}.png"))
    violations = axe_violations(notebook)
    assert violations == [], "\n".join(violations)
