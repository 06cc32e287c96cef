"""The course's tasks, and the example workspaces they run in (copied fresh each time).

>>> root = example_workspace("mini")  # a new temporary folder
>>> sorted(p.name for p in root.iterdir())[:2], workspace_for(PRICE_TASK)
(['README.md', 'harness.py'], 'prix')
"""

from __future__ import annotations

import shutil
import tempfile
from importlib import resources
from pathlib import Path

README_TASK = "Lis README.md et résume le projet"
PRICE_TASK = "Corrige formatPrice pour les montants négatifs"
WAIT_TASK = "Attends que fini.txt apparaisse, puis résume-le"
QUESTION = "Quel message va manquer dans messages[], et qui devait l’ajouter ?"
WORKSPACES = ("mini", "docs", "prix", "attente")


def example_workspace(name: str, dest: str | Path | None = None) -> Path:
    """A fresh copy of a bundled example folder (the package's copy is never touched), without
    the bytecode an install may have put in it: the learner's `ls` shows the project only."""
    if name not in WORKSPACES:
        raise ValueError(
            f"espace d’exemple inconnu : {name!r} (au choix : {', '.join(WORKSPACES)})"
        )
    target = Path(dest) if dest else Path(tempfile.mkdtemp(prefix=f"harness-{name}-"))
    data = resources.files("harness_lib.course") / "data"
    with resources.as_file(data / "workspaces" / name) as src:
        shutil.copytree(src, target, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return target


def workspace_for(task: str) -> str:
    """The bundled example that fits a mission (the price shop for formatPrice)."""
    return "prix" if "price" in task.lower() else "mini"
