"""Every « essayez… » of the notebooks' prose, tried: the notebook is executed with the edit
the prose suggests, and what the learner then reads is checked (no raw error, the promised
effect). 05's ✏️ suggestions are tried in test_targets.py, the same run without a kernel."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hand_played import play

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
    """What the cell whose source contains `words` shows, as text (spaces made plain)."""
    cell = next(c for c in nb.cells if words in c.source)
    parts = ["".join(o.get("text", "")) + "".join(o.get("traceback", [])) +
             "".join((o.get("data") or {}).get("text/html", ""))
             for o in cell.get("outputs", [])]
    return "".join(parts).replace("\xa0", " ").replace("\u202f", " ")


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


def test_03_the_empty_tours_run_and_the_folded_corrige_plays_them() -> None:
    """Run as committed (the ✏️ tours empty): no error, each tour says what is missing, and
    the corrigé reaches the final answer; played by hand, the corrigé has nothing to do."""
    nb = tried("03_erreur_observation.ipynb", {}, upto="# Corrigé")
    assert errors(nb) == []
    assert "✘" in printed(nb, "# ✏️ Tour 1")
    assert "le corrigé les joue" in printed(nb, "# Corrigé")
    nb = tried("03_erreur_observation.ipynb", {**play(1), **play(2), **play(3)}, upto="# Corrigé")
    assert errors(nb) == [] and "rien à faire" in printed(nb, "# Corrigé")
    assert "✘" not in printed(nb, "# ✏️ Tour 3")


def test_03_another_file_is_explained_not_an_index_error() -> None:
    """« exécutez un autre fichier » in tour 1: tour 2 says why there is nothing to run."""
    nb = tried("03_erreur_observation.ipynb", play(1, 'harness.read_file("docs/README.md")'),
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


def test_04_without_bash_the_model_says_it_could_not_run_the_tests() -> None:
    """« Avec PRICE_TASK, retirez "bash" » : it fixes the file, then says it cannot test."""
    nb = tried("04_boucle_complete.ipynb", {
        'proposes = ["read_file", "list_files", "edit_file", "bash"]':
        'proposes = ["read_file", "list_files", "edit_file"]',
        'mission_essai = "Lis price.py et résume-le"': "mission_essai = PRICE_TASK"},
        upto="proposes = ")
    shown = printed(nb, "proposes = ")
    assert errors(nb) == []
    assert "Outils demandés : ['read_file', 'edit_file']" in shown
    assert "il me faudrait l’outil bash" in shown


@pytest.mark.parametrize("edit", [
    play(1, rule_1=False),  # « oubliez la règle 1 »
    play(1, call_id='"call_9"'),  # « changez l’identifiant »
], ids=["regle-1", "identifiant"])
def test_03_a_broken_tour_is_explained_by_the_checks_and_the_next_tour(
        edit: dict[str, str]) -> None:
    nb = tried("03_erreur_observation.ipynb", edit, upto="# ✏️ Tour 2")
    tour_1 = printed(nb, "# ✏️ Tour 1")
    assert "✘" in tour_1 and "HTTP 400" in tour_1 and "Ce qui s’est sans doute passé" in tour_1
    tour_2 = printed(nb, "# ✏️ Tour 2")
    assert "✘ L’appel 2 n’a pas eu lieu" in tour_2 and "Traceback" not in tour_2


def _pencil_02() -> list[dict[str, Any]]:
    """The messages[] of 02's ✏️ cell, as its source writes it."""
    nb = nbformat.read(NOTEBOOKS / "02_deux_regles.ipynb", as_version=4)
    source = next(c.source for c in nb.cells if c.source.startswith("# ✏️"))
    scope: dict[str, Any] = {}
    exec(source.split("reponse = send(")[0], scope)  # noqa: S102 - the course's own cell
    return scope["messages"]


def _without(i: int) -> Any:
    return lambda m: m.pop(i)


@pytest.mark.parametrize("change", [
    _without(2), _without(3),  # « supprimer un message »
    lambda m: m[3].update(tool_call_id="call_2"),  # « changer un identifiant »
    lambda m: m[3].update(role="robot"),  # « remplacer "tool" par "robot" »
    lambda m: m[3].update(content=None),  # « mettre "content": None au dernier message »
], ids=["sans-assistant", "sans-resultat", "identifiant", "robot", "content-none"])
def test_02_each_suggested_break_gets_the_api_refusal_explained(change: Any) -> None:
    from harness_lib.course.playground.replies import default_tools, outputs
    from harness_lib.course.playground.sending import send
    from harness_lib.errors import ApiError
    from harness_lib.mock import check_conversation

    messages = _pencil_02()
    change(messages)
    result = send(messages, show=False)
    assert isinstance(result, ApiError) and result.status == 400 and result.explication
    page = outputs(messages, default_tools(), result, check_conversation(messages))[0]
    assert "HTTP 400" in page["text/html"] and "Affichage impossible" not in page["text/html"]
