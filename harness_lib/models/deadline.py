"""A call bounded by a deadline, even when it is stuck in the network.

httpx's timeout applies to each read: a server that sends one byte a second never
trips it. `within` runs the work in a worker thread and waits for it until the
deadline, not later. The worker ends with the call: its socket's reads end by the
same deadline (transfer.DeadlineTransport), and `within` gives it a moment to finish.

>>> import time
>>> within(time.monotonic() + 1.0, 1.0, lambda: "fini")
'fini'
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import ModelTimeout

T = TypeVar("T")
GRACE = 0.5  # seconds a worker gets, past the deadline, to end (its reads end at the deadline)


def within(deadline: float, timeout: float, work: Callable[[], T]) -> T:
    """work() in a worker thread, which the caller waits for until the deadline, not later.

    A read blocked in the network cannot be interrupted: the caller stops waiting, and the
    worker ends on its own (its reads have a timeout, its loop checks the clock).
    """
    if sys.platform == "emscripten":  # the browser (Pyodide) starts no thread: there the
        return work()  # browser's own request has the time left as its timeout (browser_http)
    done: list[tuple[bool, Any]] = []

    def worker() -> None:
        try:
            done.append((True, work()))
        except BaseException as exc:  # raised again below, in the caller's thread
            done.append((False, exc))

    thread = threading.Thread(target=worker, daemon=True, name="harness-http")
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()))
    if not done:
        thread.join(GRACE)  # its reads end at the deadline too: let it close its socket
        raise ModelTimeout(timeout)
    ok, value = done[0]
    if not ok:
        raise value
    result: T = value
    return result
