"""Process helpers shared by tests that check a killed command leaves no process behind."""

from __future__ import annotations

import os
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie waiting to be reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def survivors(pids: list[int], seconds: float = 5.0) -> list[int]:
    """The processes still alive after at most `seconds` (a bounded poll, not a timing assert)."""
    deadline = time.monotonic() + seconds
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


def named(token: str) -> list[int]:
    """The processes whose command line holds `token`: how a test finds the processes of
    a sandboxed command, whose own PIDs (`$!`, `$$`) are those of its PID namespace."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if token.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue  # gone meanwhile
    return [pid for pid in found if alive(pid)]
