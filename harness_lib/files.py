"""Files the harness itself reads and writes (traces, diagrams): nothing lost, nothing stuck.

A named pipe (FIFO) or a device given as a file name would make a plain `open()` wait
for ever; a huge file would fill the memory; an interrupted write would leave half a
file. So: `read_capped` opens without waiting (O_NONBLOCK) and reads only a regular
file, at most `limit` bytes; `write_atomically` writes a temporary file beside the
target, then renames it over the target (`os.replace`): the target is whole, old or
new, never half written. Failures are `FileError`s in French, the system's own
English words translated (errors.os_error_text).

>>> import tempfile
>>> target = Path(tempfile.mkdtemp()) / "trace.jsonl"
>>> write_atomically(target, b"{}\\n")
>>> read_capped(target, limit=10)
b'{}\\n'
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .errors import FileError, os_error_text
from .text import french_number

KINDS = {stat.S_IFIFO: "un tube nommé (FIFO)", stat.S_IFCHR: "un périphérique",
         stat.S_IFBLK: "un périphérique", stat.S_IFSOCK: "une socket", stat.S_IFDIR: "un dossier"}


def kind_problem(path: Path) -> str | None:
    """Why `path` is not a file to read or replace (a FIFO, a device, a folder), or None
    (a regular file, or nothing yet)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # nothing there (or unreachable): the open or the write will say so
    kind = KINDS.get(stat.S_IFMT(mode))
    if kind is None:
        return None
    return f"« {path} » est {kind}, pas un fichier ordinaire"


def read_capped(path: Path, limit: int) -> bytes:
    """The bytes of the regular file `path`, if it holds at most `limit`; else FileError."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once, unread
    except OSError as err:
        raise FileError(f"« {path} » : {os_error_text(err)}") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FileError(kind_problem(path) or f"« {path} » n’est pas un fichier ordinaire")
        data = file.read(limit + 1)  # never more: the file may be huge
    if len(data) > limit:
        raise FileError(f"« {path} » dépasse {french_number(limit)} octets : trop gros "
                        "pour être lu en entier")
    return data


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all; FileError, in French, if it cannot."""
    if problem := kind_problem(path):
        raise FileError(f"{problem} : rien n’y est écrit")
    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as err:
        raise FileError(f"impossible d’écrire dans « {path.parent} » : "
                        f"{os_error_text(err)}") from None
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(temporary, 0o644 & ~_umask())  # mkstemp's 0600 would hide it from others
        os.replace(temporary, path)
    except OSError as err:
        os.unlink(temporary)
        raise FileError(f"impossible d’écrire « {path} » : {os_error_text(err)}") from None
    except BaseException:  # Ctrl-C in the middle: no temporary file left behind
        os.unlink(temporary)
        raise


def _umask() -> int:
    """The process's umask (only readable by setting it: set back at once)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def writable_target(path: str, option: str, suffixes: tuple[str, ...] = ()) -> Path:
    """Where a command-line `option` (--trace, --out) will write, checked before any work
    (a run may be paid): a name, in a folder that exists and takes a new file, not a FIFO,
    a device or a folder, with one of `suffixes` if given; else FileError, in French.

    >>> try:
    ...     writable_target("x.gif", "--out", (".mmd", ".svg"))
    ... except FileError as err:
    ...     print(err)
    --out x.gif : extension « .gif » non prise en charge (possibles : .mmd, .svg)
    """
    if not path.strip():
        raise FileError(f"{option} est vide : donnez un nom de fichier")
    target = Path(path).expanduser()
    if suffixes and target.suffix.lower() not in suffixes:
        said = (f"extension « {target.suffix} » non prise en charge" if target.suffix
                else "il manque l’extension")
        raise FileError(f"{option} {path} : {said} (possibles : {', '.join(suffixes)})")
    if not target.parent.is_dir():
        raise FileError(f"{option} {path} : le dossier {target.parent} n’existe pas")
    if problem := kind_problem(target) or _unwritable(target.parent):
        raise FileError(f"{option} {path} : {problem}")
    return target


def _unwritable(folder: Path) -> str | None:
    """Why no file can be created in `folder` (write_atomically's temporary file), or None.
    Tried for real: permissions, a read-only disk and root's rights all answer alike."""
    try:
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".essai-", suffix=".tmp")
    except OSError as err:
        return f"impossible d’écrire dans le dossier {folder} ({os_error_text(err)})"
    os.close(fd)
    os.unlink(temporary)
    return None
