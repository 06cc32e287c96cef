"""Course updates in the JupyterLite site (issue 34): a learner saved 04 (a note of theirs in
its first cell); the course is republished with 04 corrected (site/build.py's steps: the
notebook stamped, the versions listed, the worker written again); on the next visit the
learner opening 04 is told, in French, and « Prendre la nouvelle version » opens the
corrected one while their copy is kept, renamed, with their note.

The site is tests/browsing/'s fixture (built by site/build.py), copied: the test republishes
it, on a server and in a profile of its own.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from browsing.site import KERNEL_MS, chromium, open_in_site, serve
from browsing.site_builds import (
    OLD_CACHE_GONE,
    UPDATE,
    build_module,
    built_list,
    wait_until_precached,
)

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")
pytestmark = [pytest.mark.browser, pytest.mark.site]

FOUR = "04_boucle_complete.ipynb"
PATH = f"notebooks/{FOUR}"
NOTE = "Ma note : relire la facture."
FIX = "Phrase corrigée par la nouvelle version du cours."
# The learner's edit: a line of theirs at the top of the first cell, then « Enregistrer ».
EDIT_AND_SAVE = """async (note) => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cell = panel.content.model.cells.get(0).sharedModel;
  cell.setSource(note + "\\n\\n" + cell.getSource());
  await panel.context.save();
}"""
STORED = """async (path) => {
  const file = await window.jupyterapp.serviceManager.contents.get(path, {content: true});
  return file.content.cells[0].source;
}"""
LISTING = """async () => (await window.jupyterapp.serviceManager.contents.get('notebooks',
  {content: true})).content.map((item) => item.path)"""
FIRST_CELL = ("() => window.jupyterapp.shell.currentWidget.content.model.cells.get(0)"
              ".sharedModel.getSource()")
OPENED = """(path) => { const w = window.jupyterapp.shell.currentWidget;
  return !!w && w.context && w.context.path === path; }"""


def republish(copy: Path) -> None:
    """04 corrected, then what site/build.py does after a change: stamp, list, worker."""
    build = build_module()
    published = copy / "files" / PATH
    notebook = json.loads(published.read_text(encoding="utf-8"))
    del notebook["metadata"]["harness_version"]
    first = "".join(notebook["cells"][0]["source"])
    notebook["cells"][0]["source"] = first + "\n\n" + FIX
    published.write_text(json.dumps(notebook, ensure_ascii=False, indent=1) + "\n",
                         encoding="utf-8")
    build.stamp_version(published)
    build.list_versions(copy)
    build.write_worker(copy)


def test_a_republished_notebook_is_offered_over_a_saved_copy(playwright: Any, site: Path,
                                                             tmp_path: Path) -> None:
    copy = tmp_path / "site"
    subprocess.run(["cp", "-r", str(site), str(copy)], check=True)
    before = built_list(copy)
    server, url = serve(copy)
    try:
        with chromium(playwright, tmp_path / "profile") as (browser, _):
            mine = open_in_site(browser, url, FOUR)
            wait_until_precached(mine.page, f"cours-{before['version']}", before["files"])
            assert mine.page.locator(".harness-update").count() == 0  # the current version
            mine.page.evaluate(EDIT_AND_SAVE, NOTE)
            assert mine.page.evaluate(STORED, PATH).startswith(NOTE)

            republish(copy)
            after = built_list(copy)
            mine.page.evaluate(UPDATE)
            wait_until_precached(mine.page, f"cours-{after['version']}", after["files"])
            mine.page.wait_for_function(OLD_CACHE_GONE, arg=f"cours-{before['version']}",
                                        timeout=KERNEL_MS)
            mine.page.close()

            again = open_in_site(browser, url, FOUR)  # the next visit: their copy opens
            page = again.page
            told = page.locator(".harness-update")
            sync_api.expect(told).to_be_visible()
            sync_api.expect(told).to_have_attribute("lang", "fr")
            sync_api.expect(told).to_contain_text("a changé depuis que vous l’avez enregistré")
            assert page.evaluate(FIRST_CELL).startswith(NOTE)  # theirs, until they choose
            take = told.locator(".harness-update-take")
            take.focus()
            page.keyboard.press("Enter")  # a keyboard's « click »
            sync_api.expect(told).to_contain_text("Votre copie est gardée sous")
            page.wait_for_function(OPENED, arg=PATH, timeout=KERNEL_MS)
            page.wait_for_function(f"() => ({FIRST_CELL})().includes({json.dumps(FIX)})")
            assert not page.evaluate(FIRST_CELL).startswith(NOTE)
            kept = [p for p in page.evaluate(LISTING) if "ma version" in p]
            assert len(kept) == 1 and kept[0].startswith("notebooks/04_boucle_complete (ma version")
            assert page.evaluate(STORED, kept[0]).startswith(NOTE)  # nothing of theirs lost
            assert FIX in page.evaluate(STORED, PATH)
    finally:
        server.terminate()
        server.wait(10)
