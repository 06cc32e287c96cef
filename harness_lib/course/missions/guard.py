"""Bounds on a loop written by hand: a time limit it cannot catch, and its output capped.

A learner's loop may spin, sleep, recurse or swallow every exception. `Guard(seconds,
files)` runs it with a deadline and stops it with `TimeUp`, a BaseException: no
`except Exception` catches it.
- In the main thread (a kernel's cells, pytest), SIGALRM fires at the deadline, even in a
  `time.sleep`, then again every 20 ms until the loop is out; from then on each line of
  the loop's own code (the files in `files`) raises it again, so that a bare `except:`
  lets it through at its next line (after a call: Python stops tracing when a tracer
  raises, the profile hook, which sees each call, starts it again).
- Elsewhere (another thread, Pyodide: no signal there), each line of the loop's own code
  checks the clock: a `while True` is cut; a `time.sleep(20)` is not, nor a loop that
  catches everything with a bare `except:` (`Guard.note` says so).
While it runs, what the loop prints goes to `Capped`: the first 2 000 characters are kept.

>>> with Guard(None) as guard:
...     print("bonjour")
>>> guard.output.text, guard.output.total
('bonjour\\n', 8)
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

OUTPUT_LIMIT = 2_000  # characters of a loop's output kept for its report
AGAIN = 0.02  # seconds between two cuts, while a loop swallows them
NOTE_NO_SIGNAL = ("Ici, le correcteur ne peut pas interrompre votre code à coup sûr (pas de "
                  "signal dans ce contexte : navigateur ou thread secondaire) : il coupe une "
                  "boucle qui tourne, pas une attente (`time.sleep`) ni une boucle qui "
                  "rattrape tout avec un `except:` nu. Si la cellule ne s’arrête pas, "
                  "interrompez-la (■).")


HARNESS = str(Path(__file__).resolve().parents[2])  # harness_lib/: code that lets a cut pass


def _ours(filename: str, files: set[str]) -> bool:
    """Code a cut may be raised in: the loop's own, or the harness's."""
    return filename in files or filename.startswith(HARNESS)


class Cut(BaseException):
    """Raised into a loop to stop it: a BaseException, so `except Exception` lets it pass."""

    reason = "cut"


class TimeUp(Cut):
    """The loop ran past its time limit."""

    reason = "time_limit"

    def __init__(self, seconds: float, whole: bool = False) -> None:
        self.seconds, self.whole = seconds, whole  # whole: the limit of the whole grading
        super().__init__(f"limite de temps de {seconds:g} s atteinte.")


class Capped:
    """A text stream that keeps the first `limit` characters and counts all of them."""

    def __init__(self, limit: int = OUTPUT_LIMIT) -> None:
        self.limit, self.parts, self.kept, self.total = limit, [], 0, 0

    def write(self, text: object) -> int:
        text = text if isinstance(text, str) else str(text)
        self.total += len(text)
        if self.kept < self.limit:  # past the cap, only counted: printing megabytes is cheap
            self.parts.append(text[: self.limit - self.kept])
            self.kept += len(self.parts[-1])
        return len(text)

    def flush(self) -> None:
        pass

    @property
    def text(self) -> str:
        return "".join(self.parts)


class Guard:
    """A deadline for the code of `files`, and its output captured (see the module's doc)."""

    def __init__(self, seconds: float | None, files: set[str] | None = None,
                 whole: float | None = None) -> None:
        # whole: the limit of the whole grading, when it comes first (the one then said)
        self.seconds, self.files, self.whole = seconds, files or set(), whole
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self.signals = hasattr(signal, "setitimer") and \
            threading.current_thread() is threading.main_thread()
        self.output, self.cut, self.cuts = Capped(), None, 0
        self.note = "" if seconds is None or self.signals else NOTE_NO_SIGNAL
        self._armed, self._saved, self._stack = False, None, contextlib.ExitStack()

    def check(self) -> None:
        """Raise the cut again if there was one, or TimeUp if the deadline has passed."""
        if self.cut is None and self.deadline is not None and time.monotonic() > self.deadline:
            self.cut = TimeUp(self.whole or self.seconds or 0, self.whole is not None)
        if self.cut is not None:
            self.cuts += 1
            raise self.cut

    def stop(self, cut: Cut) -> None:
        """Cut the loop now with `cut` (too many calls, no EXIT), and at each later call."""
        self.cut = cut
        self.cuts += 1
        raise cut

    def __enter__(self) -> Guard:
        self._stack.enter_context(contextlib.redirect_stdout(self.output))  # type: ignore[type-var]
        self._stack.enter_context(contextlib.redirect_stderr(self.output))  # type: ignore[type-var]
        self._trace, self._profiler = sys.gettrace(), sys.getprofile()
        self._entry = sys._getframe(1)  # the frame of `with guard:`: cuts happen below it only
        if self.deadline is None:
            return self
        self._armed = True
        if self.signals:
            self._saved = signal.signal(signal.SIGALRM, self._ring)
            signal.setitimer(signal.ITIMER_REAL, max(self.deadline - time.monotonic(), 1e-3))
        else:
            sys.settrace(self._call)  # no signal: each line of the loop's code checks the clock
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._disarm()
        self._stack.close()
        self._entry = None

    def _disarm(self) -> None:
        """Stop every cut. A last SIGALRM may land in here: then start over, until done."""
        while self._armed:
            try:
                self._armed = False
                if self.signals:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    signal.signal(signal.SIGALRM, self._saved or signal.SIG_DFL)
                sys.settrace(self._trace)
                sys.setprofile(self._profiler)
            except Cut:
                self._armed = True

    def _ring(self, _signum: int, frame: FrameType | None) -> None:
        """SIGALRM: cut, ring again soon, and from now on cut at each line of the loop."""
        below = self._below(frame)
        if not self._armed or below is None:  # the loop is already out: nothing to cut
            return
        signal.setitimer(signal.ITIMER_REAL, AGAIN)
        self._hook(below)
        self.cut = self.cut or TimeUp(self.whole or self.seconds or 0, self.whole is not None)
        # Raise here only in the loop's code or the harness's: the signal may land in a
        # library, or in a __del__ that the garbage collector runs meanwhile, where an
        # exception is lost (« Exception ignored in… »). Then the loop's next line raises.
        if frame is not None and _ours(frame.f_code.co_filename, self.files):
            self.check()

    def _hook(self, frames: list[FrameType]) -> None:
        """Trace each line of the loop's code, its running frames and the ones to come."""
        sys.settrace(self._call)
        sys.setprofile(self._profile)
        for running in frames:
            if running.f_code.co_filename in self.files:
                running.f_trace = self._line

    def _below(self, frame: FrameType | None) -> list[FrameType] | None:
        """The frames from `frame` up to the guard's own (excluded); None if not under it."""
        frames = []
        while frame is not None and frame is not self._entry:
            frames.append(frame)
            frame = frame.f_back
        return frames if frame is not None and frames else None

    def _call(self, frame: FrameType, event: str, arg: Any) -> Any:
        """sys.settrace: trace only the loop's own code (the harness runs at full speed)."""
        return self._line if frame.f_code.co_filename in self.files else None

    def _line(self, frame: FrameType, event: str, arg: Any) -> Any:
        """Each line of the loop's code, once traced: past the deadline, cut it there."""
        if self._armed and event == "line" and (self.cut is not None or not self.signals):
            # Python switches tracing off when a tracer raises: the profile hook (which
            # sees every call) switches it on again, so that a bare `except:` runs on
            # only until its next call.
            sys.setprofile(self._profile)
            self.check()
        return self._line

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        """sys.setprofile, once cut: tracing back on, if a cut switched it off."""
        if self._armed and self.cut is not None and sys.gettrace() is None:
            self._hook(self._below(frame) or [])
