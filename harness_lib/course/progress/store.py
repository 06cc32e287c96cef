"""The learner's progress file, `progression.json`: read, one item recorded, started over, exported.

The file sits where the notebooks run (the kernel's folder; in the JupyterLite site, the
browser's storage that keeps the notebooks), or where `HARNESS_PROGRESSION` says. Each
write is whole or nothing (`files.write_atomically`), and one kernel at a time changes
it (`one_writer`: two notebooks open at once keep both their answers). A file that cannot
be read is never overwritten: `record` raises `ProgressError` and the widget says so;
only `start_over` sets it aside, renamed, and says where.

>>> import tempfile
>>> path = Path(tempfile.mkdtemp()) / "progression.json"
>>> _ = record("04-facture", Item("question", "04", answer="36 000", correct=False,
...            verdict="Non : 234 000."), path)
>>> read_progress(path).items["04-facture"].correct
False
>>> export_progress(path, learner="Ada Lovelace", day=date(2026, 12, 2)).name
'progression-ada-lovelace-2026-12-02.json'
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import date, datetime, timezone
from pathlib import Path

from ...errors import FileError
from ...files import read_capped, write_atomically
from ...secrets import redact
from .form import LEARNER_LIMIT, Item, Progress, ProgressError, progress_from_json, to_json

FILE_NAME = "progression.json"
ENV_PATH = "HARNESS_PROGRESSION"  # another place for the file (tests, a shared workspace)
SIZE_LIMIT = 2_000_000  # bytes: a course's answers fit many times over
TEXT_LIMIT = 2_000  # characters kept of one written answer


def progress_path() -> Path:
    """Where the learner's progress is kept: $HARNESS_PROGRESSION, else ./progression.json."""
    return Path(os.environ.get(ENV_PATH) or FILE_NAME)


def now() -> str:
    """This instant, as the file writes it (ISO 8601, UTC, to the second)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def read_progress(path: Path | str, missing_ok: bool = False) -> Progress:
    """The progress in `path`; ProgressError, in French, naming the file and the field, if
    the file is not one. A missing file is an empty progress if `missing_ok`."""
    path = Path(path)
    if missing_ok and not os.path.lexists(path):
        return Progress()
    try:
        data = json.loads(read_capped(path, SIZE_LIMIT).decode("utf-8"))
    except FileError as err:
        raise ProgressError(f"fichier de progression {err}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        where = f" (ligne {err.lineno})" if isinstance(err, json.JSONDecodeError) else ""
        raise ProgressError(f"« {path} » n’est pas un fichier JSON lisible{where} : "
                            "ce n’est pas un fichier de progression") from None
    try:
        return progress_from_json(data)
    except ProgressError as err:
        raise ProgressError(f"« {path} » : {err}") from None


def write_progress(path: Path | str, progress: Progress) -> None:
    """Write `progress` to `path`, whole or not at all (ProgressError if it cannot)."""
    text = json.dumps(to_json(progress), ensure_ascii=False, indent=1) + "\n"
    try:
        write_atomically(Path(path), text.encode("utf-8"))
    except FileError as err:
        raise ProgressError(f"progression non enregistrée : {err}") from None


@contextmanager
def one_writer(path: Path) -> Iterator[None]:
    """Held while a kernel reads the file, changes it and writes it back: two kernels (two
    notebooks open) would each read the same file, and the second write would drop the first
    one's answer. The lock is on the file's folder (the file itself is replaced at each
    write), released when its descriptor closes, even if the kernel dies. Where no lock can be
    taken (Windows has no `fcntl`; the browser's kernel and some network shares have no
    locks), each write stays whole and the last one wins, as before."""
    try:
        import fcntl  # Unix only; Pyodide's has no flock

        lock, exclusive = fcntl.flock, fcntl.LOCK_EX
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    except (ImportError, AttributeError, OSError):  # no folder: the write says so, in French
        yield
        return
    try:
        try:
            lock(folder, exclusive)
        except OSError:  # a file system without locks
            pass
        yield
    finally:
        os.close(folder)


def record(name: str, item: Item, path: Path | str | None = None) -> Progress:
    """Keep `item` as what was done on `name` (a question's id, "08-grade"…), dated now,
    its texts without any secret; the progress as written. ProgressError, and nothing
    written, if the file there cannot be read."""
    path = progress_path() if path is None else Path(path)
    answer = redact(item.answer)[:TEXT_LIMIT] if isinstance(item.answer, str) else item.answer
    kept = replace(item, answer=answer, verdict=redact(item.verdict), at=item.at or now())
    with one_writer(path):
        progress = read_progress(path, missing_ok=True)
        progress = replace(progress, updated=kept.at, items={**progress.items, name: kept})
        write_progress(path, progress)
    return progress


def forget(names: list[str], path: Path | str | None = None) -> Progress:
    """Start `names` over: their items removed from the file (ProgressError if unreadable)."""
    path = progress_path() if path is None else Path(path)
    with one_writer(path):
        progress = read_progress(path, missing_ok=True)
        items = {name: item for name, item in progress.items.items() if name not in names}
        if items != progress.items:
            progress = replace(progress, updated=now(), items=items)
            write_progress(path, progress)
    return progress


def set_aside(path: Path | str | None = None) -> Path | None:
    """Move the file away (renamed `progression-mise-de-cote-<instant>.json`, kept, never
    deleted) so that the course starts over; where it went, or None if there was none."""
    path = progress_path() if path is None else Path(path)
    if not os.path.lexists(path):
        return None
    stamp = datetime.now().strftime("%Y-%m-%d-%H%M%S")
    target = path.with_name(f"{path.stem}-mise-de-cote-{stamp}{path.suffix}")
    try:
        with one_writer(path):
            os.replace(path, target)
    except OSError as err:
        raise ProgressError(f"impossible de mettre « {path} » de côté : {err.strerror}") from None
    return target


def slug(name: str) -> str:
    """A learner's name as a file name's part: « Ada Lovelace » -> « ada-lovelace »."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")[:40] or "anonyme"


def export_progress(path: Path | str | None = None, learner: str | None = None,
                    folder: Path | str | None = None, day: date | None = None) -> Path:
    """Copy the progress to `progression-<nom ou anonyme>-<AAAA-MM-JJ>.json` in `folder`
    (the progress file's folder by default), `learner` (if given) written in it; its path."""
    path = progress_path() if path is None else Path(path)
    progress = read_progress(path, missing_ok=True)
    if learner is not None:
        progress = replace(progress, learner=redact(learner.strip())[:LEARNER_LIMIT])
    progress = replace(progress, updated=progress.updated or now())
    day = day or date.today()
    target = Path(folder or path.parent) / f"progression-{slug(progress.learner)}-{day}.json"
    write_progress(target, progress)
    return target
