"""The chapter's five replayable incidents, and the example workspaces they use.

Each incident is a real run of the loop with `MockModel`, offline. Two of them
(`missing-call`, `missing-result`) imitate a harness with a bug: it forgets to
append one message, and the next call is refused by the API exactly as a real
provider would refuse it.

>>> incident = replay("missing-result")
>>> incident.run.reason, incident.error.status
('api_error', 400)
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

from ..errors import ApiError
from ..limits import Limits
from ..loop import run
from ..models import MockModel
from ..tokens import ledger
from ..tools import workspace_tools
from ..trace import Run, Trace

README_TASK = "Lis README.md et résume le projet"
PRICE_TASK = "Corrige formatPrice pour les montants négatifs"
WAIT_TASK = "Attends que fini.txt apparaisse, puis résume-le"
QUESTION = "Quel message va manquer dans messages[], et qui devait l'ajouter ?"
WORKSPACES = ("mini", "docs", "prix", "attente")


def example_workspace(name: str, dest: str | Path | None = None) -> Path:
    """A fresh copy of a bundled example folder (the package's copy is never touched)."""
    if name not in WORKSPACES:
        raise ValueError(
            f"espace d'exemple inconnu : {name!r} (au choix : {', '.join(WORKSPACES)})"
        )
    target = Path(dest) if dest else Path(tempfile.mkdtemp(prefix=f"harness-{name}-"))
    data = resources.files("harness_lib.course") / "data"
    with resources.as_file(data / "workspaces" / name) as src:
        shutil.copytree(src, target, dirs_exist_ok=True)
    return target


def workspace_for(task: str) -> str:
    """The bundled example that fits a mission (the price shop for formatPrice)."""
    return "prix" if "price" in task.lower() else "mini"


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
        raise ValueError(f"incident inconnu : {name!r} (au choix : {', '.join(INCIDENTS)})")
    return INCIDENTS[name]()


def _normal() -> Incident:
    done = run(README_TASK, MockModel(), workspace_tools(example_workspace("mini")))
    return Incident("normal", "La boucle complète", "aucun", "personne : tout est en place", done)


def _tool_error() -> Incident:
    done = run(README_TASK, MockModel(), workspace_tools(example_workspace("docs")))
    return Incident(
        "tool-error",
        "Fichier absent, puis récupération",
        "aucun : l'erreur est renvoyée comme un résultat d'outil",
        "le harness l'a bien ajoutée",
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
        "le modèle : c'est le harness qui arrête la boucle",
        done,
    )


def _missing(kind: str, missing: str, title: str) -> Incident:
    """Replay the normal run, but 'forget' the first message of `kind` (reply or tool_result)."""
    model, tools = MockModel(), workspace_tools(example_workspace("mini"))
    normal = run(README_TASK, model, tools)
    events = normal.trace.events
    first_result = next(i for i, e in enumerate(events) if e.kind == "tool_result")
    forgotten = next(i for i, e in enumerate(events) if e.kind == kind)
    trace = Trace(
        system=normal.trace.system, tools_tokens=normal.trace.tools_tokens, tools=normal.trace.tools
    )
    for i, event in enumerate(events[: first_result + 1]):
        if i == forgotten:  # the bug: the arrow happened, but nothing was appended
            event = replace(event, message=None, text=f"{event.text} (jamais ajouté à messages[])")
        trace.add(event)
        event.ledger = ledger(trace.messages, trace.tools)
    messages = trace.messages
    trace.add(replace(events[first_result + 1], ledger=ledger(messages, trace.tools)))
    try:
        model.complete(messages, trace.tools)
        raise AssertionError("the mock accepted a broken conversation")
    except ApiError as err:
        text = f"Arrêt : l'API refuse l'appel ({err})."
        trace.add(
            replace(
                events[-1],
                kind="stop",
                text=text,
                data={"reason": "api_error"},
                message=None,
                ledger=ledger(messages, trace.tools),
            )
        )
        who = (
            "le harness, juste après la réponse du modèle"
            if kind == "reply"
            else "le harness, juste après avoir exécuté l'outil"
        )
        return Incident(
            f"missing-{'call' if kind == 'reply' else 'result'}",
            title,
            missing,
            who,
            Run(messages, trace, "api_error", text),
            err,
        )


INCIDENTS = {
    "normal": _normal,
    "missing-call": lambda: _missing(
        "reply",
        "le message assistant qui porte tool_calls (call_1)",
        "Résultat sans demande enregistrée",
    ),
    "missing-result": lambda: _missing(
        "tool_result", "le message tool qui répond à call_1", "Demande sans résultat"
    ),
    "tool-error": _tool_error,
    "max-turns": _max_turns,
}
