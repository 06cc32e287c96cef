"""The teacher's commands: `classe` reads a class's progress files, `lien-hub` makes the
nbgitpuller link that opens the course on a JupyterHub.

`classe DOSSIER [--csv FICHIER]` prints a table per learner and a table per question (the
most missed first), names each file it could not read and why, and goes on with the
others; `--csv` is checked before any file is read. Exit code 0, or 1 when a file was
set aside; a missing folder, or one without any progress file, is a French error (2).

>>> import tempfile
>>> classe(tempfile.mkdtemp(), None)
Traceback (most recent call last):
    ...
harness_lib.errors.HarnessError: aucun fichier de progression (*.json) dans ce dossier
"""

from __future__ import annotations

from pathlib import Path

from ..course.teaching.classroom import learner_table, question_table, read_class, write_csv
from ..course.teaching.hub import hub_link
from ..errors import HarnessError
from ..files import writable_target
from ..text import plural
from .out import say


def classe(folder: str, csv: str | None) -> int:
    """Print the class's tables (and write its CSV); 1 if some file could not be read."""
    target = writable_target(csv, "--csv", (".csv",)) if csv is not None else None
    where = Path(folder).expanduser()
    if not where.is_dir():
        raise HarnessError("no folder", explication=f"« {folder} » n’est pas un dossier : "
                           "donnez le dossier où vous avez rassemblé les fichiers rendus")
    room = read_class(where)
    if not room.learners and not room.broken:
        raise HarnessError("aucun fichier de progression (*.json) dans ce dossier",
                           explication=f"aucun fichier de progression (*.json) dans « {folder} »")
    for broken in room.broken:
        say(f"Fichier mis de côté : {broken.error}", error=True)
    say(f"{plural(len(room.learners), 'apprenant')} ({plural(len(room.broken), 'fichier')} "
        "illisible" + ("s" if len(room.broken) > 1 else "") + ")\n")
    if room.learners:
        say("\n".join(["Par apprenant", "", *learner_table(room), ""]))
        say("\n".join(["Par question (les plus manquées d’abord)", "", *question_table(room)]))
    if target is not None:
        write_csv(room, target)
        say(f"\nTableau écrit : {target} (une ligne par apprenant, séparateur « ; »)")
    return 1 if room.broken else 0


def lien_hub(hub: str, repository: str, branch: str) -> int:
    print(hub_link(hub, repository, branch))
    return 0
