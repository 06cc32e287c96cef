"""A JupyterLab server for tests and benchmarks: on 127.0.0.1, a free port, a token,
its own settings and Jupyter folders, the kernel importing this checkout's harness_lib
in mock mode. Used by the browser tests (browsing.labs) and by bench/browser.py.

    with running_lab(tmp, root) as lab:   # root: the folder Lab serves
        ...  # lab.url, lab.token, lab.api("status")
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from browsing import ROOT


@dataclass
class Lab:
    url: str
    token: str
    root: Path
    log: Path
    process: subprocess.Popen[bytes]

    def api(self, path: str, method: str = "GET") -> Any:
        request = urllib.request.Request(f"{self.url}/api/{path}", method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def lab_settings(folder: Path) -> None:
    """User settings: no « official Jupyter news? » toast over the page, no update check."""
    target = folder / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))


def page_config(config_dir: Path, disabled: tuple[str, ...]) -> None:
    """Lab's and Notebook 7's page config: the news pop-up off (as the package's own
    `jupyter-config/`), and `disabled` extensions, e.g. Lab's own Mermaid."""
    shipped = json.loads((ROOT / "jupyter-config" / "page_config.json").read_text("utf-8"))
    shipped["disabledExtensions"].update(dict.fromkeys(disabled, True))
    target = config_dir / "labconfig" / "page_config.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(shipped))


def kernel_config(ipython_dir: Path) -> None:
    """The IPython kernel config the package installs in etc/ipython (the course's extension,
    playground/fresh_kernel.py), in this server's own IPython directory."""
    target = ipython_dir / "profile_default" / "ipython_kernel_config.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "jupyter-config" / "ipython_kernel_config.json", target)


def lab_plugin(data_dir: Path) -> None:
    """The JupyterLab plugin the package installs in share/jupyter/labextensions (CodeMirror's
    style sheet no longer written again unchanged), this checkout's, in this server's own
    Jupyter data folder: it comes before any installed copy, which may be older."""
    source = ROOT / "jupyter-config" / "labextension"
    name = json.loads((source / "package.json").read_text("utf-8"))["name"]
    shutil.copytree(source, data_dir / "labextensions" / name, dirs_exist_ok=True)


def lab_command(port: int, token: str, root: Path, tmp: Path) -> list[str]:
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        # Nothing from the internet: no news feed, no update check, no extension catalogue.
        "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
        f"--LabApp.user_settings_dir={tmp / 'settings'}",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp, to run cells and read the model
        # The same for Notebook 7, served by this server at /notebooks/ (ignored without it).
        "--JupyterNotebookApp.expose_app_in_browser=True",
        f"--JupyterNotebookApp.workspaces_dir={tmp / 'workspaces'}",
        f"--JupyterNotebookApp.user_settings_dir={tmp / 'settings'}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    return command


def lab_environ(tmp: Path) -> dict[str, str]:
    """The kernel imports this checkout's harness_lib, in mock mode, with its own Jupyter dirs.
    No $HARNESS_PROGRESSION: each kernel keeps its progress file beside its notebook (its
    working directory, as for a learner), so that each test module's copy of the notebooks
    in a shared Lab has progress of its own (browsing.labs)."""
    skipped = ("OPENROUTER_API_KEY", "HARNESS_PROGRESSION")
    environ = {k: v for k, v in os.environ.items() if k not in skipped}
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    environ.update(JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_DATA_DIR=str(tmp / "data"),
                   JUPYTER_RUNTIME_DIR=str(tmp / "runtime"), IPYTHONDIR=str(tmp / "ipython"),
                   PYTHONPATH=path)
    return environ


def wait_for(up: Callable[[], object], process: subprocess.Popen[bytes], log: Path,
             seconds: float = 90.0) -> None:
    """Until `up()` answers (a server started by `process`, writing to `log`)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            if up():
                return
        except OSError:
            pass
        time.sleep(0.2)  # polling a condition, with a deadline
    raise RuntimeError(f"le serveur n'a pas démarré :\n{log.read_text(errors='replace')[-3000:]}")


def wait_until_up(lab: Lab) -> None:
    wait_for(lambda: lab.api("status") is not None, lab.process, lab.log)


@contextmanager
def running_lab(tmp: Path, root: Path, disabled: tuple[str, ...] = ()) -> Iterator[Lab]:
    """Lab serving `root` (and a copy of harness_lib in it), its state under `tmp`;
    `disabled`: front-end extensions turned off (`@jupyterlab/mermaid-extension`)."""
    shutil.copytree(ROOT / "harness_lib", root / "harness_lib",
                    ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
    lab_settings(tmp / "settings")
    page_config(tmp / "config", disabled)
    kernel_config(tmp / "ipython")  # lab_environ's IPYTHONDIR
    lab_plugin(tmp / "data")  # lab_environ's JUPYTER_DATA_DIR
    port, token, log = free_port(), secrets.token_hex(16), tmp / "lab.log"
    with log.open("wb") as out:
        process = subprocess.Popen(lab_command(port, token, root, tmp), stdout=out,
                                   stderr=subprocess.STDOUT, env=lab_environ(tmp), cwd=tmp,
                                   start_new_session=True)
    server = Lab(f"http://127.0.0.1:{port}", token, root, log, process)
    try:
        wait_until_up(server)
        yield server
    finally:
        process.terminate()  # Lab shuts its kernels down on SIGTERM
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)  # its own session: the server and its kernels
            process.wait()
