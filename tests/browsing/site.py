"""The course's JupyterLite site in Chromium: the built site found, served as plain files
on 127.0.0.1, a Chromium with a profile of its own that resolves no other host, and a
notebook opened in the site as a learner would.

    server, url = serve(built_site())
    with chromium(playwright, profile) as (browser, traffic):
        notebook = open_in_site(browser, url, "01_deux_tours.ipynb")
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from browsing import ARTIFACTS, ROOT
from browsing.chromium import CHROMIUM, NO_OTHER_HOST, TIMEOUT_MS, VIEWPORT, leaves_loopback
from browsing.lab_server import free_port
from browsing.notebook import LISTEN, READY, Notebook, sync_api

KERNEL_MS = 180_000  # the first kernel fetches Pyodide and the wheels (about 45 MB)


def built_site() -> Path:
    """The built site: $HARNESS_SITE (.ci/run sets it), else build/site if it was built.

    Not built here: building reaches the package registries, and tests stay offline."""
    given = os.environ.get("HARNESS_SITE")
    folder = Path(given) if given else ROOT / "build" / "site"
    if given:
        assert (folder / "index.html").exists(), f"HARNESS_SITE={given} : pas de site construit"
    elif not (folder / "index.html").exists():
        pytest.skip("pas de site construit : python3 site/build.py build/site (CI le fait)")
    return folder


def serve(site: Path, log: Path | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """The site served as plain files, as README says (python3 -m http.server -d OUT), once
    it answers; its log of requests in `log` if given."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", "-b", "127.0.0.1", "-d",
                               str(site), str(port)], stdout=subprocess.DEVNULL,
                              stderr=log.open("wb") if log else subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return server, url
        except OSError:
            assert time.monotonic() < deadline and server.poll() is None, "serveur absent"
            time.sleep(0.2)


@dataclass
class Traffic:
    """What the pages asked: URLs of other hosts (none is reached), and the URLs they GET on
    this machine, without their query (the site's worker must have each of the site's in its
    cache, for the course to work offline)."""

    external: list[str] = field(default_factory=list)
    paths: set[str] = field(default_factory=set)


@contextlib.contextmanager
def chromium(playwright: Any, profile: Path) -> Iterator[tuple[Any, Traffic]]:
    """Chromium with a profile of its own (its caches), loopback only (NO_OTHER_HOST: the
    site's worker must answer, so no context.route); `Traffic` gets what it asked for."""
    traffic = Traffic()

    def note(request: Any) -> None:
        url = request.url
        if leaves_loopback(url):
            traffic.external.append(url)
        elif request.method == "GET" and url.startswith("http"):
            parts = urllib.parse.urlsplit(url)  # the query left out, as the worker does
            traffic.paths.add(f"{parts.scheme}://{parts.netloc}{urllib.parse.unquote(parts.path)}")

    browser = playwright.chromium.launch_persistent_context(
        str(profile), executable_path=str(CHROMIUM), args=NO_OTHER_HOST, viewport=VIEWPORT)
    try:
        browser.set_default_timeout(TIMEOUT_MS)
        browser.on("request", note)
        yield browser, traffic
    finally:
        browser.close()


# A notebook after the first: a fresh workspace (no tab of the previous one reopened, no
# second kernel), then the notebook opened as from the file browser.
OPEN = """(path) => window.jupyterapp.commands.execute('docmanager:open',
                                                     {path, factory: 'Notebook'})"""
CAN_OPEN = "() => !!window.jupyterapp && window.jupyterapp.commands.hasCommand('docmanager:open')"
KERNEL_IDLE = """(path) => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;
  return panel.context.path === path && !!kernel && kernel.status === 'idle';
}"""


# The notebook the learner was on, which the site's address opens (site/one-notebook.js).
FORGET_LAST = "localStorage.removeItem('harness-notebook')"


def open_in_site(context: Any, url: str, name: str, first: str | None = None) -> Notebook:
    """00 from the site's address (as on a first visit, it opens on 00), the others from
    the site; `first`: a script run in each of the page's documents before their own."""
    path = f"notebooks/{name}"
    page = context.new_page()
    page.on("console", lambda message: _said(page).append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: _said(page).append(f"pageerror: {error}"))
    if first:
        page.add_init_script(first)
    if name.startswith("00"):
        page.add_init_script(FORGET_LAST)  # in each document this page loads, first
        page.goto(f"{url}/")
    else:
        page.goto(f"{url}/lab/index.html?reset")
        _wait(page, CAN_OPEN, None, "JupyterLite démarré")
        # As a learner opens it from the file browser: once the workspace is restored. (In CI,
        # a notebook opened without this wait was once seen open but not in front; whether
        # the restore was the cause is not known.)
        page.evaluate("() => window.jupyterapp.restored")
        page.evaluate(OPEN, path)
    wait_for_kernel(page, path)
    page.evaluate(LISTEN)
    panel = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
    return Notebook(page, f"site-{name}", page.locator(f"[id='{panel}']"))


# What the page was doing when a wait ran out: the site's worker, the notebook in front, its
# kernel, the early start (site/early_kernel.py). Seen in CI: a first visit whose kernel never
# came in 180 s, with nothing else to go on; then, with this state, 04 open and its kernel
# idle, but not the shell's current widget (browsing.notebook.READY now brings it to the front).
STATE = """() => {
  const app = window.jupyterapp, panel = app && app.shell.currentWidget;
  const session = panel && panel.sessionContext && panel.sessionContext.session;
  return {url: location.href, worker: !!(navigator.serviceWorker || {}).controller,
          app: !!app, path: panel && panel.context ? panel.context.path : null,
          opened: app ? Array.from(app.shell.widgets('main')).map(
            (widget) => widget.context ? widget.context.path : widget.id) : [],
          focus: document.activeElement ? String(document.activeElement.className) : null,
          session: !!session, kernel: session && session.kernel ? session.kernel.status : null,
          shown: panel && panel.sessionContext ? panel.sessionContext.kernelDisplayStatus : null,
          early: String(globalThis.harnessEarlyStart),
          dialog: (document.querySelector('.jp-Dialog') || {}).innerText || null};
}"""


def _said(page: Any) -> list[str]:
    """The page's console lines so far (kept on the page, from open_in_site on)."""
    if not hasattr(page, "harness_console"):
        page.harness_console = []
    return page.harness_console  # type: ignore[no-any-return]


def wait_for_kernel(page: Any, path: str) -> None:
    """The notebook at `path` in front, its kernel started and idle."""
    _wait(page, READY, path, "notebook devant avec son noyau")
    _wait(page, KERNEL_IDLE, path, "noyau au repos")


def _wait(page: Any, script: str, arg: str | None, what: str) -> None:
    """page.wait_for_function, which on a timeout says what the page was doing: its state,
    its last console lines, a screenshot (tests/artifacts)."""
    try:
        page.wait_for_function(script, arg=arg, timeout=KERNEL_MS)
    except sync_api.TimeoutError:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shot = ARTIFACTS / f"site-attente-{what.replace(' ', '-')}.png"
        page.screenshot(path=str(shot))
        state = page.evaluate(STATE)
        lines = "\n".join(line[:300] for line in _said(page)[-30:])
        raise AssertionError(f"{what} : rien après {KERNEL_MS // 1000} s ({arg})\n{state}\n"
                             f"console :\n{lines}\ncapture : {shot}") from None
