"""The browser tests' helpers: JupyterLab and the course's site driven in Debian's headless
Chromium by Playwright. tests/ is on sys.path, so this package is `browsing`:

- lab_server: a JupyterLab server (127.0.0.1, a free port, a token, its own settings, the
  checkout's Lab plugin);
- labs: one test module's copy of the notebooks in a shared Lab, or a Lab of its own;
- chromium: Chromium's path and flags, loopback only, and the Lab tests' browser;
- notebook: a notebook opened in Lab, Run All, idle, its cells' state, a screenshot;
- drawings: diagrams, players and send()'s figures drawn, counted from the source;
- players, player_checks: a player read on screen, and stepped as a learner would;
- exercises: a question answered, cells run one by one;
- reopening: a notebook reopened without its kernel (Lab and the site);
- site: the built JupyterLite site, served, opened in a profile of its own;
- axe: axe-core's WCAG 2.2 AA check of the course's outputs;
- lab_plugin: the course's JupyterLab plugin checked in a page (Lab, Notebook 7, the site);
- fixtures: the pytest fixtures (browser, lab, open_notebook, site, served…), a plugin
  loaded by tests/conftest.py.

    from browsing.notebook import run_all, failures   # in a test module
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent  # the checkout
ARTIFACTS = ROOT / "tests" / "artifacts"  # screenshots and dumps, git-ignored: look at them
