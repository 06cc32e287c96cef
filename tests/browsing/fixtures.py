"""The browser tests' fixtures, a pytest plugin (tests/conftest.py: `pytest_plugins`): a
test names them as parameters, no test module imports them. Without /usr/bin/chromium or
Playwright, a test that uses them is skipped with the reason.

- `playwright`: one Playwright per module (its sync API runs once per thread);
- `browser`: Chromium for the module's Lab tests, requests for other hosts aborted;
- `shared_lab`: one Lab server for the session; `lab`: the module's own folder in it, with
  its own copy of the notebooks (a module with its own settings defines its own `lab`:
  browsing.labs `lab_with`); `open_notebook`: open_notebook(path, ui) -> Notebook;
- `site`: the built JupyterLite site; `served`: one server of it for the session;
  `context`: one Chromium profile for the module (the site's worker keeps Pyodide).

    def test_x(open_notebook): notebook = open_notebook("notebooks/01_deux_tours.ipynb")
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browsing.chromium import CHROMIUM, TIMEOUT_MS, Browser, lab_browser
from browsing.lab_server import Lab
from browsing.labs import LabFolder, module_folder, serving


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    """One Playwright for the module (its sync API runs once per thread)."""
    if not CHROMIUM.exists():
        pytest.skip("installez chromium (apt-get install chromium) pour activer ce test")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")
    # expect() waits 5 s by default: too short for a widget view on a loaded CI machine.
    sync_api.expect.set_options(timeout=TIMEOUT_MS)
    with sync_api.sync_playwright() as running:
        yield running


@pytest.fixture(scope="module")
def browser(playwright: Any) -> Iterator[Browser]:
    with lab_browser(playwright) as state:
        yield state


@pytest.fixture(scope="session")
def shared_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """One Lab server for the session: each module works in a folder of its own."""
    with serving(tmp_path_factory.mktemp("lab")) as server:
        yield server


@pytest.fixture(scope="module")
def lab(shared_lab: Lab, request: pytest.FixtureRequest) -> LabFolder:
    """The module's folder in the shared Lab, named after the module: its own notebooks."""
    return module_folder(shared_lab, request.module.__name__)


@pytest.fixture
def open_notebook(lab: LabFolder, browser: Browser) -> Iterator[Any]:
    """open_notebook('notebooks/x.ipynb', ui='lab'|'notebook7') -> Notebook; its kernel is
    shut down after."""
    from browsing.notebook import opening

    yield from opening(lab, browser)


@pytest.fixture(scope="session")
def site() -> Path:
    """The built site: $HARNESS_SITE (.ci/run sets it), else build/site; skipped if none."""
    from browsing.site import built_site

    return built_site()


@pytest.fixture(scope="session")
def served(site: Path) -> Iterator[str]:
    """The site, served for the whole session (each module has its own browser profile)."""
    from browsing.site import serve

    server, url = serve(site)
    yield url
    server.terminate()
    server.wait(10)


@pytest.fixture(scope="module")
def context(playwright: Any,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    """One Chromium profile for the module: the site's worker keeps Pyodide and the wheels."""
    from browsing.site import chromium

    with chromium(playwright, tmp_path_factory.mktemp("profile")) as found:
        yield found
