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

>>> said = explain("bwrap", 1, "bwrap: Can't mkdir /nulle-part: Read-only file system\\n")
>>> said.startswith("bwrap n’a pas pu créer"), "/nulle-part" in said, "lecture seule" in said
(True, True, True)
>>> argv = command(["bash", "-c", "ls"], Path("/srv/ws"), network=False)
>>> argv[0], "--share-net" in argv, argv[argv.index("--bind") + 1], argv[-3:]
('bwrap', False, '/srv/ws', ['bash', '-c', 'ls'])
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from ..errors import os_error_text
from ..text import shorten

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
    In the browser (Pyodide) the tab is the sandbox: bash starts no process there and sees
    only the page's own files (browser.py), never the machine's.
    """
    if sys.platform == "emscripten":
        return None
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


def notice(reason: str, opt_out: str = 'Policy(unconfined="allow")') -> str:
    """The one sentence the harness says when bash cannot be confined (`opt_out`: how to
    skip the question: the CLI says --unconfined)."""
    return (f"Pas de bac à sable pour bash : {reason}. Une commande tournerait avec vos "
            "droits : chacune attend donc l’accord d’une personne, quel que soit le modèle, "
            f"le modèle simulé compris ({opt_out} lève cette attente, à vos risques).")


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
    return explain(program, done.returncode, done.stderr.decode("utf-8", "replace"))


# Why bwrap could not prepare the sandbox, in French, from what it printed (English): the
# mount it could not make and the system's reason, then its own words, for a search.
SAID = [
    (re.compile(r"Can't mkdir (.+)"), "créer le dossier {0} pour y monter"),
    (re.compile(r"Can't mount tmpfs on (.+)"), "cacher {0} sous un dossier vide"),
    (re.compile(r"Can't create file at (.+)"), "créer le fichier {0} pour y monter"),
    (re.compile(r"Can't find source path (.+)"), "trouver le dossier à montrer {0}"),
    (re.compile(r"Can't bind mount (\S+) on (.+)"), "montrer {0}"),
    (re.compile(r"Can't chdir to (.+)"), "entrer dans l’espace de travail {0}"),
    (re.compile(r"execvp (.+)"), "lancer {0}"),
]
NAMESPACES = re.compile(r"namespace|uid map|make / slave|RTM_NEWADDR|loopback", re.I)
STRERROR = {os.strerror(number): number for number in errno.errorcode}
QUOTE_LIMIT = 200  # characters of bwrap's own line kept in the explanation


def explain(program: str, code: int, stderr: str) -> str:
    """Why `program` (bwrap) ended with `code`: the mount and the permission refused, in
    French, then its own last line (shortened); never only « échoue ici (code 1) »."""
    lines = [line.strip().removeprefix(f"{program}: ") for line in stderr.splitlines()]
    line = re.sub(r"/(?:new|old)root(?=/)", "", next(filter(None, reversed(lines)), ""))
    if not line:
        return f"{program} échoue ici (code {code}) sans dire pourquoi"
    quoted = f"il dit « {shorten(line, QUOTE_LIMIT)} »"
    if NAMESPACES.search(line):
        return (f"le système refuse à {program} de créer ses espaces de noms (un conteneur, "
                f"ou des user namespaces désactivés) ; {quoted}")
    what, _, cause = line.rpartition(": ")
    why = f" ({os_error_text(OSError(STRERROR[cause], cause))})" if cause in STRERROR else ""
    for pattern, said in SAID:
        if found := pattern.fullmatch(what or line):
            return f"{program} n’a pas pu {said.format(*found.groups())}{why} ; {quoted}"
    return f"{program} échoue ici (code {code}) ; {quoted}"
