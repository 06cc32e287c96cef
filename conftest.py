"""Make the notebooks' kernels find harness_lib even in a checkout that was not installed,
and keep what they record (progression.json, its exports) out of the checkout.

With pytest-xdist (pyproject's addopts: up to four workers, `--dist loadfile`), each worker
takes a whole file at a time: a module's tests stay together (its module fixtures are made
once), a notebook's nbval cells too (they share one kernel and run in order). The browser and
site modules go first: they are the longest, and the other files fill the workers around them.

nbval starts a fresh kernel per notebook; kernels do not inherit pytest's sys.path,
but they do inherit the environment.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = str(Path(__file__).parent.resolve())
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)


def pytest_configure(config: pytest.Config) -> None:
    """A progress file for the session, in a temporary folder (tests/conftest.py gives
    each test its own): a notebook run by nbval writes nothing into notebooks/."""
    folder = Path(tempfile.mkdtemp(prefix="progression-"))
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    os.environ["HARNESS_PROGRESSION"] = str(folder / "progression.json")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser and site modules first: see the docstring (a stable sort: the order of the
    tests within a module, and of a notebook's cells, stays as it was)."""
    in_browser = {"browser", "site"}
    items.sort(key=lambda item: not in_browser & {mark.name for mark in item.iter_markers()})
