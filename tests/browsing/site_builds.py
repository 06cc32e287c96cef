"""The site's builds as its service worker sees them: the list of files the build wrote
into the worker, the worker's cache filled with them, and site/build.py loaded as a module
to republish a copy of the site.

    built = built_list(site)   # {version, files: {path: hash}}
    wait_until_precached(page, f"cours-{built['version']}", built["files"])
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from browsing import ROOT
from browsing.site import KERNEL_MS

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


def built_list(site: Path) -> dict[str, Any]:
    """The list the build wrote into the worker: {version, files: {path: hash}}."""
    written = SITE_LINE.search((site / "service-worker.js").read_text(encoding="utf-8"))
    assert written, "service-worker.js sans la liste des fichiers (site/build.py)"
    return dict(json.loads(written.group(1)))


def wait_until_precached(page: Any, cache: str, files: dict[str, str]) -> None:
    """Polled from Python: wait_for_function does not await a predicate's promise."""
    deadline = time.monotonic() + KERNEL_MS / 1000
    while not page.evaluate(PRECACHED, [cache, files]):
        assert time.monotonic() < deadline, f"{cache} : le site n'est pas en cache"
        page.wait_for_timeout(1000)


def build_module() -> Any:
    """site/build.py as a module (not `import build`: a package of that name may exist)."""
    import importlib.util

    sys.path.insert(0, str(ROOT / "site"))
    spec = importlib.util.spec_from_file_location("site_build", ROOT / "site" / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


UPDATE = "() => navigator.serviceWorker.getRegistration().then((r) => r.update())"
OLD_CACHE_GONE = "(name) => caches.has(name).then((has) => !has)"
