"""How long a learner waits for the JupyterLite site's kernel: first load, then reloads.

    python3 site/build.py build/site && .venv/bin/python bench/site.py build/site [--reloads 3]

The built site is served as plain files on 127.0.0.1 (python -m http.server, as README
says), every other host blocked. Headless Chromium (Debian's) with a fresh profile opens the
site's address (it goes on to 00) and the clock runs, in the page, from the navigation's
start (performance.timeOrigin) to the notebook's kernel idle for the first time: Pyodide
loaded, the wheels of the lock installed, IPython started. Then the same page is reloaded
`--reloads` times (the site's service worker answers from its cache: site/offline.js). A
third figure: the first cell (`import harness_lib.course` and the toggle) run after the
kernel is ready. Targets: first load <= 10 s, reload <= 3 s (on a 2-core machine, issue 38). Prints
one line per measure with PASS/MISS, the load average and the date; exits 1 on a MISS. Also
counted, at each load: the kernel worker's look-ups on the drive until the kernel is idle (each
a synchronous request that the page answers: site/kernel_start.py `drive_after_imports`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser test's Chromium settings

from browsing.chromium import CHROMIUM, NO_OTHER_HOST, leaves_loopback  # noqa: E402
from browsing.lab_server import free_port  # noqa: E402

TARGETS = {"first load": 10.0, "reload": 3.0}  # seconds to the kernel idle (issue 38)
# Seconds since the navigation started, once the open notebook's kernel is idle (else null).
KERNEL_READY = """() => {
  const app = window.jupyterapp, panel = app && app.shell.currentWidget ;
  const kernel = panel && panel.sessionContext && panel.sessionContext.session
                 && panel.sessionContext.session.kernel ;
  return kernel && kernel.status === 'idle' ? performance.now() / 1000 : null ;
}"""
# In every document of the page, before its scripts: the drive requests the site's service worker
# passes to the page (JupyterLite's "/sw-api.v1" channel), counted.
COUNT_DRIVE = """(() => {
  const channel = new BroadcastChannel('/sw-api.v1');
  window.__driveAsks = 0;
  channel.onmessage = (e) => { if (String((e.data || {}).pathname).includes('/api/drive'))
    window.__driveAsks += 1; }; })()"""
FIRST_CELL = """async () => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const start = performance.now();
  await kernel.requestExecute({code: 'from harness_lib.course import toggle\\ntoggle()'}).done;
  return (performance.now() - start) / 1000;
}"""


def serve(site: Path) -> tuple[subprocess.Popen[bytes], str]:
    """The site as static files on a free loopback port, once it answers."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", "-b", "127.0.0.1", "-d",
                               str(site), str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return server, url
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("bench/site.py : le serveur ne répond pas")


def kernel_ready(page: Any) -> float:
    """Seconds from the navigation's start to the kernel idle."""
    return float(page.wait_for_function(KERNEL_READY, timeout=300_000).json_value())


def measure(url: str, reloads: int) -> dict[str, list[float]]:
    from playwright import sync_api

    found: dict[str, list[float]] = {"first load": [], "reload": [], "first cell": [],
                                     "drive look-ups": []}
    external: list[str] = []
    with tempfile.TemporaryDirectory() as profile, sync_api.sync_playwright() as playwright:
        # No context.route: it would bypass the site's service worker, which answers reloads.
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), args=NO_OTHER_HOST)

        def note(request: Any) -> None:
            if leaves_loopback(request.url):
                external.append(request.url)

        context.on("request", note)
        context.add_init_script(COUNT_DRIVE)
        page = context.new_page()
        page.goto(f"{url}/")
        found["first load"].append(kernel_ready(page))
        found["drive look-ups"].append(page.evaluate("window.__driveAsks"))
        found["first cell"].append(float(page.evaluate(FIRST_CELL)))
        for _ in range(reloads):
            page.reload()
            found["reload"].append(kernel_ready(page))
            found["drive look-ups"].append(page.evaluate("window.__driveAsks"))
        context.close()
    if external:
        raise SystemExit(f"bench/site.py : requêtes hors de 127.0.0.1 : {external[:3]}")
    return found


def report(found: dict[str, list[float]]) -> bool:
    """One line per measure; True if every target is met."""
    ok = True
    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} cores")
    for name, runs in found.items():
        median = statistics.median(runs)
        target = TARGETS.get(name)
        verdict = "" if target is None else "PASS" if median <= target else "MISS"
        ok = ok and verdict != "MISS"
        unit = "" if name == "drive look-ups" else " s"
        runs_text = ", ".join(f"{r:.1f}" if unit else str(r) for r in runs)
        goal = f"target <= {target:g} s" if target else "no target"
        print(f"{name:12} median {median:5.1f}{unit}  ({runs_text})  {goal} {verdict}")
    return ok


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site (python3 site/build.py OUT)")
    parser.add_argument("--reloads", type=int, default=3)
    args = parser.parse_args(argv)
    server, url = serve(args.site)
    try:
        return 0 if report(measure(url, args.reloads)) else 1
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
