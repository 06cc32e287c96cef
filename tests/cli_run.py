"""The course's command line in a real subprocess (`python -m harness_lib`), for
tests/test_cli.py and test_classe.py: no stdin, the test's environment plus `env`.

    done = cli("demo", "normal")   # done.returncode, done.stdout, done.stderr
"""

from __future__ import annotations

import os
import subprocess
import sys


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness_lib", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
