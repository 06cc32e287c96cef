"""Why bwrap could not prepare the sandbox, in French, from what it printed (English).

bwrap names the mount it could not make and the system's reason; the learner reads both
in French (which folder, which permission), then bwrap's own words, for a search.

>>> said = explain("bwrap", 1, "bwrap: Can't mkdir /nulle-part: Read-only file system\\n")
>>> said.startswith("bwrap n’a pas pu créer"), "/nulle-part" in said, "lecture seule" in said
(True, True, True)
"""

from __future__ import annotations

import errno
import os
import re

from ..errors import os_error_text
from ..text import shorten

SAID = [
    (re.compile(r"Can't mkdir (.+)"), "créer le dossier {0} pour y monter"),
    (re.compile(r"Can't mount tmpfs on (.+)"), "cacher {0} sous un dossier vide"),
    (re.compile(r"Can't create file at (.+)"), "créer le fichier {0} pour y monter"),
    (re.compile(r"Can't find source path (.+)"), "trouver le dossier à montrer {0}"),
    (re.compile(r"Can't bind mount (\S+) on (.+)"), "montrer {0}"),
    (re.compile(r"Can't chdir to (.+)"), "entrer dans l’espace de travail {0}"),
    (re.compile(r"execvp (.+)"), "lancer {0}"),
]
NAMESPACES = re.compile(r"namespace|uid map|make / slave|RTM_NEWADDR|loopback", re.I)
STRERROR = {os.strerror(number): number for number in errno.errorcode}
QUOTE_LIMIT = 200  # characters of bwrap's own line kept in the explanation


def explain(program: str, code: int, stderr: str) -> str:
    """Why `program` (bwrap) ended with `code`: the mount and the permission refused, in
    French, then its own last line (shortened); never only « échoue ici (code 1) »."""
    lines = [line.strip().removeprefix(f"{program}: ") for line in stderr.splitlines()]
    line = re.sub(r"/(?:new|old)root(?=/)", "", next(filter(None, reversed(lines)), ""))
    if not line:
        return f"{program} échoue ici (code {code}) sans dire pourquoi"
    quoted = f"il dit « {shorten(line, QUOTE_LIMIT)} »"
    if NAMESPACES.search(line):
        return (f"le système refuse à {program} de créer ses espaces de noms (un conteneur, "
                f"ou des user namespaces désactivés) ; {quoted}")
    what, _, cause = line.rpartition(": ")
    why = f" ({os_error_text(OSError(STRERROR[cause], cause))})" if cause in STRERROR else ""
    for pattern, said in SAID:
        if found := pattern.fullmatch(what or line):
            return f"{program} n’a pas pu {said.format(*found.groups())}{why} ; {quoted}"
    return f"{program} échoue ici (code {code}) ; {quoted}"
