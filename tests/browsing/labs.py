"""The Labs the browser tests open notebooks in. One Lab server is shared by the test
modules that need no settings of their own (browsing.fixtures `shared_lab`); each module
works in its own folder under the server's root, on its own copy of the notebooks:
Lab autosaves what a test edits, and each kernel keeps its progress file beside its
notebook (no $HARNESS_PROGRESSION, browsing.lab_server `lab_environ`), so a module sees
only its own answers. A module that needs other settings (no windowing, an extension
off) starts a Lab of its own (`serving`, `lab_with`): its folder is the root.

    folder = module_folder(server, "test_browser")   # server.root / "test_browser"
    folder.address("notebooks/01_deux_tours.ipynb")   # its URL in Lab, with the token
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from browsing import ROOT
from browsing.lab_server import Lab, running_lab

# reset: a fresh workspace, or Lab would reopen the previous test's notebooks too.
# Notebook 7, served by the same server, shows one notebook a page, with Lab's shell
# API (window.jupyterapp.shell.currentWidget) and DOM classes: the same checks apply.
UI_URLS = {"lab": "lab/tree/{path}?reset&", "notebook7": "notebooks/{path}?"}


@dataclass(frozen=True)
class LabFolder:
    """A test module's folder in a Lab: `name` under the server's root ("": the root)."""

    server: Lab
    name: str = ""

    @property
    def root(self) -> Path:
        return self.server.root / self.name if self.name else self.server.root

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def token(self) -> str:
        return self.server.token

    def path(self, path: str) -> str:
        """`path` (in this folder) as Lab names it, from the server's root."""
        return f"{self.name}/{path}" if self.name else path

    def address(self, path: str, ui: str = "lab") -> str:
        """The URL that opens `path` in Lab (or in Notebook 7: ui="notebook7")."""
        return f"{self.url}/{UI_URLS[ui].format(path=self.path(path))}token={self.token}"

    def forget_progress(self) -> None:
        """No earlier answer: the kernels' progress files in this folder's notebooks deleted."""
        for progress in self.root.glob("*/progression.json"):
            progress.unlink()


def copy_course(folder: Path) -> None:
    """The notebooks and what they may link to, copied: Lab autosaves, the repo stays clean."""
    shutil.copytree(ROOT / "notebooks", folder / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.copytree(ROOT / "harness_lib", folder / "harness_lib",
                    ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)


def module_folder(server: Lab, name: str) -> LabFolder:
    """A folder of the shared server for one test module, with its own copy of the course."""
    copy_course(server.root / name)
    return LabFolder(server, name)


@contextmanager
def serving(tmp: Path, disabled: tuple[str, ...] = ()) -> Iterator[Lab]:
    """A Lab server (`disabled`: extensions turned off); `tmp`/root is what it serves."""
    try:
        with running_lab(tmp, tmp / "root", disabled=disabled) as server:
            yield server
    except RuntimeError as err:  # it did not start: say why
        pytest.fail(str(err))


def lab_of_its_own(tmp: Path, disabled: tuple[str, ...] = ()) -> Iterator[LabFolder]:
    """A Lab server for one test module, on a copy of the notebooks (its root)."""
    copy_course(tmp / "root")
    with serving(tmp, disabled) as server:
        yield LabFolder(server)


def lab_with(tmp: Path, settings: dict[str, dict[str, Any]]) -> Iterator[LabFolder]:
    """A Lab in `tmp` with every cell laid out, and these settings of `@jupyterlab/`'s
    plugins (name: values)."""
    for name, value in {"notebook-extension/tracker": {"windowingMode": "none"},
                        **settings}.items():
        path = tmp / "settings" / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    yield from lab_of_its_own(tmp)
