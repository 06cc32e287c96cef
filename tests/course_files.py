"""The course's notebooks read as files (nbformat, not run): where they are, their Markdown,
and 00's route table. For tests/test_notebooks.py and test_guide.py.

    route()["01_deux_tours.ipynb"]   # (full, express) minutes, as 00 says them
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
START = NOTEBOOKS / "00_bienvenue.ipynb"
# The map of the chapter and the key's details: after the numbered notebooks, in every
# listing sorted by name (« a » sorts after the digits), so the reading order holds.
ANNEX = NOTEBOOKS / "annexe_carte_et_cle.ipynb"
README = NOTEBOOKS.parent / "README.md"


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=nbformat.NO_CONVERT)


def markdown(nb: nbformat.NotebookNode) -> list[str]:
    return [cell.source for cell in nb.cells if cell.cell_type == "markdown"]


def same_spaces(text: str) -> str:
    return text.replace("\u00a0", " ").replace("\u202f", " ")


def route() -> dict[str, tuple[int, int]]:
    """00's route table: notebook -> (full, express) minutes."""
    rows = {}
    for line in same_spaces("\n".join(markdown(read(START)))).splitlines():
        found = re.match(r"\|\s*\[(\d\d_\w+\.ipynb)\].*\|\s*(\d+) min\s*\|\s*(\d+) min\s*\|\s*$",
                         line)
        if found:
            rows[found[1]] = (int(found[2]), int(found[3]))
    return rows
