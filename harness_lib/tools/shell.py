"""The bash tool: one shell command, bounded in time, in output and in secrets.

`run(command, cwd, timeout)` starts `bash -c command` in its own process group,
reads its output in chunks (keeping only the head and the tail), and kills the
whole group when time is up, children included. It returns as soon as bash itself
has finished: a job left in the background (`serveur & echo prêt`) is killed with the
group, and the observation says so. Variables that look like secrets (KEY, TOKEN,
SECRET, PASSWORD, CREDENTIAL, PAT...) are not passed on, and a password inside a URL
(`https://moi:motdepasse@hôte`) becomes `***`: a command cannot print the API key.
The command starts in the workspace but is not confined to it: what stands between
it and the rest of the machine is the policy (policy.py) and a human's validation.

A failure raises `ToolError` (non-zero exit code) or `ToolTimeout` (time up).

>>> import tempfile
>>> print(run("echo bonjour", tempfile.gettempdir(), timeout=5))
bonjour
[code de sortie : 0]
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from ..errors import ToolError, ToolTimeout
from ..limits import TOOL_TIMEOUT
from ..text import french_number

MAX_OUTPUT_BYTES = 20_000  # of a command's output given back to the model (head + tail)
CHUNK = 65_536  # bytes read at a time: memory stays bounded whatever the command prints
# A variable whose name contains one of these (GITHUB_TOKEN, DB_PASSWORD)...
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE")
# ...or has one of these as a whole word (GH_PAT, but not PATH; NPM_AUTH, but not AUTHOR).
SECRET_NAMES = frozenset({"PAT", "PASS", "AUTH"})
URL_PASSWORD = re.compile(r"://([^/\s@:]*):([^/\s@]*)@")  # scheme://user:password@host
POLL = 0.05  # seconds between two checks that bash is still running (while it is silent)
DRAIN = 0.05  # seconds to read what is left in the pipe once bash has finished
BACKGROUND = "[processus laissés en arrière-plan : arrêtés à la fin de la commande]"


def run(command: str, cwd: str | Path, timeout: float = TOOL_TIMEOUT) -> str:
    """Output and exit code of `bash -c command`; ToolError on failure, ToolTimeout on time up."""
    try:
        output, code, background = _run(command, cwd, timeout)
    except (OSError, ValueError) as err:  # no bash, too many processes, NUL in the command
        raise ToolError(f"impossible de lancer la commande : {err}") from None
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
    """os.environ without the variables that look like secrets, nor passwords in URLs;
    the harness's own Python first on PATH: `python` in a command is the interpreter
    running the harness (there may be no other, or a slow pyenv shim).

    >>> safe_env_of({"GH_PAT": "ghp_1", "PATH": "/bin", "URL": "https://moi:mdp@hôte/x"})
    {'PATH': '/bin', 'URL': 'https://moi:***@hôte/x'}
    """
    env = safe_env_of(os.environ)
    env["PATH"] = os.pathsep.join(filter(None, [str(Path(sys.executable).parent),
                                                env.get("PATH")]))
    return env


def safe_env_of(environ: Mapping[str, str]) -> dict[str, str]:
    kept = {}
    for name, value in environ.items():
        upper = name.upper()
        words = set(re.split(r"[^A-Z0-9]+", upper))
        if any(word in upper for word in SECRET_WORDS) or words & SECRET_NAMES:
            continue
        kept[name] = URL_PASSWORD.sub(r"://\1:***@", value) if "://" in value else value
    return kept


def _run(command: str, cwd: str | Path, timeout: float) -> tuple[str, int | None, bool]:
    """(output, exit code, background jobs killed); the code is None when time ran out."""
    process = subprocess.Popen(
        ["bash", "-c", command], cwd=cwd, env=safe_env(),
        stdin=subprocess.DEVNULL,  # the terminal belongs to the human (validation prompts)
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: one signal stops it and its children
    )
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
    return output.text(), code, left and code is not None


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


class HeadTail:
    """The first and last `limit // 2` bytes of a stream, and how many were dropped between."""

    def __init__(self, limit: int) -> None:
        self.half = limit // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = max(0, self.half - len(self.head))
        self.head += chunk[:room]
        self.tail += chunk[room:]
        excess = len(self.tail) - self.half
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        """The output as text; bytes that are not UTF-8 become �, and the text says so."""
        if not self.dropped:
            parts = [bytes(self.head + self.tail)]
        else:  # the cuts may fall inside a character: those bytes are the cut's, dropped
            head = self.head[: len(self.head) - _partial_end(self.head)]
            tail = self.tail.lstrip(bytes(range(0x80, 0xC0)))
            dropped = self.dropped + len(self.head) - len(head) + len(self.tail) - len(tail)
            cut = f"\n… [tronqué : {french_number(dropped)} octets au milieu] …\n"
            parts = [bytes(head), cut.encode(), bytes(tail)]
        texts = [part.decode("utf-8", "replace") for part in parts]
        if any("\ufffd" in text and "\ufffd".encode() not in part
               for text, part in zip(texts, parts, strict=True)):
            texts.insert(0, "[sortie non UTF-8 : octets illisibles remplacés par �]\n")
        return "".join(texts)


def _partial_end(data: bytearray) -> int:
    """How many bytes at the end of `data` begin a UTF-8 character that is not complete."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return 0
        if byte >= 0xC0:  # a lead byte: does the character need more than what follows?
            size = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return back if size > back else 0
    return 0
