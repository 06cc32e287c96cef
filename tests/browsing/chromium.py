"""Debian's headless Chromium for the browser tests and benchmarks (never `playwright
install`), kept on this machine: the Lab tests' browser aborts and records every request
for another host; the site's (browsing.site) resolves no other host name.

    with lab_browser(playwright) as browser:   # browser.context, browser.external
        page = browser.context.new_page()
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CHROMIUM = Path("/usr/bin/chromium")  # Debian's; never `playwright install`
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"]
LOCAL = {"127.0.0.1", "localhost", "::1"}
# For the JupyterLite site (test_site.py, bench/site.py): no host name resolves, so no other
# host is reached. Not context.route there: Playwright bypasses service workers when it routes.
NO_OTHER_HOST = [*CHROMIUM_ARGS, "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
VIEWPORT = {"width": 1280, "height": 900}
WIDTHS = (1280, 800)  # a laptop, and a narrow window (or a zoomed page)
TIMEOUT_MS = 60_000  # any single wait; a whole notebook run gets RUN_TIMEOUT_MS
RUN_TIMEOUT_MS = 240_000


def leaves_loopback(url: str) -> bool:
    """A request for another host than this machine (data: and blob: URLs stay in the page)."""
    return not url.startswith(("data:", "blob:")) and (urlsplit(url).hostname or "") not in LOCAL


@dataclass
class Browser:
    context: Any
    external: list[str] = field(default_factory=list)  # requests aborted, this test
    seen: set[str] = field(default_factory=set)  # every host aborted, the whole module


@contextmanager
def lab_browser(playwright: Any) -> Iterator[Browser]:
    """Chromium with one context: every request for another host is aborted and recorded."""
    chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    context = chromium.new_context(viewport=VIEWPORT)
    context.set_default_timeout(TIMEOUT_MS)
    state = Browser(context)

    def route(route: Any) -> None:
        host = urlsplit(route.request.url).hostname or ""
        if host in LOCAL or route.request.url.startswith(("data:", "blob:", "file:")):
            route.continue_()
        else:
            state.external.append(route.request.url)
            state.seen.add(host)
            route.abort()

    context.route("**/*", route)
    try:
        yield state
    finally:
        chromium.close()
