"""The learner's progress: what was answered, passed, graded, kept outside the kernel.

    form.py    the file's form (format « la-boucle-agentique/progression », version 1):
               `Item`, `Progress`, `ProgressError`, the check of a file read back
    store.py   `progression.json`: `read_progress`, `record`, `forget`, `set_aside`,
               `export_progress` (each write whole or nothing)
    keep.py    what the widgets call: `keep`, `recall`, `start_over`, never an exception
               (a French sentence says what went wrong)

Standard library and the harness only (no widget): the teacher's side reads files
through `read_progress` too. Nothing of the course's other folders is imported.

>>> from harness_lib.course.progress import Progress, read_progress
>>> Progress().items
{}
"""

from __future__ import annotations

from .form import FORMAT, KINDS, VERSION, Item, Progress, ProgressError
from .store import (
                    ENV_PATH,
                    FILE_NAME,
                    export_progress,
                    forget,
                    now,
                    progress_path,
                    read_progress,
                    record,
                    set_aside,
                    write_progress,
)

__all__ = ["ENV_PATH", "FILE_NAME", "FORMAT", "KINDS", "VERSION", "Item", "Progress",
           "ProgressError", "export_progress", "forget", "now", "progress_path", "read_progress",
           "record", "set_aside", "write_progress"]
