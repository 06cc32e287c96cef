"""SIGTERM and SIGHUP end a tool's process group, as Ctrl-C does.

Ctrl-C raises KeyboardInterrupt in the harness, and shell.py's `finally` kills the
command's process group. SIGTERM (what `timeout` and `kill` send) and SIGHUP (a closed
terminal) end the harness at once by default, with no `finally`: the command, in a process
group of its own, would keep running after the harness (`sleep 30 &`, with the learner's
rights where no sandbox starts; a sandbox ends with the harness: `--die-with-parent`).
While a command runs, `ended_with_the_harness()` kills its group first, then lets the
signal do what it did before (ends the harness, or calls the harness's own handler).

>>> with ended_with_the_harness() as groups:  # groups.add(process.pid) once started
...     signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
False
>>> signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # as it was
True
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import Any

# What ends the harness, and so its command: `timeout`, `kill`, a closed terminal.
ENDING = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
Handler = Callable[[int, FrameType | None], Any] | signal.Handlers


class Groups(list[int]):
    """The process groups a signal must end first. A signal that comes while the command is
    being started (no group known yet) waits for `add`: no moment leaves it running."""

    def __init__(self, end: Callable[[int, FrameType | None], None]) -> None:
        super().__init__()
        self.end = end
        self.waiting: tuple[int, FrameType | None] | None = None

    def add(self, pgid: int) -> None:
        self.append(pgid)
        if self.waiting is not None:
            self.end(*self.waiting)


@contextmanager
def ended_with_the_harness() -> Iterator[Groups]:
    """While the command runs, SIGTERM or SIGHUP to the harness kills the process groups
    added to the list first (as Ctrl-C does, through KeyboardInterrupt), then does what it
    did before: by default, ends the harness. Only the main thread may set handlers."""

    def end(number: int, frame: FrameType | None) -> None:
        if not groups:  # the command is starting: ended as soon as its group is known
            groups.waiting = (number, frame)
            return
        for pgid in groups:
            with suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
        before = previous[number]
        if callable(before):
            before(number, frame)
        else:  # the default action: this process ends, killed by the same signal
            signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)

    groups = Groups(end)
    previous = replace_handlers(end)
    try:
        yield groups
    finally:
        for number, before in previous.items():
            signal.signal(number, before)


def replace_handlers(handler: Handler) -> dict[int, Handler]:
    """Set `handler` for SIGTERM and SIGHUP, except where they are ignored (nohup) or off
    the main thread; the handlers it replaced, to put back."""
    previous: dict[int, Handler] = {}
    for number in ENDING:
        before = signal.getsignal(number)
        if before is signal.SIG_DFL or callable(before):  # not SIG_IGN: nohup leaves it be
            try:
                signal.signal(number, handler)
            except ValueError:  # not the main thread
                break
            previous[number] = before
    return previous
