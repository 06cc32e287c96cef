"""The four tools of the course's workspaces: read_file, list_files, edit_file and bash.

`workspace_tools(root)` builds them, each confined to the folder `root` (workspace.py);
bash runs in its OS sandbox where one can start (shell.py, sandbox.py), or in this
Python in the browser (browser.py). Each is a `Tool` (tool.py): a name, a French
description, the JSON schema of its arguments, and the function run_tool calls.

>>> import tempfile
>>> [tool.name for tool in workspace_tools(tempfile.mkdtemp())]
['read_file', 'list_files', 'edit_file', 'bash']
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .tool import Tool
from .workspace import Workspace


def workspace_tools(root: str | Path) -> list[Tool]:
    """read_file, list_files, edit_file and bash, all confined to the folder `root`."""
    ws = Workspace(root)
    path = {"path": "Chemin relatif au dossier de travail, par exemple README.md"}
    return [
        Tool("read_file", "Lit un fichier texte du dossier de travail.",
             _strings(path), ws.read_text),
        Tool("list_files", "Liste un dossier (2 niveaux) ; les dossiers finissent par /.",
             _strings({}, {"path": "Dossier relatif, « . » par défaut"}),
             ws.listing),
        Tool("edit_file", "Remplace dans un fichier un passage exact et unique.",
             _strings({**path, "old": "Passage exact à remplacer, unique dans le fichier",
                       "new": "Texte qui le remplace"}), ws.edit),
        Tool("bash", "Exécute une commande bash dans le dossier de travail (durée limitée).",
             _strings({"command": "La commande, par exemple : pytest -q"}),
             _bash(ws.root), timed=True, sandboxed=True),
    ]


def _bash(root: Path) -> Callable[..., str]:
    """bash, run in `root`. shell.py is imported by the first command only: it loads
    subprocess and threading, which `import harness_lib` does not need."""

    def bash(command: str, timeout: float, network: bool) -> str:
        if sys.platform == "emscripten":  # in the browser (Pyodide): no process, see browser.py
            from .browser import run

            return run(command, root, timeout)  # no network there: nothing to keep or cut
        from . import shell

        return shell.run(command, root, timeout, network=network)

    return bash


def _strings(required: dict[str, str], optional: dict[str, str] | None = None) -> dict[str, Any]:
    """JSON schema of an object of string fields (field name -> description)."""
    fields = {**required, **(optional or {})}
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": text}
                       for name, text in fields.items()},
        "required": list(required),
        "additionalProperties": False,
    }
