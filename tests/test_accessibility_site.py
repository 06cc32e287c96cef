"""tests/test_accessibility.py's axe check in the course's JupyterLite site: 01, 03, 04, 05
and 07, Run All, every panel open, every player on its last step, then axe-core (WCAG 2.2
AA) on the course's outputs, and French on every course widget and the Markdown. Its own
module: the site's fixtures only (tests/browsing/fixtures.py: the session's site server, a
browser profile for the module), no Lab. Skipped when no site is built (`python3
site/build.py build/site`, or $HARNESS_SITE as in CI).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browsing.axe import AXE, CHECKED, axe_violations, check_french, everything_open, path_of
from browsing.chromium import RUN_TIMEOUT_MS
from browsing.drawings import wait_for_players
from browsing.notebook import IDLE, RUN_ALL
from browsing.site import open_in_site

pytestmark = pytest.mark.browser


# ---------------------------------------------------------------- the site (JupyterLite)

@pytest.mark.parametrize("stem", CHECKED)
def test_axe_in_the_site(playwright: Any, site: Path, served: str,
                         context: Any, stem: str) -> None:
    """A notebook in the JupyterLite site (skipped when no site is built): Run All, every panel
    open, every player on its last step; axe finds no serious or critical violation, and
    the widgets and the Markdown resolve to French."""
    if not AXE.exists():
        pytest.skip(f"axe-core absent ({AXE})")
    chromium, traffic = context
    notebook = open_in_site(chromium, served, f"{stem}.ipynb")
    try:
        notebook.page.evaluate(RUN_ALL)
        notebook.page.wait_for_function(IDLE, timeout=RUN_TIMEOUT_MS)
        wait_for_players(notebook, path_of(stem))
        everything_open(notebook)
        assert axe_violations(notebook) == []
        check_french(notebook)
        assert traffic.external == []
    finally:
        notebook.page.close()
