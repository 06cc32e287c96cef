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
- Beside both, wherever a thread can start, a watchdog that needs no signal: a loop may
  install its own SIGALRM handler, ignore or block it, or cancel the timer (the textbook
  timeout). Past the deadline, once SIGALRM has been silent for `GRACE`, it raises the cut
  into the loop's thread (`PyThreadState_SetAsyncExc`), again every 20 ms; the cut, where it
  lands, switches the line tracer on, as SIGALRM does. What it cannot cut: a call into C
  that never returns (a `time.sleep` whose signal the loop ignores ends first), nor a loop
  that switches tracing off again in its own `except:` at each turn.
`os._exit()` and `os.abort()` would end the kernel: while the guard runs, they raise `Quit`
(in the guard's process only: a child the loop forks exits for real).
While it runs, what the loop prints goes to `Capped`: the first 2 000 characters are kept.

>>> with Guard(None) as guard:
...     print("bonjour")
>>> guard.output.text, guard.output.total
('bonjour\\n', 8)
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType, SimpleNamespace, TracebackType
from typing import Any

try:
    import ctypes
except ImportError:  # a Python without it: no watchdog, SIGALRM and the tracer only
    ctypes = None  # type: ignore[assignment]

OUTPUT_LIMIT = 2_000  # characters of a loop's output kept for its report
AGAIN = 0.02  # seconds between two cuts, while a loop swallows them
GRACE = 0.1  # seconds of silence from SIGALRM past the deadline before the watchdog raises
PATIENCE = 50  # watchdog tries that wait for the loop's own code, before raising anywhere
EXITS = [(m, n) for m in (os, sys.modules.get("posix"), sys.modules.get("nt")) if m is not None
         for n in ("_exit", "abort") if hasattr(m, n)]  # os._exit is posix._exit: both swapped
NOTE_NO_SIGNAL = ("Ici, le correcteur ne peut pas interrompre votre code à coup sûr (pas de "
                  "signal dans ce contexte : navigateur ou thread secondaire) : il coupe une "
                  "boucle qui tourne, pas une attente (`time.sleep`) ni une boucle qui "
                  "rattrape tout avec un `except:` nu. Si la cellule ne s’arrête pas, "
                  "interrompez-la (■).")


# What the guard itself calls, kept from before any loop could rebind `signal.signal` and co.
REAL = SimpleNamespace(signal=signal.signal, setitimer=getattr(signal, "setitimer", None),
                       settrace=sys.settrace, setprofile=sys.setprofile,
                       pthread_sigmask=getattr(signal, "pthread_sigmask", lambda *a: set()))
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


class _Drained(BaseException):
    """What replaces a cut still on its way once the loop is out (Guard._drain)."""


def raise_in(thread: int | None, kind: type[BaseException]) -> int:
    """Raise `kind` in the thread `thread` at its next bytecode; 1 if it was found."""
    if ctypes is None or not hasattr(ctypes, "pythonapi"):
        return 0
    return int(ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread or 0),
                                                           ctypes.py_object(kind)))


class Quit(Cut):
    """Raised instead of `os._exit()` or `os.abort()`, which would end the kernel."""

    reason = "exception"  # a code the course already says in French (run_notes.STOP_REASONS)

    def __init__(self, how: str) -> None:
        self.how = how
        super().__init__(f"la boucle a appelé `{how}()`, qui arrête Python.")


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
        self._lock, self._over, self._thread = threading.Lock(), threading.Event(), None
        self.watchdog: threading.Thread | None = None  # the guard's own thread, if any
        self._raised, self._rings = 0, 0  # cuts the watchdog raised; SIGALRMs received

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
        for module, name in EXITS:  # the kernel's end, turned into a cut of the loop
            self._stack.callback(setattr, module, name, getattr(module, name))
            setattr(module, name, self._quit(name, getattr(module, name)))
        self._trace, self._profiler = sys.gettrace(), sys.getprofile()
        self._entry = sys._getframe(1)  # the frame of `with guard:`: cuts happen below it only
        if self.deadline is None:
            return self
        self._armed = True
        if self.signals:
            self._mask = REAL.pthread_sigmask(signal.SIG_BLOCK, [])
            self._saved = REAL.signal(signal.SIGALRM, self._ring)
            REAL.setitimer(signal.ITIMER_REAL, max(self.deadline - time.monotonic(), 1e-3))
        else:
            sys.settrace(self._call)  # no signal: each line of the loop's code checks the clock
        self._watchdog()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._disarm()
        self._stack.close()
        self._entry = None

    def _disarm(self) -> None:
        """Stop every cut. A last one may land in here: then start over, until done."""
        while self._armed:
            try:
                with self._lock:  # once out of here, the watchdog raises nothing more
                    self._armed = False
                self._over.set()
                self._drain()
                if self.signals:
                    REAL.setitimer(signal.ITIMER_REAL, 0)
                    REAL.signal(signal.SIGALRM, self._saved or signal.SIG_DFL)
                    REAL.pthread_sigmask(signal.SIG_SETMASK, self._mask)
                REAL.settrace(self._trace)
                REAL.setprofile(self._profiler)
            except Cut:
                self._armed = True

    def _drain(self) -> None:
        """A cut the watchdog raised that has not landed yet: replaced by `_Drained`, caught
        here (clearing it with NULL leaves CPython 3.11's eval breaker set for good)."""
        if not self._raised:
            return
        try:
            if raise_in(self._thread, _Drained):
                for _ in range(10**7):  # it lands at the first jump back
                    pass
            self._raised = 0  # no thread found: nothing on its way
        except _Drained:
            self._raised = 0

    def _quit(self, name: str, real: Any) -> Any:
        """`os.<name>` for the loop: a cut; in a child it forked (multiprocessing), the real one."""
        pid = os.getpid()

        def quit(*args: Any) -> None:
            if os.getpid() != pid:
                real(*args)
            self.stop(Quit(f"os.{name}"))
        return quit

    def _watchdog(self) -> None:
        """Start the thread that cuts the loop without SIGALRM (see the module's doc)."""
        if sys.platform == "emscripten" or not hasattr(ctypes, "pythonapi"):  # no thread
            return
        guard = self

        class Late(TimeUp):  # instantiated where it lands: in the loop's thread
            def __init__(self) -> None:
                super().__init__(guard.whole or guard.seconds or 0, guard.whole is not None)
                guard.cut, guard.cuts = guard.cut or self, guard.cuts + 1
                guard._hook(guard._below(sys._getframe(1)) or [])

        self._late, thread = Late, threading.Thread(target=self._watch, daemon=True,
                                                    name="correcteur")
        self._thread, self.watchdog = threading.get_ident(), thread
        try:
            thread.start()
        except RuntimeError:  # no thread here
            self._thread = self.watchdog = None

    def _watch(self) -> None:
        """In its own thread, past the deadline, while SIGALRM is silent (replaced, ignored,
        blocked, its timer cancelled, or no signal here): raise the cut into the loop's
        thread, preferably in the loop's own code or the harness's, again every AGAIN."""
        wait, tries, heard, quiet = (self.deadline or 0) - time.monotonic(), 0, -1, 0
        while not self._over.wait(max(wait, 0)):
            wait, quiet = AGAIN, 0 if self._rings != heard else quiet + 1
            heard = self._rings
            if self.signals and quiet * AGAIN < GRACE:  # SIGALRM still rings: its job
                continue
            with self._lock:
                frame, tries = sys._current_frames().get(self._thread or 0), tries + 1
                if not self._armed or frame is None:
                    return
                if _ours(frame.f_code.co_filename, self.files) or tries > PATIENCE:
                    self._raised += raise_in(self._thread, self._late)

    def _ring(self, _signum: int, frame: FrameType | None) -> None:
        """SIGALRM: cut, ring again soon, and from now on cut at each line of the loop."""
        below, self._rings = self._below(frame), self._rings + 1
        if not self._armed or below is None:  # the loop is already out: nothing to cut
            return
        REAL.setitimer(signal.ITIMER_REAL, AGAIN)
        self._hook(below)
        self.cut = self.cut or TimeUp(self.whole or self.seconds or 0, self.whole is not None)
        # Raise here only in the loop's code or the harness's: the signal may land in a
        # library, or in a __del__ that the garbage collector runs meanwhile, where an
        # exception is lost (« Exception ignored in… »). Then the loop's next line raises.
        if frame is not None and _ours(frame.f_code.co_filename, self.files):
            self.check()

    def _hook(self, frames: list[FrameType]) -> None:
        """Trace each line of the loop's code, its running frames and the ones to come."""
        REAL.settrace(self._call)
        REAL.setprofile(self._profile)
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
