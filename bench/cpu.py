"""Who used the cores during a measure: CPU seconds by process, read from Linux's /proc.

A notebook's « Run All » (bench/browser.py) keeps several processes busy at once on a
2-core machine: Chromium's page (the renderer: JupyterLab, the widgets, Mermaid), the
kernel (and what it started: the sandbox's bash commands, counted once it has reaped
them), the Jupyter server, Chromium's other processes, the bench itself. Their sum over
the wall time says whether the cores were full, and which side to make lighter.

>>> kind("/usr/lib/chromium/chromium --type=renderer --lang=fr")
'page'
>>> kind("/usr/bin/python3 -m ipykernel_launcher -f /tmp/kernel-1.json")
'kernel'
>>> used({1: ("kernel", 2.0)}, {1: ("kernel", 2.5), 2: ("server", 0.25)})
{'kernel': 0.5, 'server': 0.25}
"""

from __future__ import annotations

import os
from pathlib import Path

# First match wins: a renderer is a chromium process too.
KINDS = (("ipykernel", "kernel"), ("jupyterlab", "server"), ("--type=renderer", "page"),
         ("chromium", "chromium, other processes"))
Snapshot = dict[int, tuple[str, float]]


def kind(command_line: str) -> str:
    """What a process is, from its command line."""
    return next((name for needle, name in KINDS if needle in command_line), "other")


def snapshot() -> Snapshot:
    """Every process's kind and CPU seconds so far ({} where there is no /proc)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    found: Snapshot = {}
    for folder in Path("/proc").glob("[0-9]*"):
        try:
            stat = (folder / "stat").read_text()
            command = (folder / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:  # ended meanwhile
            continue
        # After the name in parentheses (which may hold spaces): utime stime cutime cstime
        # are fields 14 to 17; cutime and cstime, the children it has reaped (bash, bwrap).
        fields = stat.rsplit(")", 1)[1].split()
        seconds = sum(int(f) for f in fields[11:15]) / tick
        found[int(folder.name)] = (kind(command.decode(errors="replace")), seconds)
    return found


def used(before: Snapshot, after: Snapshot) -> dict[str, float]:
    """CPU seconds by kind between two snapshots (a process started meanwhile: all of it)."""
    spent: dict[str, float] = {}
    for pid, (name, seconds) in after.items():
        earlier = before.get(pid)
        delta = seconds - (earlier[1] if earlier and earlier[0] == name else 0.0)
        if delta > 0:
            spent[name] = round(spent.get(name, 0.0) + delta, 2)
    return dict(sorted(spent.items(), key=lambda item: -item[1]))
