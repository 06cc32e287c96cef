"""Make the notebooks' kernels find harness_lib even in a checkout that was not installed,
and keep what they record (progression.json, its exports) out of the checkout.

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
