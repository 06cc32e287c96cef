"""Every « essayez… » of the notebooks' prose, tried: the notebook is executed with the edit
the prose suggests, and what the learner then reads is checked (no raw error, the promised
effect). 05's ✏️ suggestions are tried in test_targets.py, the same run without a kernel."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def tried(name: str, edits: dict[str, str], upto: str | None = None) -> Any:
    """Notebook `name` executed after `edits` (old -> new, in cell sources), as far as the
    first cell containing `upto` (included); errors are kept as outputs, not raised."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    for old, new in edits.items():
        cells = [c for c in nb.cells if old in c.source]
        assert len(cells) == 1, f"{name} : {old!r} introuvable (ou ambigu) dans les cellules"
        cells[0].source = cells[0].source.replace(old, new)
    if upto is not None:
        last = next(i for i, c in enumerate(nb.cells) if upto in c.source)
        nb.cells = nb.cells[:last + 1]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENROUTER_API_KEY",
                                                             "HARNESS_MODEL")}
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=300, allow_errors=True,
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute(env=env)
    return nb


def errors(nb: Any) -> list[str]:
    return [f"{o.get('ename')}: {o.get('evalue')}" for c in nb.cells
            for o in c.get("outputs", []) if o.get("output_type") == "error"]


def printed(nb: Any, words: str) -> str:
    """The text output of the cell whose source contains `words`."""
    cell = next(c for c in nb.cells if words in c.source)
    return "".join("".join(o.get("text", "")) + "".join(
        o.get("traceback", [])) for o in cell.get("outputs", []))


def test_04_a_slow_mock_runs_the_same_mission_even_when_run_twice() -> None:
    """« remplacez current_model() par MockModel(latency=0.5) », then run the cell again:
    each run starts from the original price.py, four calls, the checks pass."""
    mission = "mission = run_live(PRICE_TASK, modele, workspace_tools(dossier))"
    again = next(c.source for c in nbformat.read(NOTEBOOKS / "04_boucle_complete.ipynb",
                                                 as_version=4).cells if mission in c.source)
    nb = tried("04_boucle_complete.ipynb", {
        "modele = current_model()  #": "modele = MockModel(latency=0.5)  #",
        'print(mission.message)': "print(mission.message)\n" + again.replace(  # run twice
            "current_model()", "MockModel(latency=0.5)"),
    }, upto="succes = ")
    assert errors(nb) == []
    assert "Appels au modèle : 4" in printed(nb, "nb_appels = ").replace("\xa0", " ")


def test_04_the_pencil_cell_says_a_mistyped_tool_is_not_proposed() -> None:
    nb = tried("04_boucle_complete.ipynb", {'proposes = ["read_file", "list_files"':
                                            'proposes = ["read_fle", "list_files"'},
               upto="proposes = ")
    shown = printed(nb, "proposes = ").replace("\xa0", " ")
    assert errors(nb) == []
    assert "Outils inconnus, non proposés : ['read_fle']" in shown
    assert "Outils proposés : ['list_files', 'edit_file', 'bash']" in shown
    assert "Réponse du modèle :" in shown and "…" not in shown.split("Réponse du modèle :")[1][:10]


def test_03_another_file_is_explained_not_an_index_error() -> None:
    """« exécutez un autre fichier » in tour 1: tour 2 says why there is nothing to run."""
    nb = tried("03_erreur_observation.ipynb", {
        'resultat = harness.read_file("README.md")':
        'resultat = harness.read_file("docs/README.md")'},
        upto="# ✏️ Tour 2")
    assert not any(e.startswith("IndexError") for e in errors(nb))
    assert "L’appel 2 ne demande aucun outil" in printed(nb, "# ✏️ Tour 2")


@pytest.mark.parametrize("edits", [
    {"think = True": "think = False"},
    {'dossier = "mini"': 'dossier = "docs"'},
    {"mission = README_TASK  #": "mission = PRICE_TASK  #", 'dossier = "mini"': 'dossier = "prix"'},
    {"mission = README_TASK  #": "mission = WAIT_TASK  #",
     'dossier = "mini"': 'dossier = "attente"'},
], ids=["think", "docs", "prix", "attente"])
def test_06_each_suggestion_of_the_pencil_cell_runs(edits: dict[str, str]) -> None:
    nb = tried("06_react.ipynb", edits, upto="# ✏️ À vous")
    assert errors(nb) == []
    assert "avec un raisonnement affiché" in printed(nb, "# ✏️ À vous")
