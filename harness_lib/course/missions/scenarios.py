"""The chapter's five replayable incidents, each a real run (tasks and workspaces: tasks.py).

Each incident is a real run with `MockModel`, offline. Three run the harness's
loop (`loop.run`). The two others (`missing-call`, `missing-result`) run a loop
written by hand, `own_loop.reference_loop`, with its RULE 1 or RULE 2 line
deleted: it forgets to append one message, and the next call gets the API's
refusal, from that very run.

>>> incident = replay("missing-result")
>>> incident.run.reason, incident.error.status
('api_error', 400)
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ApiError
from ...limits import Limits
from ...loop import run
from ...mock.model import MockModel
from ...tools.builtin import workspace_tools
from ...trace import Run
from .own_loop import watch, without
from .tasks import QUESTION, README_TASK, WAIT_TASK, example_workspace


@dataclass(frozen=True)
class Incident:
    name: str
    title: str
    missing: str  # which message is missing from messages[] (or "aucun")
    who: str  # who should have appended it
    run: Run
    error: ApiError | None = None
    question: str = QUESTION


def replay(name: str) -> Incident:
    """Play one incident: normal, missing-call, missing-result, tool-error, max-turns."""
    if name not in INCIDENTS:
        raise ValueError(f"incident inconnu : {name!r} (au choix : {', '.join(INCIDENTS)})")
    return INCIDENTS[name]()


def _normal() -> Incident:
    done = run(README_TASK, MockModel(), workspace_tools(example_workspace("mini")))
    return Incident("normal", "La boucle complète", "aucun", "personne : tout est en place", done)


def _tool_error() -> Incident:
    done = run(README_TASK, MockModel(), workspace_tools(example_workspace("docs")))
    return Incident(
        "tool-error",
        "Fichier absent, puis récupération",
        "aucun : l’erreur est renvoyée comme un résultat d’outil",
        "le harness l’a bien ajoutée",
        done,
    )


def _max_turns() -> Incident:
    done = run(
        WAIT_TASK, MockModel(), workspace_tools(example_workspace("attente")), limits=Limits()
    )
    return Incident(
        "max-turns",
        "Arrêt par la limite de tours",
        "la réponse finale, qui ne vient jamais",
        "personne ne l’a oubliée : le modèle ne la donne jamais, et le harness arrête la "
        "boucle à la limite de tours",
        done,
    )


def _broken(rule: str, name: str, title: str, missing: str, who: str) -> Incident:
    """A loop written by hand, its line `rule` deleted, run for real against the mock.

    The API's refusal in the incident is the one that run got: nothing is edited afterwards.
    """
    watched = watch(without(rule), README_TASK, workspace_tools(example_workspace("mini")))
    error = watched.error if isinstance(watched.error, ApiError) else None
    return Incident(name, title, missing, who, watched.run, error)


INCIDENTS = {
    "normal": _normal,
    "missing-call": lambda: _broken(
        "RULE 1", "missing-call", "Résultat sans demande enregistrée",
        "le message assistant qui porte tool_calls (call_1)",
        "le harness, juste après la réponse du modèle"),
    "missing-result": lambda: _broken(
        "RULE 2", "missing-result", "Demande sans résultat",
        "le message tool qui répond à call_1", "le harness, juste après avoir exécuté l’outil"),
    "tool-error": _tool_error,
    "max-turns": _max_turns,
}
