"""The bash tool in the browser: Pyodide starts no process, so there is no bash to run.

`run(command, cwd, timeout)` answers like shell.run (the output, then « [code de sortie :
N] »; ToolError when the code is not 0, ToolTimeout when time is up) for one simple
command, run inside this Python:

- `python FICHIER.py ARGS…`, `python -m MODULE`, `python -c CODE` (or python3): the script
  runs in this interpreter (`in_process.py`), as a child process would: in `cwd`, as
  `__main__`, its own sys.argv, its output, its exit code;
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
import shlex
import time
from collections.abc import Callable
from pathlib import Path

from ..limits import TOOL_TIMEOUT
from ..secrets import scrubbed_env
from .in_process import NO_BASH, TimeUp, python
from .output import HeadTail
from .shell import MAX_OUTPUT_BYTES, verdict

OPERATORS = set("|&;<>()`")  # what bash would read as more than one simple command
VARIABLE = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)")  # ${NOM:-défaut}, ${NOM}, $NOM


def run(command: str, cwd: str | Path, timeout: float = TOOL_TIMEOUT) -> str:
    """Output and exit code of one simple command; ToolError on failure, ToolTimeout on time up."""
    output = io.StringIO()
    code: int | None = None  # None: time ran out
    try:
        code = _dispatch(command, Path(cwd).resolve(), time.monotonic() + timeout, output)
    except TimeUp:
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
        return python(args, cwd, deadline, out)
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


def _sleep(args: list[str], cwd: Path, deadline: float, out: io.StringIO) -> int:
    try:
        seconds = float(args[0]) if len(args) == 1 else -1.0
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        out.write("sleep : une durée en secondes attendue, par exemple sleep 2\n")
        return 1
    left = deadline - time.monotonic()
    time.sleep(max(0.0, min(seconds, left)))
    # Decided by the durations, not by the clock read again: a browser's clock is coarse
    # and jittered, and may read just short of the deadline after sleeping up to it.
    if seconds >= left:
        raise TimeUp
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
