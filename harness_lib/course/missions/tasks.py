"""The course's tasks, and the example workspaces they run in (copied fresh each time).

A copy made in a temporary folder lasts as long as the Python that made it (the notebook's
kernel, the command line): a learner looks into it while the kernel runs; it is removed
when the kernel ends or restarts, so that /tmp does not keep a copy of every run.

>>> root = example_workspace("mini")  # a new temporary folder
>>> sorted(p.name for p in root.iterdir())[:2], workspace_for(PRICE_TASK)
(['README.md', 'harness.py'], 'prix')
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from importlib import resources
from pathlib import Path

README_TASK = "Lis README.md et résume le projet"
PRICE_TASK = "Corrige formatPrice pour les montants négatifs"
WAIT_TASK = "Attends que fini.txt apparaisse, puis résume-le"
QUESTION = "Quel message va manquer dans messages[], et qui devait l’ajouter ?"
WORKSPACES = ("mini", "docs", "prix", "attente")
_MADE: list[Path] = []  # the temporary copies this Python made, removed when it ends


def example_workspace(name: str, dest: str | Path | None = None) -> Path:
    """A fresh copy of a bundled example folder (the package's copy is never touched), without
    the bytecode an install may have put in it: the learner's `ls` shows the project only."""
    if name not in WORKSPACES:
        raise ValueError(
            f"espace d’exemple inconnu : {name!r} (au choix : {', '.join(WORKSPACES)})"
        )
    target = Path(dest) if dest else _temporary(f"harness-{name}-")
    data = resources.files("harness_lib.course") / "data"
    with resources.as_file(data / "workspaces" / name) as src:
        shutil.copytree(src, target, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return target


def workspace_for(task: str) -> str:
    """The bundled example that fits a mission (the price shop for formatPrice)."""
    return "prix" if "price" in task.lower() else "mini"


def _temporary(prefix: str) -> Path:
    """A new folder in the system's temporary one, removed when this Python ends."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    if not _MADE:
        atexit.register(_remove_made, os.getpid())
    _MADE.append(folder)
    return folder


def _remove_made(owner: int) -> None:
    if os.getpid() == owner:  # not in a child that a fork gave a copy of the list
        for folder in _MADE:
            shutil.rmtree(folder, ignore_errors=True)
