"""The solution of notebook 08, one click away: the skeleton filled, in the cell's own words.

The ✏️ cell of 08 holds the skeleton (`...` to fill); `loop_solution()` shows the
harness's minimal loop (`minimal_loop.boucle`, in the learner's names) folded under
« Voir le corrigé », so that no cell's source gives it away. `loop_to_use`
picks the loop the rest of the notebook runs: the learner's, once it passes every
mission with its marks in place, else this one, and says which.

>>> "messages.append(reponse.message)" in solution_source()
True
"""

from __future__ import annotations

import html
import inspect
from typing import Any

from ...minimal_loop import boucle
from ..missions.markers import RULES, NoMark, marked, source_of
from .report import Report


def solution_source() -> str:
    """The corrected loop as the learner would type it (their names, no type hints)."""
    lines = inspect.getsource(boucle).splitlines()
    lines[0] = "def ma_boucle(mission, modele, outils, max_tours=15):"
    return "\n".join(lines) + "\n"


class Solution:
    """« Voir le corrigé »: a folded reveal (an HTML <details>), also readable as text."""

    def _repr_html_(self) -> str:
        return ('<details class="harness-solution"><summary style="cursor:pointer">'
                "<b>Voir le corrigé</b> (essayez d’abord : le correcteur vous dira quoi "
                'corriger)</summary><pre style="background:#f6f8fa;color:#212529;padding:8px">'
                f"{html.escape(solution_source())}</pre></details>")

    def __repr__(self) -> str:
        return "Voir le corrigé : affichez cette cellule dans JupyterLab pour le déplier."


def loop_solution() -> Solution:
    return Solution()


def loop_to_use(report: Report, reference: Any = boucle) -> Any:
    """The learner's loop if it passed and keeps its marks, else the reference; said in French."""
    mine = report.loop
    missing = []
    if report.ok:
        try:
            source = source_of(mine)[0]
            missing = [r for r in RULES if not marked(source, r)]
        except (NoMark, SyntaxError):
            missing = list(RULES)
    if report.ok and not missing:
        print("La suite du notebook utilise votre boucle.")
        return mine
    why = (f"il lui manque les repères {', '.join(missing)} en commentaire" if report.ok
           else "elle ne réussit pas encore toutes les missions")
    print(f"Votre boucle n’est pas encore prête ({why}) : la suite du notebook utilise la "
          "boucle du corrigé. Revenez à la cellule ✏️, puis relancez les cellules suivantes.")
    return reference
