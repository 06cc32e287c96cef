"""A Python script run inside this interpreter, as a child process would run it: for the
bash tool's browser path (`browser.py`), where Pyodide starts no process.

`python(args, cwd, deadline, out)` takes what follows `python` on the command line
(`FICHIER.py ARGS…`, `-m MODULE`, `-c CODE`) and runs it in `cwd`, as `__main__`, with its
own sys.argv: what it prints goes to `out`, SystemExit is its exit code, a traceback a
failure (code 1). The modules it imported from `cwd` are forgotten after, so a corrected
`price.py` is read again. A trace function checks the deadline between two lines of Python
(`TimeUp`); a call that blocks inside C is not interrupted.

>>> import io, tempfile
>>> out = io.StringIO()
>>> python(["-c", "print(6 * 7)"], Path(tempfile.gettempdir()), float("inf"), out)
0
>>> out.getvalue()
'42\\n'
"""

from __future__ import annotations

import io
import os
import runpy
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from types import FrameType
from typing import Any

from ..secrets import scrubbed_env

KNOWN = "python FICHIER.py, python -m, python -c, echo, cat, ls, pwd, sleep, true, false"
NO_BASH = ("dans le navigateur, il n’y a pas de bash : cette version du cours lance "
           f"une commande simple à la fois, parmi {KNOWN} ({{why}})")


class TimeUp(BaseException):
    """Raised inside a script (or `sleep`) at the deadline; a BaseException, so `except Exception`
    in the script does not swallow it."""


def python(args: list[str], cwd: Path, deadline: float, out: io.StringIO) -> int:
    """python FICHIER.py | -m MODULE | -c CODE, in this interpreter; the exit code."""
    if not args or args[0] not in ("-m", "-c") and args[0].startswith("-"):
        out.write("python : " + NO_BASH.format(why="sans console interactive ni option") + "\n")
        return 127
    if args[0] in ("-m", "-c") and len(args) < 2:
        out.write(f"python : l’option {args[0]} attend un argument\n")
        return 2
    if args[0] not in ("-m", "-c") and not (cwd / args[0]).is_file():
        out.write(f"python : impossible d’ouvrir le fichier {args[0]} : fichier introuvable\n")
        return 2
    start: Callable[[], Any] = {
        "-m": lambda: runpy.run_module(args[1], run_name="__main__", alter_sys=True),
        "-c": lambda: exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"}),
    }.get(args[0], lambda: runpy.run_path(str(cwd / args[0]), run_name="__main__"))
    argv = ["-c", *args[2:]] if args[0] == "-c" else args[1:] if args[0] == "-m" else args
    with _inside(cwd, argv, out), _deadline(deadline):
        return _exit_code(start, out)


def _exit_code(start: Callable[[], Any], out: io.StringIO) -> int:
    """Run the script; its SystemExit is its exit code, an exception prints a traceback."""
    import traceback

    try:
        start()
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=out)
        return 1
    except Exception:  # the script's own failure: bash would show the same traceback
        traceback.print_exc(file=out)
        return 1
    return 0


@contextmanager
def _inside(cwd: Path, argv: list[str], out: io.StringIO) -> Iterator[None]:
    """For the script's time: its folder (cwd and first on sys.path), its argv, its output,
    no secret in os.environ. Then all back, and the modules it imported from cwd forgotten."""
    saved = (os.getcwd(), sys.argv, list(sys.path), dict(os.environ))
    hidden = set(os.environ) - set(scrubbed_env(os.environ))
    try:
        os.chdir(cwd)
        sys.argv, sys.path[:0] = argv, [str(cwd)]
        for name in hidden:
            del os.environ[name]
        with redirect_stdout(out), redirect_stderr(out):
            yield
    finally:
        os.chdir(saved[0])
        sys.argv, sys.path[:] = saved[1], saved[2]
        os.environ.clear()
        os.environ.update(saved[3])
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", None) or "").startswith(str(cwd) + os.sep):
                del sys.modules[name]


@contextmanager
def _deadline(deadline: float) -> Iterator[None]:
    """Raise TimeUp in the script at the first line of Python run after the deadline."""
    previous = sys.gettrace()

    def check(frame: FrameType, event: str, arg: object) -> Any:
        if time.monotonic() >= deadline:
            raise TimeUp
        return check

    sys.settrace(check)
    try:
        yield
    finally:
        sys.settrace(previous)
