"""The bash tool in the browser: Pyodide starts no process, so there is no bash to run.

`run(command, cwd, timeout)` answers like shell.run (the output, then « [code de sortie :
N] »; ToolError when the code is not 0, ToolTimeout when time is up) for one simple
command, run inside this Python:

- `python FICHIER.py ARGS…`, `python -m MODULE`, `python -c CODE` (or python3): the script
  runs in this interpreter, in `cwd`, as `__main__`, with its own sys.argv; what it prints
  is the output, SystemExit its exit code, a traceback a failure (code 1); the modules it
  imported from `cwd` are forgotten after, so a corrected `price.py` is read again;
- `sleep N`, `echo …` (with `$NOM` and `${NOM:-défaut}`), `cat FICHIER`, `ls [DOSSIER]`,
  `pwd`, `true`, `false`;
- anything else (another program, `|`, `;`, `&&`, `>`...): exit code 127 and a sentence
  that says what the browser version leaves out.

As with bash, variables that look like secrets are hidden from the command (and from the
script's os.environ while it runs). Time is checked between two lines of Python and
`sleep` stops at the deadline; a call that blocks inside C (a long `time.sleep` in a
script) is not interrupted: the deadline is seen when it returns.

>>> import tempfile
>>> print(run("echo bonjour", tempfile.gettempdir(), timeout=5))
bonjour
[code de sortie : 0]
"""

from __future__ import annotations

import io
import os
import re
import runpy
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from types import FrameType
from typing import Any

from ..limits import TOOL_TIMEOUT
from ..secrets import scrubbed_env
from .output import HeadTail
from .shell import MAX_OUTPUT_BYTES, verdict

OPERATORS = set("|&;<>()`")  # what bash would read as more than one simple command
VARIABLE = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)")  # ${NOM:-défaut}, ${NOM}, $NOM
KNOWN = "python FICHIER.py, python -m, python -c, echo, cat, ls, pwd, sleep, true, false"
NO_BASH = ("dans le navigateur, il n’y a pas de bash : cette version du cours lance "
           f"une commande simple à la fois, parmi {KNOWN} ({{why}})")


class _TimeUp(BaseException):
    """Raised inside a script at the deadline; a BaseException, so `except Exception`
    in the script does not swallow it."""


def run(command: str, cwd: str | Path, timeout: float = TOOL_TIMEOUT) -> str:
    """Output and exit code of one simple command; ToolError on failure, ToolTimeout on time up."""
    output = io.StringIO()
    code: int | None = None  # None: time ran out
    try:
        code = _dispatch(command, Path(cwd).resolve(), time.monotonic() + timeout, output)
    except _TimeUp:
        pass
    return verdict(_capped(output), code, timeout)


def _capped(output: io.StringIO) -> str:
    """The output as the model gets it from bash: head and tail, within MAX_OUTPUT_BYTES."""
    kept = HeadTail(MAX_OUTPUT_BYTES)
    kept.add(output.getvalue().encode("utf-8", "replace"))
    return kept.text()


def _dispatch(command: str, cwd: Path, deadline: float, out: io.StringIO) -> int:
    """Split the command as bash would, then run its program; the exit code."""
    try:
        words = shlex.split(_expand(command))
    except ValueError as err:  # an unclosed quote
        out.write(f"bash : {err}\n")
        return 2
    if any(set(word) & OPERATORS for word in _unquoted(command)) or not words:
        out.write(NO_BASH.format(why="ni |, ;, &&, > ni <") + "\n")
        return 127
    program, args = words[0], words[1:]
    if program in ("python", "python3"):
        return _python(args, cwd, deadline, out)
    builtin = BUILTINS.get(program)
    if builtin is None:
        out.write(f"{program} : " + NO_BASH.format(why="pas d’autre programme") + "\n")
        return 127
    return builtin(args, cwd, deadline, out)


def _unquoted(command: str) -> list[str]:
    """The command's parts outside quotes, where |, ; or > are operators."""
    lexer = shlex.shlex(command, posix=False, punctuation_chars=True)
    return [part for part in lexer if not part.startswith(("'", '"'))]


def _expand(command: str) -> str:
    """$NOM, ${NOM} and ${NOM:-défaut} from the environment without secrets (not inside
    single quotes, as in bash)."""
    env = scrubbed_env(os.environ)

    def value(match: re.Match[str]) -> str:
        name = match[1] or match[3]
        found = env.get(name, "")
        return found if found or match[2] is None else match[2]

    parts = re.split(r"('[^']*')", command)
    return "".join(p if p.startswith("'") else VARIABLE.sub(value, p) for p in parts)


def _python(args: list[str], cwd: Path, deadline: float, out: io.StringIO) -> int:
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
    """Raise _TimeUp in the script at the first line of Python run after the deadline."""
    previous = sys.gettrace()

    def check(frame: FrameType, event: str, arg: object) -> Any:
        if time.monotonic() >= deadline:
            raise _TimeUp
        return check

    sys.settrace(check)
    try:
        yield
    finally:
        sys.settrace(previous)


def _sleep(args: list[str], cwd: Path, deadline: float, out: io.StringIO) -> int:
    try:
        seconds = float(args[0]) if len(args) == 1 else -1.0
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        out.write("sleep : une durée en secondes attendue, par exemple sleep 2\n")
        return 1
    time.sleep(max(0.0, min(seconds, deadline - time.monotonic())))
    if time.monotonic() >= deadline:
        raise _TimeUp
    return 0


def _cat(args: list[str], cwd: Path, deadline: float, out: io.StringIO) -> int:
    code = 0
    for name in args:
        try:
            out.write((cwd / name).read_text(encoding="utf-8", errors="replace"))
        except OSError as err:
            out.write(f"cat : {name} : {err.strerror}\n")
            code = 1
    return code


def _ls(args: list[str], cwd: Path, deadline: float, out: io.StringIO) -> int:
    folder = cwd / (args[0] if args else ".")
    if not folder.is_dir():
        out.write(f"ls : impossible d’accéder à {folder.name} : dossier introuvable\n")
        return 2
    out.writelines(f"{entry.name}\n" for entry in sorted(folder.iterdir())
                   if not entry.name.startswith("."))
    return 0


BUILTINS: dict[str, Callable[[list[str], Path, float, io.StringIO], int]] = {
    "echo": lambda args, cwd, deadline, out: out.write(" ".join(args) + "\n") and 0,
    "pwd": lambda args, cwd, deadline, out: out.write(f"{cwd}\n") and 0,
    "true": lambda args, cwd, deadline, out: 0,
    "false": lambda args, cwd, deadline, out: 1,
    "sleep": _sleep, "cat": _cat, "ls": _ls,
}
