"""The course's JupyterLite site (site/build.py) in headless Chromium: every notebook, 00 to
08 and the annex, run top to bottom in the browser (Pyodide), nothing behind it but static
files served on 127.0.0.1, every other host blocked.

Each notebook: Run All without an error, its Mermaid diagrams and players drawn, each
player stepped with « Suivante » and « Précédente », the toggle on the mock model; 00 is
opened from the site's address, as a learner would; in 01 an exercise is answered; every
file the notebook asked of the site is one the worker caches (so it works offline too).
01, 03, 04, 05 and 07 are then read by axe-core as they were left, every panel open and
every player on its last step: no serious or critical WCAG 2.2 AA violation, and French on
every course widget and the Markdown (browsing.axe; skipped there without axe-core).
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
if `python3 site/build.py build/site` made it; skipped otherwise (tests stay offline). Its
server, its profile and the opener: tests/browsing/ (one server for the session's site tests).
"""

from __future__ import annotations

import re
import subprocess
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browsing import ARTIFACTS, ROOT
from browsing.axe import CHECKED, check_axe
from browsing.chromium import RUN_TIMEOUT_MS
from browsing.drawings import (
    NOTEBOOKS,
    PLAYER,
    mermaid_fences,
    wait_for_diagrams,
    wait_for_drawings,
    wait_for_players,
)
from browsing.exercises import answer, cell_index, run_cells
from browsing.lab_plugin import check_editor_styles
from browsing.notebook import (
    CELLS,
    IDLE,
    RUN_ALL,
    Notebook,
    failures,
    kernel_errors,
    screenshot,
)
from browsing.player_checks import check_player, check_toggle_is_mock
from browsing.players import STATUS
from browsing.site import KERNEL_MS, Traffic, chromium, open_in_site, serve, wait_for_kernel
from browsing.site_builds import (
    OLD_CACHE_GONE,
    UPDATE,
    build_module,
    built_list,
    wait_until_precached,
)

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")
pytestmark = [pytest.mark.browser, pytest.mark.site]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_course_notebook_in_the_site(context: tuple[Any, Traffic], served: str, site: Path,
                                     path: Path) -> None:
    browser, traffic = context
    traffic.external.clear()
    traffic.paths.clear()  # this notebook's own requests
    # Five of them are then read by axe-core as they were left (browsing.axe).
    then = check_axe if path.stem in CHECKED else None
    run_and_check(open_in_site(browser, served, path.name), path, traffic.external, then=then)
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


def run_and_check(notebook: Notebook, path: Path, external: list[str], suffix: str = "",
                  then: Callable[[Notebook], None] | None = None) -> None:
    """Run All, then: no cell failed, diagrams and players drawn, players step, the toggle on
    the mock model, in 01 an exercise answered, no kernel error, no request off 127.0.0.1;
    then `then(notebook)`, before the page is closed."""
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
        if then:
            then(notebook)
            assert external == [], f"requêtes hors de 127.0.0.1 : {external}"
    finally:
        notebook.page.close()


OFFLINE_NOTEBOOK = ROOT / "notebooks" / "04_boucle_complete.ipynb"  # players, bash, tests


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
            wait_for_kernel(first.page, path)
            first.page.close()
            notebook = open_in_site(browser, url, OFFLINE_NOTEBOOK.name)
            run_and_check(notebook, OFFLINE_NOTEBOOK, traffic.external, suffix="-hors-ligne")
    finally:
        server.terminate()
        server.wait(10)


REQUESTED = re.compile(r'"GET (/[^ ?]*)[^ ]* HTTP')  # http.server's log line, query left out
READ = "(path) => fetch(path).then((response) => response.text())"


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
    (site/kernel_start.py leaves the others out), and in a package of the kernel's zip
    (site/bundle.py)."""
    notebook = open_in_site(context[0], served, NOTEBOOKS[0].name)
    try:
        assert "upper" in notebook.page.evaluate(COMPLETE, '"abc".upp')
        assert "dumps" in notebook.page.evaluate(COMPLETE, "import json\njson.du")
        assert "HasTraits" in notebook.page.evaluate(COMPLETE, "import traitlets\ntraitlets.HasT")
    finally:
        notebook.page.close()


# The drive's requests that the site's service worker passes to the page (JupyterLite's
# "/sw-api.v1" channel), counted from the page's first script on.
COUNT_DRIVE = """(() => {
  const channel = new BroadcastChannel('/sw-api.v1');
  window.__driveAsks = [];
  channel.onmessage = (e) => {
    const asked = e.data || {};
    if (String(asked.pathname).includes('/api/drive')) window.__driveAsks.push(asked.data);
  };
})()"""
# What a cell prints, and the traceback of its error if it raises.
PRINTED = """async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  let printed = '';
  const future = kernel.requestExecute({code});
  future.onIOPub = (message) => {
    printed += message.content.text || (message.content.traceback || []).join('\\n');
  };
  await future.done;
  return printed.trim();
}"""
# The kernel's folder, and whether it used the worker's early load (site/early_kernel.py).
STARTED = "import os, js\nprint(os.getcwd(), js.harnessEarlyStart)"


def test_the_kernel_starts_early_in_the_notebooks_folder_without_asking_the_drive(
        context: tuple[Any, Traffic], served: str) -> None:
    """The kernel's worker enters the drive after its own imports (site/kernel_start.py):
    its start asks the drive for the notebook's folder only, where it asked before each of
    its 48 top-level imports, each a synchronous request the busy page had to answer. And
    it is the worker the page made at once, which loaded Pyodide while JupyterLab loaded
    (site/early_kernel.py): the kernel used that load ("refused" if its options differed)."""
    notebook = open_in_site(context[0], served, NOTEBOOKS[1].name, first=COUNT_DRIVE)
    try:
        asked = notebook.page.evaluate("window.__driveAsks")
        assert len(asked) <= 2, asked
        assert notebook.page.evaluate(PRINTED, STARTED) == "/drive/notebooks used"
    finally:
        notebook.page.close()


# Where the early start took each package from (site/bundle.py), and what they still do.
FROM_WHERE = """import json, sys, inspect, importlib.metadata, micropip, traitlets, pygments
import IPython, jedi, harness_lib.course
print(json.dumps({"last": sys.path[-1], "traitlets": importlib.metadata.version("traitlets"),
    "source": inspect.getsource(traitlets.Int.validate),
    "files": {m.__name__: m.__file__ for m in (micropip, traitlets, pygments, IPython, jedi,
                                               harness_lib.course)}}))"""
ZIP, SITE_PACKAGES = "/lib/bundled.zip", "/lib/python3.14/site-packages/"


def test_the_early_start_imports_the_bundled_packages_from_one_zip(
        context: tuple[Any, Traffic], served: str) -> None:
    """The early start wrote the zip of the packages that need no files of their own and
    appended it to sys.path: they come from it, with their metadata and their sources; the kept
    ones (harness_lib, IPython, jedi) from site-packages. A traceback through a bundled module
    shows its source lines; `%pip` installs a package of the lock whose dependencies are
    bundled."""
    import json

    notebook = open_in_site(context[0], served, NOTEBOOKS[2].name)
    try:
        found = json.loads(notebook.page.evaluate(PRINTED, FROM_WHERE))
        assert found["last"] == ZIP and found["traitlets"]
        assert found["source"].lstrip().startswith("def validate(self, obj")
        files = found["files"]
        assert all(files[name].startswith(ZIP + "/") for name in ("micropip", "traitlets",
                                                                  "pygments")), files
        assert all(files[name].startswith(SITE_PACKAGES) for name in ("IPython", "jedi",
                                                                      "harness_lib.course")), files
        shown = notebook.page.evaluate(PRINTED, "traitlets.Int().validate(None, 'x')")
        assert f"{ZIP}/traitlets/traitlets.py" in shown and "self.error(obj, value)" in shown
        notebook.page.evaluate(PRINTED, "%pip install requests")
        assert notebook.page.evaluate(PRINTED, "import requests\nprint(requests.__file__)"
                                      ).startswith(SITE_PACKAGES)
    finally:
        notebook.page.close()


def test_a_new_editor_keeps_the_site_s_style_sheet(context: tuple[Any, Traffic],
                                                   served: str) -> None:
    """The course's JupyterLab plugin (jupyter-config/labextension) is in the site too:
    tests/test_lab_plugin.py's check, in a notebook no other test of this profile opens
    after (a new cell is added, never saved)."""
    notebook = open_in_site(context[0], served, NOTEBOOKS[-1].name)
    try:
        check_editor_styles(notebook)
    finally:
        notebook.page.close()
