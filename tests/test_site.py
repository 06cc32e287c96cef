"""The course's JupyterLite site (site/build.py) in headless Chromium: every notebook, 00 to
08 and the annex, run top to bottom in the browser (Pyodide), nothing behind it but static
files served on 127.0.0.1, every other host blocked.

Each notebook: Run All without an error, its Mermaid diagrams and players drawn, each
player stepped with « Suivante » and « Précédente », the toggle on the mock model; 00 is
opened from the site's address, as a learner would; in 01 an exercise is answered; every
file the notebook asked of the site is one the worker caches (so it works offline too).
The real model: OpenRouterModel in the site's kernel against a real server on another port
of 127.0.0.1 (another origin, as OpenRouter is): the browser makes the request, a server too
slow is cut at the call's timeout; the toggle on the real model, a key typed in, says that
the tab calls OpenRouter and shows no key. One browser profile for the whole module: Pyodide
and the wheels are fetched by the first notebook, then come from the site's worker's cache.

Offline: with a profile of its own, 00 opened from the site's address until the service
worker (site/offline.js) has the whole site in its cache; then the server is stopped, and
00 reloaded and 04 run as above, with no host behind them. Republished: one file changed and
the worker written again (site/build.py `write_worker`), the next visit fetches that file
only, the others copied from the previous build's cache.

The site: $HARNESS_SITE if set (.ci/run builds it first, then exports it), else build/site
if `python3 site/build.py build/site` made it; skipped otherwise (tests stay offline).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
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
from jupyter_lab import CHROMIUM, NO_OTHER_HOST, ROOT, free_port, leaves_loopback
from test_browser import (
    ARTIFACTS,
    CELLS,
    IDLE,
    LISTEN,
    NOTEBOOKS,
    PLAYER,
    READY,
    RUN_ALL,
    RUN_TIMEOUT_MS,
    STATUS,
    TIMEOUT_MS,
    VIEWPORT,
    Notebook,
    check_player,
    check_toggle_is_mock,
    failures,
    kernel_errors,
    mermaid_fences,
    screenshot,
    wait_for_diagrams,
    wait_for_drawings,
    wait_for_players,
)
from test_browser_exercises import answer, cell_index, run_cells

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")
pytestmark = [pytest.mark.browser, pytest.mark.site]

KERNEL_MS = 180_000  # the first kernel fetches Pyodide and the wheels (about 45 MB)


@pytest.fixture(scope="module")
def site() -> Path:
    """The built site: $HARNESS_SITE (.ci/run sets it), else build/site if it was built.

    Not built here: building reaches the package registries, and tests stay offline."""
    given = os.environ.get("HARNESS_SITE")
    folder = Path(given) if given else ROOT / "build" / "site"
    if given:
        assert (folder / "index.html").exists(), f"HARNESS_SITE={given} : pas de site construit"
    elif not (folder / "index.html").exists():
        pytest.skip("pas de site construit : python3 site/build.py build/site (CI le fait)")
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


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site, served for the whole module."""
    server, url = serve(site)
    yield url
    server.terminate()
    server.wait(10)


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    """One Playwright for the module (its sync API runs once per thread)."""
    with sync_api.sync_playwright() as running:
        yield running


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


@pytest.fixture(scope="module")
def context(playwright: Any,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Traffic]]:
    """One Chromium profile for the module: the site's worker keeps Pyodide and the wheels."""
    with chromium(playwright, tmp_path_factory.mktemp("profile")) as found:
        yield found


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


def open_in_site(context: Any, url: str, name: str) -> Notebook:
    """00 from the site's address (as on a first visit, it opens on 00), the others from
    the site."""
    path = f"notebooks/{name}"
    page = context.new_page()
    if name.startswith("00"):
        page.add_init_script(FORGET_LAST)  # in each document this page loads, first
        page.goto(f"{url}/")
    else:
        page.goto(f"{url}/lab/index.html?reset")
        page.wait_for_function(CAN_OPEN, timeout=KERNEL_MS)
        page.evaluate(OPEN, path)
    page.wait_for_function(READY, arg=path, timeout=KERNEL_MS)
    page.wait_for_function(KERNEL_IDLE, arg=path, timeout=KERNEL_MS)
    page.evaluate(LISTEN)
    panel = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
    return Notebook(page, f"site-{name}", page.locator(f"[id='{panel}']"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_course_notebook_in_the_site(context: tuple[Any, Traffic], served: str, site: Path,
                                     path: Path) -> None:
    browser, traffic = context
    traffic.external.clear()
    traffic.paths.clear()  # this notebook's own requests
    run_and_check(open_in_site(browser, served, path.name), path, traffic.external)
    assert not_precached(traffic.paths, served, site) == [], "hors ligne, ils manqueraient"


# What the site's worker leaves to JupyterLite's (site/offline.js LEFT_TO_JUPYTERLITE); the
# worker's own scripts, which the browser fetches itself to check for a new build; and the
# icon Chromium asks for at the site's root now and then (seen once in CI, after 00's run):
# the site has none there, JupyterLab's page names its own (lab/favicon.ico).
NOT_CACHED = ("/api/drive", "/api/stdin/", "/api/service-worker-heartbeat", "/service-worker.js",
              "/jupyterlite-service-worker.js", "/favicon.ico")


def not_precached(urls: set[str], served: str, site: Path) -> list[str]:
    """The site's paths asked for that the build did not list for the worker's cache."""
    listed = set(built_list(site)["files"])
    paths = [url.removeprefix(served) for url in urls if url.startswith(served + "/")]
    return sorted(path for path in paths if not path.startswith(NOT_CACHED)
                  and (path + "index.html" if path.endswith("/") else path)[1:] not in listed)


def built_list(site: Path) -> dict[str, Any]:
    """The list the build wrote into the worker: {version, files: {path: hash}}."""
    written = SITE_LINE.search((site / "service-worker.js").read_text(encoding="utf-8"))
    assert written, "service-worker.js sans la liste des fichiers (site/build.py)"
    return dict(json.loads(written.group(1)))


def run_and_check(notebook: Notebook, path: Path, external: list[str], suffix: str = "") -> None:
    """Run All, then: no cell failed, diagrams and players drawn, players step, the toggle on
    the mock model, in 01 an exercise answered, no kernel error, no request off 127.0.0.1."""
    try:
        notebook.page.evaluate(RUN_ALL)
        notebook.page.wait_for_function(IDLE, timeout=RUN_TIMEOUT_MS)
        problems = failures(notebook.page.evaluate(CELLS), notebook)
        players = wait_for_players(notebook, path)
        wait_for_diagrams(notebook, mermaid_fences(path))
        shot = screenshot(notebook, suffix)
        assert problems == [], f"{path.name} : {problems} (capture : {shot})"
        wait_for_drawings(notebook, mermaid_fences(path) + players.count(), shot)
        for i in range(players.count()):
            check_player(notebook.panel.locator(PLAYER).nth(i), clicks=2, keys=False)
        check_toggle_is_mock(notebook)
        if path.name.startswith("01"):  # one exercise, answered as a learner would
            cell = notebook.cell(cell_index(path.name, r'^question\("01-inconnu-etape-5"\)'))
            assert answer(cell, 3).startswith("✔"), "la bonne réponse est reconnue"
        notebook.page.wait_for_function(IDLE)
        assert kernel_errors(notebook) == [], "erreurs du noyau (rappels de widgets ?)"
        assert external == [], f"requêtes hors de 127.0.0.1 : {external}"
    finally:
        notebook.page.close()


# Offline. The list the build wrote into the worker (`const SITE = {...};`), and, in the page,
# whether this build's cache holds every file of it yet (the worker fills it in the background).
SITE_LINE = re.compile(r"^const SITE = (\{.*\}); ", re.MULTILINE)
# Each file is kept under its URL and its hash (site/offline.js, `stored`).
PRECACHED = """async ([name, wanted]) => {
  if (!(await caches.has(name))) return false;
  const cache = await caches.open(name);
  const have = new Set((await cache.keys()).map((request) => request.url));
  return Object.entries(wanted).every(([file, hash]) =>
    have.has(`${new URL(file, location.origin + '/').href}?cours=${hash}`));
}"""
OFFLINE_NOTEBOOK = ROOT / "notebooks" / "04_boucle_complete.ipynb"  # players, bash, tests


def wait_until_precached(page: Any, cache: str, files: dict[str, str]) -> None:
    """Polled from Python: wait_for_function does not await a predicate's promise."""
    deadline = time.monotonic() + KERNEL_MS / 1000
    while not page.evaluate(PRECACHED, [cache, files]):
        assert time.monotonic() < deadline, f"{cache} : le site n'est pas en cache"
        page.wait_for_timeout(1000)


def test_site_works_offline_after_the_first_visit(playwright: Any, site: Path,
                                                  tmp_path: Path) -> None:
    built = built_list(site)
    server, url = serve(site)
    try:
        with chromium(playwright, tmp_path / "profile") as (browser, traffic):
            first = open_in_site(browser, url, NOTEBOOKS[0].name)
            wait_until_precached(first.page, f"cours-{built['version']}", built["files"])
            server.terminate()  # no host at all from here on
            server.wait(10)
            with pytest.raises(OSError):
                urllib.request.urlopen(url, timeout=2)
            first.page.reload()  # the kernel starts again, from the cache only
            path = f"notebooks/{NOTEBOOKS[0].name}"
            first.page.wait_for_function(READY, arg=path, timeout=KERNEL_MS)
            first.page.wait_for_function(KERNEL_IDLE, arg=path, timeout=KERNEL_MS)
            first.page.close()
            notebook = open_in_site(browser, url, OFFLINE_NOTEBOOK.name)
            run_and_check(notebook, OFFLINE_NOTEBOOK, traffic.external, suffix="-hors-ligne")
    finally:
        server.terminate()
        server.wait(10)


def build_module() -> Any:
    """site/build.py as a module (not `import build`: a package of that name may exist)."""
    import importlib.util

    sys.path.insert(0, str(ROOT / "site"))
    spec = importlib.util.spec_from_file_location("site_build", ROOT / "site" / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REQUESTED = re.compile(r'"GET (/[^ ?]*)[^ ]* HTTP')  # http.server's log line, query left out
UPDATE = "() => navigator.serviceWorker.getRegistration().then((r) => r.update())"
READ = "(path) => fetch(path).then((response) => response.text())"
OLD_CACHE_GONE = "(name) => caches.has(name).then((has) => !has)"


def test_a_new_build_fetches_only_the_files_it_changed(playwright: Any, site: Path,
                                                       tmp_path: Path) -> None:
    """A course republished with one file changed: a learner's next visit takes that file
    from the host, and every other from the previous build's cache."""
    copy, log = tmp_path / "site", tmp_path / "requests.log"
    subprocess.run(["cp", "-r", str(site), str(copy)], check=True)
    before = built_list(copy)
    server, url = serve(copy, log)
    try:
        with chromium(playwright, tmp_path / "profile") as (browser, _):
            page = open_in_site(browser, url, NOTEBOOKS[0].name).page
            wait_until_precached(page, f"cours-{before['version']}", before["files"])
            changed = "files/harness_lib/loop.py"
            with (copy / changed).open("a", encoding="utf-8") as source:
                source.write("# nouvelle version du cours\n")
            build_module().write_worker(copy)  # what the build does last
            after = built_list(copy)
            assert after["version"] != before["version"]
            assert {k for k in after["files"] if after["files"][k] != before["files"][k]} == {
                changed}
            seen = len(log.read_text().splitlines())
            page.evaluate(UPDATE)
            wait_until_precached(page, f"cours-{after['version']}", after["files"])
            page.wait_for_function(OLD_CACHE_GONE, arg=f"cours-{before['version']}",
                                   timeout=KERNEL_MS)
            fetched = REQUESTED.findall("\n".join(log.read_text().splitlines()[seen:]))
            # The browser checks the worker, then takes the one file. The script the worker
            # imports is checked too, but through the HTTP cache (updateViaCache "imports",
            # the default): it reaches the server only when that cache let it go.
            assert {"/service-worker.js", f"/{changed}"} <= set(fetched) <= {
                "/service-worker.js", "/jupyterlite-service-worker.js", f"/{changed}"}, fetched
            assert page.evaluate(READ, f"/{changed}").endswith("# nouvelle version du cours\n")
    finally:
        server.terminate()
        server.wait(10)


KEY = "sk-or-v1-cle-factice-de-test"
# Python run in the site's kernel: one answer, then one that comes too late for its timeout.
CALLS = """
from harness_lib.errors import ModelTimeout
from harness_lib.models.openrouter import OpenRouterModel
model = OpenRouterModel("fake/model", api_key="{key}", base_url="{url}")
salut = [{{"role": "user", "content": "Salut"}}]
print("réponse :", model.complete(salut, tools=[]).message["content"])
try:
    model.complete(salut, tools=[], timeout=1.0)
except ModelTimeout as late:
    print("délai :", late.explication)
"""
# The kernel's output for `code` (streams and tracebacks), outside any cell.
RUN_CODE = """async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const out = [];
  const future = kernel.requestExecute({code});
  future.onIOPub = (msg) => {
    if (msg.content.text) out.push(msg.content.text);
    if (msg.content.traceback) out.push(msg.content.traceback.join('\\n'));
  };
  await future.done;
  return out.join('');
}"""


def test_the_real_model_answers_in_the_browser(context: tuple[Any, Traffic],
                                               served: str) -> None:
    from fake_server import FakeServer, text_reply

    notebook = open_in_site(context[0], served, NOTEBOOKS[0].name)
    try:
        with FakeServer() as fake:
            fake.push(text_reply("Bonjour depuis le navigateur"))
            fake.push(text_reply("trop tard"), delay=5)
            out = notebook.page.evaluate(RUN_CODE, CALLS.format(key=KEY, url=fake.url))
            asked = fake.chat_requests
        assert "réponse : Bonjour depuis le navigateur" in out, out
        assert "délai : " in out and "1 s" in out, out
        # The browser made the request: the page's origin, and the key it was handed.
        assert asked[0].headers["origin"] == served
        assert asked[0].headers["authorization"] == f"Bearer {KEY}"
        check_real_toggle(notebook)
    finally:
        notebook.page.close()


def check_real_toggle(notebook: Notebook) -> None:
    """00's toggle on the real model, a key typed in as a learner would: the status says
    the tab calls OpenRouter, and the key is nowhere in the page."""
    name = NOTEBOOKS[0].name
    shown = cell_index(name, r"^toggle\(\)")
    run_cells(notebook, cell_index(name, r"^from harness_lib.course import .*toggle"), shown)
    cell = notebook.cell(shown)
    cell.locator(".harness-toggle button", has_text="Vrai modèle").click()
    key = cell.locator("input[type=password]")
    key.fill(KEY)
    key.press("Enter")
    status = cell.locator(STATUS)
    sync_api.expect(status).to_contain_text(f"clé reçue ({len(KEY)} caractères)")
    sync_api.expect(status).to_contain_text("c’est cet onglet qui appelle OpenRouter")
    assert KEY not in notebook.page.content()
    cell.scroll_into_view_if_needed()
    cell.screenshot(path=str(ARTIFACTS / "site-vrai-modele.png"))  # to read, as a learner would


COMPLETE = """async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const reply = await kernel.requestComplete({code, cursor_pos: code.length});
  return reply.content.matches;
}"""


def test_completion_in_the_site(context: tuple[Any, Traffic], served: str) -> None:
    """Tab completes in the browser: jedi, with the standard library's stubs it kept
    (site/kernel_start.py leaves the others out)."""
    notebook = open_in_site(context[0], served, NOTEBOOKS[0].name)
    try:
        assert "upper" in notebook.page.evaluate(COMPLETE, '"abc".upp')
        assert "dumps" in notebook.page.evaluate(COMPLETE, "import json\njson.du")
    finally:
        notebook.page.close()
