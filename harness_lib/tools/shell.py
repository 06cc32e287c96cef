"""The bash tool: one shell command, bounded in time, in output and in secrets.

`run(command, cwd, timeout)` starts `bash -c command` in its own process group,
reads its output in chunks (keeping only the head and the tail: output.py), and kills
the whole group when time is up, children included, or when the harness is stopped
(Ctrl-C, and SIGTERM or SIGHUP: what `timeout`, `kill` or a closed terminal send). It
returns as soon as bash itself has finished: a job left in the background (`serveur &
echo prêt`) is killed with the group, and the observation says so. Variables that look
like secrets (KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL, PAT...) are not passed on, and a
password inside a URL (`https://moi:motdepasse@hôte`) becomes `***` (secrets.py).
Where the system allows it, the command runs in a sandbox (sandbox.py): it can write
in the workspace only, sees no other process and has no network. Where it does not,
the command runs with the learner's rights, and the policy asks a human first.

A failure raises `ToolError` (non-zero exit code) or `ToolTimeout` (time up).

>>> import tempfile
>>> print(run("echo bonjour", tempfile.gettempdir(), timeout=5))
bonjour
[code de sortie : 0]
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from ..errors import ToolError, ToolTimeout, os_error_text
from ..limits import TOOL_TIMEOUT
from ..secrets import scrubbed_env
from ..text import french_number
from . import sandbox
from .ending import ended_with_the_harness
from .output import HeadTail, unencodable

MAX_OUTPUT_BYTES = 20_000  # of a command's output given back to the model (head + tail)
CHUNK = 65_536  # bytes read at a time: memory stays bounded whatever the command prints
POLL = 0.05  # seconds between two checks that bash is still running (while it is silent)
DRAIN = 0.05  # seconds to read what is left in the pipe once bash has finished
BACKGROUND = "[processus laissés en arrière-plan : arrêtés à la fin de la commande]"
# Run inside the sandbox: the command (without the count's pipe), then the count of its
# processes still there, but the sandbox's init (1) and this script ($$), on that pipe.
COUNT_LEFT = ('fd=$2; bash -c "$1" {fd}>&-; code=$?; left=0; for p in /proc/[0-9]*; do '
              'case ${p#/proc/} in 1|$$) ;; *) left=$((left + 1)) ;; esac; done; '
              'echo $left >&"$fd"; exit $code')


def run(command: str, cwd: str | Path, timeout: float = TOOL_TIMEOUT, *,
        network: bool = False) -> str:
    """Output and exit code of `bash -c command`, in the sandbox when one can start
    (`network`: whether it keeps the network); ToolError on failure, ToolTimeout on time up."""
    try:
        output, code, background = _run(command, cwd, timeout, network)
    except UnicodeEncodeError as err:  # a lone surrogate (`\ud800`): no program can receive it
        raise ToolError(f"impossible de lancer la commande : {unencodable(err)}") from None
    except ValueError:  # a NUL byte in the command: no program can receive it
        raise ToolError("impossible de lancer la commande : caractère NUL") from None
    except OSError as err:  # no bash, too many processes, a workspace gone
        raise ToolError(f"impossible de lancer la commande : {os_error_text(err)}") from None
    return verdict(output, code, timeout, background)


def verdict(output: str, code: int | None, timeout: float, background: bool = False) -> str:
    """What the model reads of a finished command (also browser.py's): the output and
    « [code de sortie : N] »; ToolError when N is not 0, ToolTimeout when code is None."""
    if code is None:
        said = f"délai de {french_number(timeout)} s dépassé, commande arrêtée\n{output}"
        raise ToolTimeout(said.rstrip())
    if output and not output.endswith("\n"):
        output += "\n"
    report = f"{output}{BACKGROUND + chr(10) if background else ''}[code de sortie : {code}]"
    if code != 0:
        raise ToolError(f"la commande a échoué\n{report}")
    return report


def safe_env() -> dict[str, str]:
    """os.environ without the variables that look like secrets, nor passwords in URLs
    (secrets.scrubbed_env); the harness's own Python first on PATH: `python` in a command
    is the interpreter running the harness (there may be no other, or a slow pyenv shim).
    """
    env = scrubbed_env(os.environ)
    env["PATH"] = os.pathsep.join(filter(None, [str(Path(sys.executable).parent),
                                                env.get("PATH")]))
    return env


def _run(command: str, cwd: str | Path, timeout: float, network: bool
         ) -> tuple[str, int | None, bool]:
    """(output, exit code, background jobs killed); the code is None when time ran out."""
    root = Path(os.path.realpath(cwd))
    confined = sandbox.problem() is None
    argv, env = ["bash", "-c", command], safe_env()
    reader, writer = os.pipe()  # where the sandbox says how many processes were left
    if confined:
        argv = sandbox.command(["bash", "-c", COUNT_LEFT, "bash", command, str(writer)],
                               root, network=network)
        if not Path(env.get("TMPDIR", "/tmp")).is_relative_to(root):
            env["TMPDIR"] = "/tmp"  # the harness's own is hidden: the sandbox has an empty one
    # The handlers are set before the start: no moment when a signal would leave it running.
    with os.fdopen(reader, "rb") as count, ended_with_the_harness() as groups:
        process = _start(argv, root, env, writer)
        groups.add(process.pid)  # a signal that came during the start acts now
        output, code, left = _collect(process, timeout)
        os.set_blocking(count.fileno(), False)
        said = (count.read() or b"").strip()
    # In the sandbox, its processes die with it: only the script inside saw them.
    background = (said not in (b"", b"0")) if confined else left
    return output, code, background and code is not None


def _start(argv: list[str], root: Path, env: dict[str, str], writer: int
           ) -> subprocess.Popen[bytes]:
    """bash (or bwrap) started in its own process group, given the count's pipe."""
    try:
        return subprocess.Popen(
            argv, cwd=root, env=env, pass_fds=(writer,),
            stdin=subprocess.DEVNULL,  # the terminal belongs to the human (validation prompts)
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: one signal stops it, children too
        )
    finally:
        os.close(writer)  # the child's copy only: so the count's pipe ends with the child


def _collect(process: subprocess.Popen[bytes], timeout: float) -> tuple[str, int | None, bool]:
    """Read and wait until bash ends or time is up, then kill the whole process group."""
    assert process.stdout is not None
    output = HeadTail(MAX_OUTPUT_BYTES)
    deadline = time.monotonic() + timeout
    code: int | None = None
    try:
        _read(process, output, deadline)
        code = process.wait(max(0.0, deadline - time.monotonic()))
    except (TimeoutError, subprocess.TimeoutExpired):
        pass  # time is up: code stays None
    finally:
        # Kill the whole group, even after success: background jobs (`cmd &`) must not survive.
        left = _kill_group(process.pid)
        process.wait()  # reap the shell: no zombie left behind
        process.stdout.close()
    return output.text(), code, left


def _read(process: subprocess.Popen[bytes], output: HeadTail, deadline: float) -> None:
    """Read until bash ends (then what is left in the pipe); TimeoutError at the deadline.

    A background job keeps the pipe open after bash has finished: waiting for the end of
    the output would wait for the job. So bash's own end is what ends the reading.
    """
    assert process.stdout is not None
    ended = None  # when bash was seen finished
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise TimeoutError
            if ended is None and process.poll() is not None:
                ended = now
            wait = min(deadline - now, POLL) if ended is None else ended + DRAIN - now
            if wait <= 0:
                return  # bash is done, its background jobs hold the pipe: stop reading
            if selector.select(wait):
                # os.read returns what is there; a buffered read could wait for more.
                chunk = os.read(process.stdout.fileno(), CHUNK)
                if not chunk:
                    return
                output.add(chunk)


def _kill_group(pgid: int) -> bool:
    """SIGKILL to every process of the group; True if one was still there (not yet reaped)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True
