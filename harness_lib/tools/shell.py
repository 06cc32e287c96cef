"""The bash tool: one shell command, bounded in time, in output and in secrets.

`run(command, cwd, timeout)` starts `bash -c command` in its own process group,
reads its output in chunks (keeping only the head and the tail), and kills the
whole group when time is up, children included. Variables whose name contains
KEY, TOKEN, SECRET or PASSWORD are not passed on: a command cannot print the API key.
The command starts in the workspace but is not confined to it: what stands between
it and the rest of the machine is the policy (policy.py) and a human's validation.

A failure (non-zero exit code, time up) raises `ToolError`, as in workspace.py.

>>> import tempfile
>>> print(run("echo bonjour", tempfile.gettempdir(), timeout=5))
bonjour
[code de sortie : 0]
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from pathlib import Path
from typing import IO

from .workspace import ToolError

MAX_OUTPUT_BYTES = 20_000  # of a command's output given back to the model (head + tail)
CHUNK = 65_536  # bytes read at a time: memory stays bounded whatever the command prints
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")


def run(command: str, cwd: str | Path, timeout: float = 60.0) -> str:
    """Output and exit code of `bash -c command`; ToolError on failure or when time is up."""
    try:
        output, code = _run(command, cwd, timeout)
    except (OSError, ValueError) as err:  # no bash, too many processes, NUL in the command
        raise ToolError(f"impossible de lancer la commande : {err}") from None
    if code is None:
        raise ToolError(f"délai de {timeout:g} s dépassé, commande arrêtée\n{output}".rstrip())
    if output and not output.endswith("\n"):
        output += "\n"
    report = f"{output}[code de sortie : {code}]"
    if code != 0:
        raise ToolError(f"la commande a échoué\n{report}")
    return report


def safe_env() -> dict[str, str]:
    """os.environ without the variables that look like secrets (OPENROUTER_API_KEY...)."""
    return {name: value for name, value in os.environ.items()
            if not any(word in name.upper() for word in SECRET_WORDS)}


def _run(command: str, cwd: str | Path, timeout: float) -> tuple[str, int | None]:
    """(output, exit code), the code being None when the command ran out of time."""
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
        _read(process.stdout, output, deadline)
        code = process.wait(max(0.0, deadline - time.monotonic()))
    except (TimeoutError, subprocess.TimeoutExpired):
        pass  # time is up: code stays None
    finally:
        # Kill the whole group, even after success: background jobs (`cmd &`) must not survive.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()  # reap the shell: no zombie left behind
        process.stdout.close()
    return output.text(), code


def _read(stream: IO[bytes], output: HeadTail, deadline: float) -> None:
    """Read until the end of the output; TimeoutError at the deadline, never later."""
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                raise TimeoutError
            # os.read returns what is there; a buffered read could wait for more.
            chunk = os.read(stream.fileno(), CHUNK)
            if not chunk:
                return
            output.add(chunk)


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
            parts = [bytes(head), f"\n… [tronqué : {dropped} octets au milieu] …\n".encode(),
                     bytes(tail)]
        texts = [part.decode("utf-8", "replace") for part in parts]
        if any("\ufffd" in text and "\ufffd".encode() not in part
               for text, part in zip(texts, parts, strict=True)):
            texts.insert(0, "[sortie non UTF-8 : octets illisibles remplacés par �]\n")
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
