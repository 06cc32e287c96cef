"""The course's one JupyterLab plugin (jupyter-config/labextension), in headless Chromium:
Lab and Notebook 7 activate it, and in a notebook a new editor keeps the page's style sheet
(CodeMirror writes the same text again) while a new text still replaces it
(browsing.lab_plugin; the site's copy is checked by tests/test_site.py). Why: each write made
Chromium recompute the page's styles, about 60 times in notebook 07's Run All
(bench/README.md). Where the package installs it: tests/test_binder.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from browsing.lab_plugin import check_editor_styles

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")
pytestmark = pytest.mark.browser


@pytest.mark.parametrize("ui", ["lab", "notebook7"])
def test_a_new_editor_keeps_the_page_s_style_sheet(open_notebook: Any, ui: str) -> None:
    notebook = open_notebook("notebooks/05_conditions_arret.ipynb", ui=ui)
    check_editor_styles(notebook)
