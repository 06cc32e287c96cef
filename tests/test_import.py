"""`import harness_lib` has no side effect: no printing, and none of the heavy imports
(httpx, ipywidgets, mermaid-py, requests) until they are used."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
import harness_lib
heavy = ('httpx', 'ipywidgets', 'IPython', 'mermaid', 'requests')
heavy = sorted(m for m in sys.modules if m.split('.')[0] in heavy)
print(heavy)
"""


def test_import_is_quiet_and_light():
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]" and done.stderr == ""


def test_public_api_is_explicit():
    import harness_lib

    for name in harness_lib.__all__:
        assert getattr(harness_lib, name) is not None
    assert len(set(harness_lib.__all__)) == len(harness_lib.__all__)
