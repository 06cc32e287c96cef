"""The sandbox: bash confined by the operating system itself, not by a list of words.

The policy (policy.py) says no to known dangers, with a reason; the sandbox makes the
« no » hold however the command is spelled. On Linux, bubblewrap (`bwrap`, Debian's
package `bubblewrap`, the tool Flatpak is built on) starts the command in namespaces of
its own, where it sees:

- the workspace, writable; the rest of the file system read-only, and the home folder,
  /tmp, /var/tmp, /run and Jupyter's runtime files (the kernels' connection files, which
  hold their keys) replaced by empty folders; the harness's own Python stays readable,
  so that `python` in a command still works;
- its own processes only (its own /proc): not the harness, not the kernel, no other
  process's environment or memory;
- no network, not even the machine's 127.0.0.1 (its own network namespace), unless
  the policy allows it (`Policy(network=True)`);
- no capability, even when the harness runs as root: bwrap keeps them for uid 0
  otherwise (containers/bubblewrap#287), and root could then remount / writable.

`problem()` says why no sandbox can start here (no bwrap, another OS, a container that
forbids namespaces), and warns once, in French; None when one can.

>>> argv = command(["bash", "-c", "ls"], Path("/srv/ws"), network=False)
>>> argv[0], "--share-net" in argv, argv[argv.index("--bind") + 1], argv[-3:]
('bwrap', False, '/srv/ws', ['bash', '-c', 'ls'])
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterable
from functools import cache
from pathlib import Path

PROGRAM = "bwrap"
PROBE_TIMEOUT = 10.0  # seconds for a trial run of `true` in the sandbox
HIDDEN = ("/tmp", "/var/tmp", "/run")  # plus the home folder and Jupyter's runtime files
INSTALL = "installez le paquet bubblewrap (Debian, Ubuntu : sudo apt install bubblewrap)"


class SandboxWarning(UserWarning):
    """No sandbox can start here: bash runs with the learner's own rights."""


def problem() -> str | None:
    """Why bash cannot be confined on this machine, in French; None when it can.

    Tried once per process (and per program): the answer does not change meanwhile.
    """
    return _probe(PROGRAM)


def command(argv: list[str], root: Path, *, network: bool) -> list[str]:
    """`argv` run by bwrap: `root` writable, the rest read-only or hidden (see above)."""
    home = Path.home()
    hidden = [Path(p) for p in (*HIDDEN, home) if Path(p) != Path("/")]
    args = [PROGRAM, "--die-with-parent", "--unshare-all", "--cap-drop", "ALL",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    if network:
        args.append("--share-net")
    for folder in hidden:
        args += ["--tmpfs", str(folder)]
    # Mounted in this order: each one over the previous ones.
    for folder in _readable(hidden, network):
        args += ["--ro-bind", str(folder), str(folder)]
    args += ["--bind", str(root), str(root)]
    for folder in _runtime_dirs():
        args += ["--tmpfs", str(folder)]
    return [*args, "--chdir", str(root), "--", *argv]


def _readable(hidden: list[Path], network: bool) -> list[Path]:
    """What must stay readable inside a hidden folder: the harness's Python (a pyenv or
    a venv in the home folder) and, with the network, the resolver (/run/systemd/...)."""
    wanted = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
    if network:
        wanted.add(os.path.dirname(os.path.realpath("/etc/resolv.conf")))
    inside = [Path(os.path.realpath(p)) for p in wanted]
    # Never a hidden folder itself or one that holds it: that would show it all again.
    return sorted({p for p in inside if p.is_dir() and any(
        p.is_relative_to(h) and p != h for h in hidden)})


def _runtime_dirs() -> Iterable[Path]:
    """Jupyter's runtime folders, wherever they are: the connection file of each kernel
    holds the key that lets anyone run code in it (and read the API key typed there)."""
    found = {os.environ.get("JUPYTER_RUNTIME_DIR", "")}
    try:
        from jupyter_core.paths import jupyter_runtime_dir  # installed with Jupyter only

        found.add(jupyter_runtime_dir())
    except ImportError:
        pass
    # A kernel is started with `-f <connection file>`: that file's folder, too.
    args = sys.argv
    found |= {os.path.dirname(args[i + 1]) for i in range(len(args) - 1) if args[i] == "-f"}
    return sorted({Path(os.path.realpath(p)) for p in found if p and os.path.isdir(p)})


@cache
def _probe(program: str) -> str | None:
    reason = _why_not(program)
    if reason is not None:
        warnings.warn(SandboxWarning(notice(reason)), stacklevel=3)
    return reason


def notice(reason: str) -> str:
    """The one sentence the harness says when bash cannot be confined."""
    return (f"Pas de bac à sable pour bash : {reason}. Les commandes tournent avec vos "
            "droits : avec un vrai modèle, chacune attend votre accord (ou "
            "Policy(unconfined=\"allow\"), à vos risques).")


def _why_not(program: str) -> str | None:
    """Start `true` in the sandbox once: what goes wrong, in French, or None."""
    if not sys.platform.startswith("linux"):
        return f"bubblewrap n’existe que sous Linux (système : {sys.platform})"
    if shutil.which(program) is None:
        return f"{program} est introuvable : {INSTALL}"
    with tempfile.TemporaryDirectory() as folder:
        trial = command(["true"], Path(folder), network=False)
        trial[0] = program
        try:
            done = subprocess.run(trial, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=PROBE_TIMEOUT, check=False)
        except (OSError, subprocess.SubprocessError):
            return f"{program} ne démarre pas"
    if done.returncode == 0:
        return None
    said = done.stderr.decode("utf-8", "replace").lower()
    if "namespace" in said or "permission" in said or "operation not permitted" in said:
        return (f"le système refuse à {program} de créer ses espaces de noms (un conteneur, "
                "ou des user namespaces désactivés)")
    return f"{program} échoue ici (code {done.returncode})"
