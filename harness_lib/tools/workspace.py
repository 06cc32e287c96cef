"""The workspace: the one folder that the file tools may read, list and edit.

Every path sent by the model goes through `Workspace.resolve()`, which refuses
whatever leads outside the folder: `..`, absolute paths, `~`, symbolic links to
the outside, NUL bytes, newlines, very long paths. Files are then opened without
following links, and the opened file is located again: a file swapped for a
link between the check and the use is caught too.

A failure raises `ToolError`; tool.py turns it into an "Erreur : ..." observation.

>>> import pathlib, tempfile
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> _ = (root / "README.md").write_text("# Mini harness")
>>> ws = Workspace(root)
>>> ws.read_text("README.md")
'# Mini harness'
>>> ws.read_text("../secret.txt")
Traceback (most recent call last):
    ...
harness_lib.errors.ToolError: chemin refusé : ../secret.txt sort du dossier de travail
"""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path
from typing import BinaryIO

from ..errors import ToolError
from ..messages import valid_text
from ..text import french_number
from .output import unencodable

MAX_PATH = 1024  # characters: real paths are far shorter, longer ones are accidents or attacks
MAX_FILE_BYTES = 2_000_000  # bigger files are not read: no model context could hold them
MAX_CHARS = 100_000  # characters of text given back to the model
BINARY_PREVIEW = 1_000  # bytes of a binary file shown: their content means little to a model
MAX_ENTRIES = 200  # lines of a listing
DEPTH = 2  # levels of a listing: the folder and its subfolders
NOT_EXPANDED = {".git", "node_modules", "__pycache__", ".venv"}  # listed, never opened: noise


class Workspace:
    """A folder, and the safe ways to touch what is inside it."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(os.path.realpath(root))  # only real paths are ever compared
        if not self.root.is_dir():
            raise NotADirectoryError(f"{root} n’est pas un dossier")

    def resolve(self, path: str) -> Path:
        """The real path of `path`, if it stays inside the workspace; else ToolError."""
        problem = _path_problem(path)
        if problem:
            raise ToolError(f"chemin refusé : {problem}")
        # realpath follows every link and every `..`: what is left is where the OS would go.
        real = Path(os.path.realpath(self.root / path))
        if not real.is_relative_to(self.root):
            raise ToolError(f"chemin refusé : {path} sort du dossier de travail")
        return real

    def open_file(self, path: str, writable: bool = False) -> BinaryIO:
        """Open a regular file of the workspace, safely (see `_open`)."""
        fd = self._open(path, os.O_RDWR if writable else os.O_RDONLY)
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            if stat.S_ISDIR(mode):
                raise ToolError(f"{path} est un dossier : utilisez list_files")
            raise ToolError(f"{path} n’est pas un fichier ordinaire")
        return os.fdopen(fd, "r+b" if writable else "rb")

    def read_text(self, path: str) -> str:
        """The file's text for the model: capped, with binary or non-UTF-8 content marked."""
        with self.open_file(path) as file:
            data = file.read(MAX_FILE_BYTES + 1)  # never more: the file may be huge
        if len(data) > MAX_FILE_BYTES:
            raise ToolError(f"{path} dépasse {french_number(MAX_FILE_BYTES)} octets : "
                            "lisez-en un extrait "
                            "avec bash (head, grep)")
        return cap(_decode(data))

    def edit(self, path: str, old: str, new: str) -> str:
        """Replace the one exact occurrence of `old` by `new`; refuse 0 or several."""
        if not old:
            raise ToolError("old est vide : donnez le passage exact à remplacer")
        for name, text in (("old", old), ("new", new)):
            if valid_text(text) != text:  # a lone surrogate (\udce9) has no UTF-8 form
                raise ToolError(f"{name} contient un caractère invalide (une moitié de paire "
                                "de substitution, U+D800 à U+DFFF) : edit_file n’écrit que "
                                "de l’UTF-8 valide")
        # One open file for reading and writing: nothing can be swapped in between.
        with self.open_file(path, writable=True) as file:
            text = _editable(file.read(MAX_FILE_BYTES + 1), path)
            count = text.count(old)
            if count == 0:
                raise ToolError(f"old introuvable dans {path} (0 occurrence) : relisez le "
                                "fichier, le passage doit être exact, espaces compris")
            if count > 1:
                raise ToolError(f"old apparaît {count} fois dans {path} : il doit être unique, "
                                "ajoutez des lignes voisines")
            line = text.count("\n", 0, text.index(old)) + 1
            file.seek(0)
            file.write(text.replace(old, new).encode("utf-8"))
            file.truncate()
        return f"Fichier modifié : {path} (1 occurrence remplacée, ligne {line})"

    def listing(self, path: str = ".") -> str:
        """Sorted entries, folders ending with "/", DEPTH levels, MAX_ENTRIES lines at most."""
        fd = self._open(path, os.O_RDONLY)
        try:
            if not stat.S_ISDIR(os.fstat(fd).st_mode):
                raise ToolError(f"{path} n’est pas un dossier : utilisez read_file")
            where = Path(_opened_path(fd)).relative_to(self.root).as_posix()
            lines: list[str] = []
            _walk(fd, "" if where == "." else f"{where}/", DEPTH, lines)
        finally:
            os.close(fd)
        if len(lines) > MAX_ENTRIES:
            lines[MAX_ENTRIES:] = [f"… [liste tronquée à {french_number(MAX_ENTRIES)} entrées : "
                                   "listez un sous-dossier]"]
        text = "\n".join(lines)
        shown = valid_text(text)  # a name that is not UTF-8 holds lone surrogates: said
        if shown != text:
            shown = f"[noms non UTF-8 : octets illisibles remplacés par �]\n{shown}"
        return shown or f"{path} est vide"

    def _open(self, path: str, flags: int) -> int:
        """os.open of a resolved path that cannot be tricked by a link swapped in meanwhile."""
        real = self.resolve(path)
        # O_NOFOLLOW: if the file became a link since resolve(), opening fails.
        # O_NONBLOCK: opening a FIFO would otherwise wait forever for a writer.
        try:
            fd = os.open(real, flags | os.O_NOFOLLOW | os.O_NONBLOCK)
        except (FileNotFoundError, NotADirectoryError):
            raise ToolError(f"{path} introuvable") from None
        except IsADirectoryError:
            raise ToolError(f"{path} est un dossier : utilisez list_files") from None
        except OSError as err:
            raise ToolError(f"{path} : ouverture refusée ({err.strerror})") from None
        # A folder of the path may have been swapped for a link too: ask the OS where we are.
        try:
            inside = Path(_opened_path(fd)).is_relative_to(self.root)
        except OSError:
            inside = False  # cannot tell: refuse
        if not inside:
            os.close(fd)
            raise ToolError(f"chemin refusé : {path} sort du dossier de travail")
        return fd


def _path_problem(path: object) -> str | None:
    """Why a path is refused before even looking at the disk, or None."""
    if not isinstance(path, str):
        return "le chemin doit être une chaîne de caractères"
    if len(path) > MAX_PATH:
        return (f"chemin trop long ({french_number(len(path))} caractères, "
                f"maximum {french_number(MAX_PATH)})")
    if "\0" in path:
        return "caractère NUL interdit dans un chemin"
    try:
        os.fsencode(path)
    except UnicodeEncodeError as err:  # `\ud800`: no file name can hold it
        return unencodable(err)
    if "\n" in path or "\r" in path:
        return "retour à la ligne interdit dans un chemin"
    if path.startswith("~"):
        return f"{path} vise le dossier personnel, hors du dossier de travail"
    if os.path.isabs(path):
        return f"{path} est un chemin absolu : donnez un chemin relatif au dossier de travail"
    return None


def _opened_path(fd: int) -> str:
    """Where an open file really is, according to the OS (macOS: F_GETPATH, Linux: /proc)."""
    if hasattr(fcntl, "F_GETPATH"):
        return os.fsdecode(fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024)).rstrip(b"\0"))
    return os.readlink(f"/proc/self/fd/{fd}")


def cap(text: str, limit: int = MAX_CHARS) -> str:
    """`text`, cut at `limit` characters with a visible marker."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… [tronqué : {french_number(len(text) - limit)} caractères de plus]"


def _decode(data: bytes) -> str:
    """Text as is; otherwise a marked, readable approximation (never an exception)."""
    if b"\0" in data:  # NUL bytes: a binary file, not text
        preview = data[:BINARY_PREVIEW].decode("utf-8", "replace").replace("\0", "�")
        return (f"[fichier binaire de {french_number(len(data))} octets : début seulement, "
                f"octets illisibles remplacés par �]\n{preview}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        return f"[fichier non UTF-8 : octets illisibles remplacés par �]\n{text}"


def _editable(data: bytes, path: str) -> str:
    """The text of a file that edit_file may change, or ToolError."""
    if len(data) > MAX_FILE_BYTES:
        raise ToolError(f"{path} dépasse {french_number(MAX_FILE_BYTES)} octets : "
                        "edit_file ne le modifie pas")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{path} n’est pas un texte UTF-8 : edit_file ne le modifie pas") from None


def _walk(fd: int, prefix: str, depth: int, lines: list[str]) -> None:
    """Append the entries of the open folder `fd`, and of its subfolders down to `depth`."""
    with os.scandir(fd) as entries:
        ordered = sorted(entries, key=lambda entry: entry.name)
    for entry in ordered:
        if len(lines) > MAX_ENTRIES:
            return  # enough: listing() adds the marker
        folder = entry.is_dir(follow_symlinks=False)  # a link is listed, never followed
        lines.append(f"{prefix}{entry.name}{'/' if folder else ''}")
        if not folder or depth <= 1 or entry.name in NOT_EXPANDED:
            continue
        # Opened relative to the checked folder, without following a link: no way out.
        try:
            child = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        except OSError:
            continue  # unreadable or swapped meanwhile: listed, not expanded
        try:
            _walk(child, f"{prefix}{entry.name}/", depth - 1, lines)
        finally:
            os.close(child)
