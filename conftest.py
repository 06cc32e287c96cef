"""Make the notebooks' kernels find harness_lib even in a checkout that was not installed.

nbval starts a fresh kernel per notebook; kernels do not inherit pytest's sys.path,
but they do inherit the environment.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

ROOT = str(Path(__file__).parent.resolve())
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)

# A test run never writes a learner's progress file (progression.json) beside the notebooks:
# the kernels nbval starts, and every test, keep theirs in a temporary folder.
os.environ.setdefault("HARNESS_PROGRESSION", os.path.join(
    tempfile.mkdtemp(prefix="harness-progression-"), "progression.json"))
