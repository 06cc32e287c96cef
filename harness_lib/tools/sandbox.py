"""The sandbox: bash confined by the operating system itself, not by a list of words.

The policy (policy.py) says no to known dangers, with a reason; the sandbox makes the
« no » hold however the command is spelled. On Linux, bubblewrap (`bwrap`, Debian's
package `bubblewrap`, the tool Flatpak is built on) starts the command in namespaces of
its own, where it sees:

- the workspace, writable; the rest of the file system read-only, and the home folder,
  /tmp, /var/tmp, /run and Jupyter's runtime files (the kernels' connection files, which
  hold their keys) replaced by empty folders; the harness's own Python stays readable,
  so that `python` in a command still works. Each folder is mounted after those that
  hold it, so the deeper rule wins wherever they are: a workspace inside /tmp stays
  visible, a runtime folder inside the workspace stays hidden;
- its own processes only (its own /proc): not the harness, not the kernel, no other
  process's environment or memory;
- no network, not even the machine's 127.0.0.1 (its own network namespace), unless
  the policy allows it (`Policy(network=True)`);
- no capability, even when the harness runs as root: bwrap keeps them for uid 0
  otherwise (containers/bubblewrap#287), and root could then remount / writable.

`problem()` says why no sandbox can start here (no bwrap, another OS, a container that
forbids namespaces, a mount refused: which folder, and why), and warns once, in French;
None when one can. A home folder that is missing, a file, `/` or a system folder (Debian
gives `/nonexistent`, `/bin`, `/usr/sbin` to its system users) hides nothing.

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

from ..errors import os_error_text
from . import bwrap_failure

PROGRAM = "bwrap"
PROBE_TIMEOUT = 10.0  # seconds for a trial run of `true` in the sandbox
HIDDEN = ("/tmp", "/var/tmp", "/run")  # plus the home folder and Jupyter's runtime files
# Never hidden, nor a folder that holds one (`/`): the programs and libraries bash needs.
SYSTEM = ("/bin", "/sbin", "/lib", "/lib64", "/usr/bin", "/usr/sbin", "/usr/lib", "/etc",
          "/dev", "/proc")
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
    hidden = _hidden()
    args = [PROGRAM, "--die-with-parent", "--unshare-all", "--cap-drop", "ALL",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    if network:
        args.append("--share-net")
    # bwrap mounts in this order, each one over the previous ones: the shallower first, so
    # that the deeper rule wins; at the same place, the workspace (the learner's choice).
    plan = sorted([(len(p.parts), 0, "--tmpfs", p) for p in hidden]
                  + [(len(p.parts), 1, "--ro-bind", p) for p in _readable(hidden, root, network)]
                  + [(len(root.parts), 2, "--bind", root)])
    for _, _, option, folder in plan:
        args += [option, str(folder)] if option == "--tmpfs" else [option, str(folder), str(folder)]
    for file in _connection_files(root):  # in the workspace itself: covered by an empty file
        args += ["--ro-bind", "/dev/null", str(file)]
    return [*args, "--chdir", str(root), "--", *argv]


def _hidden() -> list[Path]:
    """The folders replaced by empty ones, those that exist (bwrap cannot create a mount
    point in the read-only `/`), never the system's own (a home folder may be /bin)."""
    found = {*HIDDEN, *_homes(), *map(str, _runtime_dirs())}
    folders = {Path(os.path.realpath(p)) for p in found if p and os.path.isdir(p)}
    system = [Path(os.path.realpath(p)) for p in SYSTEM]
    return sorted(p for p in folders if not any(s.is_relative_to(p) for s in system))


def _homes() -> set[str]:
    """The home folder as $HOME says and as the password database says: either may be
    unset, missing, a file or `/` (Debian's system users, containers, CI jobs)."""
    found = {os.environ.get("HOME", "")}
    try:
        import pwd  # Unix only, like bubblewrap

        found.add(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError):
        pass
    return found


def _readable(hidden: list[Path], root: Path, network: bool) -> list[Path]:
    """What must stay readable inside a hidden folder: the harness's Python (a pyenv or
    a venv in the home folder) and, with the network, the resolver (/run/systemd/...).
    Inside the workspace, it is the workspace's: writable, wherever the workspace is."""
    wanted = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
    if network:
        wanted.add(os.path.dirname(os.path.realpath("/etc/resolv.conf")))
    inside = [Path(os.path.realpath(p)) for p in wanted]
    # Never a hidden folder itself: that would show it all again.
    return sorted({p for p in inside if p.is_dir() and not p.is_relative_to(root) and any(
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
    found |= {os.path.dirname(file) for file in _kernel_files()}
    return sorted({Path(os.path.realpath(p)) for p in found if p and os.path.isdir(p)})


def _kernel_files() -> list[str]:
    """The connection file this process was started with (`-f FILE`), if any."""
    args = sys.argv
    return [os.path.abspath(args[i + 1]) for i in range(len(args) - 1) if args[i] == "-f"]


def _connection_files(root: Path) -> list[Path]:
    """Connection files inside the workspace itself (a kernel's folder that is the
    workspace: no empty folder can hide them without hiding the workspace too)."""
    files = {Path(os.path.realpath(f)) for f in _kernel_files()}
    if root in _runtime_dirs():
        files |= set(root.glob("kernel-*.json"))
    return sorted(f for f in files if f.is_file() and f.is_relative_to(root))


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
    try:
        with tempfile.TemporaryDirectory() as folder:
            trial = command(["true"], Path(os.path.realpath(folder)), network=False)
            trial[0] = program
            done = subprocess.run(trial, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=PROBE_TIMEOUT, check=False)
    except OSError as err:
        return f"{program} ne démarre pas ({os_error_text(err)})"
    except subprocess.SubprocessError:
        return f"{program} ne répond pas en {PROBE_TIMEOUT:g} s"
    if done.returncode == 0:
        return None
    return bwrap_failure.explain(program, done.returncode, done.stderr.decode("utf-8", "replace"))
