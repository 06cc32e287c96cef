"""What the CLI prints, on a standard output that may go away while the run goes on.

`run … | head -1` closes the pipe after one line; `> /dev/full` refuses every byte. Python
then raises an OSError at the next write (BrokenPipeError, or « No space left on device »),
and again when it flushes its buffer at exit (« Exception ignored … », exit code 120).
`say` prints and flushes at once; at the first failure it points the stream's file
descriptor at /dev/null: the run goes on, its trace is still written, and every later print
(the approver's question, Python's last flush) succeeds unseen. A closed pipe is not an
error (the reader had enough): nothing is said; any other failure is said once, on stderr.

>>> say("Bonjour")
Bonjour
"""

from __future__ import annotations

import errno
import os
import sys
from typing import TextIO

from ..errors import os_error_text


def say(text: str = "", *, error: bool = False) -> None:
    """Print one line (on stderr if `error`), flushed; quiet once the stream is gone."""
    stream = sys.stderr if error else sys.stdout
    try:
        print(text, file=stream, flush=True)
    except OSError as err:
        silence(stream, err)


def settle() -> None:
    """Flush both streams before exit: what they still hold is dropped if they are gone."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError as err:
            silence(stream, err)


def silence(stream: TextIO, err: OSError) -> None:
    """Send `stream` to /dev/null from now on; say why on stderr, unless a pipe was closed."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # not a real file (a test's capture): nothing to redirect
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)
    if err.errno != errno.EPIPE and stream is sys.stdout:
        say(f"La sortie standard n’accepte plus rien ({os_error_text(err)}) : la suite "
            "n’est plus affichée, les traces demandées sont tout de même écrites.", error=True)
