"""Notebooks 05 and 07 as on Binder, where no sandbox starts: there, bash waits for a yes.

Binder and most containers cannot start bubblewrap. Where it cannot, every bash command
waits for a person's yes, whatever the model, the mock included: `run()` without an
approver stops with the reason `human` at the first command. The notebooks say so, and
their collapsed checks accept what happens there (they look at `sandbox.problem()`). Here
each runs in a kernel where the sandbox's program is absent, as conftest's `unconfined`
fixture makes it for the tests run in this process; nbval runs them where it starts.
"""

from __future__ import annotations

from typing import Any

import pytest
from executed_notebooks import executed

ABSENT = ("from harness_lib.tools import sandbox as _sandbox\n"
          "_sandbox.PROGRAM = 'bwrap-absent-pour-ce-test'")


def without_sandbox(name: str) -> Any:
    """The notebook executed as Lab would, with no sandbox; the first failing cell raises."""
    return executed(name, ABSENT)


def printed(nb: Any, code: str) -> str:
    """What the notebook's code cell holding `code` printed, no-break spaces as spaces."""
    cell = next(c for c in nb.cells[1:] if c.cell_type == "code" and code in c.source)
    text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream"
                   and o.get("name") == "stdout")
    return text.replace("\u00a0", " ").replace("\u202f", " ")  # French spaces, as read


@pytest.fixture(scope="module")
def stops() -> Any:
    return without_sandbox("05_conditions_arret.ipynb")


def test_05_says_where_bash_runs_and_that_it_waits_here(stops: Any) -> None:
    said = printed(stops, "raison = sandbox.problem()")
    assert "Pas de bac à sable ici" in said and "raison 'human'" in said


def test_05_the_commands_wait_for_a_yes_and_the_page_says_why(stops: Any) -> None:
    for mission in ("sleep 60", "sh absent.sh"):
        said = printed(stops, f'fin = run("Lance `{mission}`"')
        assert "raison : 'human' (validation humaine nécessaire)" in said, said
        assert "Arrêt : validation humaine nécessaire pour bash." in said


def test_05_the_sandbox_demo_writes_and_lists_nothing_of_the_machine(stops: Any) -> None:
    said = printed(stops, "from harness_lib.tools import shell")
    assert "la commande n’est pas lancée" in said
    assert "harness-" not in said and "dehors" not in said and "[code de sortie" not in said


def test_05_the_budget_stops_before_bash_everywhere(stops: Any) -> None:
    said = printed(stops, "budget = 1500")
    assert "raison : 'budget'" in said
    assert "sans budget" in printed(stops, "modele = MockModel()")


def test_07_runs_there_too() -> None:
    nb = without_sandbox("07_dans_le_code.ipynb")
    assert "clé=absente couleur=bleu" in printed(nb, "import os")
