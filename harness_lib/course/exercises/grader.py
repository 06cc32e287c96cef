"""The grader of notebook 08: your own loop, run against the mock on the chapter's missions.

`grade(loop)` runs a loop function `loop(task, model, tools, max_turns)` four times, for
real, with the MockModel (which checks messages[] like the API) and fresh example
workspaces: read README.md, recover from a missing file, fix format_price, stop after 15
turns. Each mission gets ✔ or ✘ and a French explanation: the API's refusal and the rule
the loop forgot, an exception and its line, a loop that never stops, a mission not done.

>>> from harness_lib.course.missions.own_loop import reference_loop, without
>>> grade(reference_loop).ok
True
>>> print(grade(without("RULE 2")).results[0].explication)
Appel 2 refusé par l’API : `An assistant message with ...`. RULE 2 manque : la demande ...
"""

from __future__ import annotations

import html
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...errors import ApiError
from ...messages import check_conversation
from ...models.strategies import BUGGY
from ...text import after_colon
from ...tools import workspace_tools
from ..missions.logbook import NoExit, TooManyCalls
from ..missions.own_loop import Loop, Watched, watch
from ..missions.scenarios import PRICE_TASK, README_TASK, WAIT_TASK, example_workspace
from .targets import code_html

MAX_TURNS = 15
# The API's words -> which line of the loop is missing, and how to write it.
HINTS = (
    ("preceeding message", "RULE 1 manque : votre boucle n’ajoute pas le message assistant, "
     "celui qui porte `tool_calls`. Le résultat arrive donc sans demande. Ajoutez "
     "`messages.append(reponse.message)` juste après l’appel au modèle."),
    ("did not have response messages", "RULE 2 manque : la demande d’outil reste sans "
     "résultat dans `messages[]`. Après chaque outil, ajoutez "
     "`messages.append(tool_result(appel[\"id\"], resultat))`."),
    ("not found in 'tool_calls'", "Le `tool_call_id` de votre résultat ne reprend pas "
     "l’identifiant de la demande : écrivez `tool_result(appel[\"id\"], resultat)`."),
    ("Duplicate value for 'tool_call_id'", "Deux résultats portent le même `tool_call_id` : "
     "votre résultat ne reprend pas l’identifiant de la demande à laquelle il répond. Écrivez "
     "`tool_result(appel[\"id\"], resultat)`."),
    ("Missing parameter 'tool_call_id'", "Votre résultat n’a pas de `tool_call_id` : "
     "construisez-le avec `tool_result(appel[\"id\"], resultat)`."),
)


@dataclass(frozen=True)
class Mission:
    name: str
    title: str  # French
    task: str
    workspace: str
    done: Callable[[Watched, Path], str | None]  # None if the mission is done, else why not


@dataclass(frozen=True)
class Result:
    mission: Mission
    watched: Watched
    ok: bool
    explication: str  # French: what went right, or what went wrong and how to fix it


@dataclass(frozen=True)
class Report:
    results: list[Result]

    @property
    def ok(self) -> bool:
        return all(result.ok for result in self.results)

    def lines(self) -> list[tuple[Result, str]]:
        """Each result and what to say: an explanation already given is not repeated."""
        said: dict[str, str] = {}
        shown = []
        for r in self.results:
            first = said.setdefault(r.explication, r.mission.title)
            same = f"même problème que pour « {first} »."
            shown.append((r, r.explication if first == r.mission.title else same))
        return shown

    def text(self) -> str:
        lines = [f"{'✔' if r.ok else '✘'} {r.mission.title} : {text}" for r, text in self.lines()]
        passed = sum(r.ok for r in self.results)
        return "\n".join([*lines, f"{passed} / {len(self.results)} missions réussies."])

    def _repr_html_(self) -> str:
        rows = "".join(
            f'<li style="margin:4px 0;color:{"#2e7d32" if r.ok else "#c62828"}">'
            f'{"✔" if r.ok else "✘"} <b>{html.escape(r.mission.title)}</b> : '
            f'<span style="color:#222">{code_html(text)}</span></li>'
            for r, text in self.lines())
        return (f'<div class="harness-grader" style="border:1px solid #ccc;border-radius:6px;'
                f'padding:4px 12px"><ul style="list-style:none;padding-left:0">{rows}</ul>'
                f"<b>{html.escape(self.text().splitlines()[-1])}</b></div>")

    def __repr__(self) -> str:
        return self.text()


def grade(loop: Loop) -> Report:
    """Run `loop` on each mission (a fresh workspace each time) and explain every outcome."""
    results = []
    for mission in MISSIONS:
        folder = example_workspace(mission.workspace)
        watched = watch(loop, mission.task, workspace_tools(folder), MAX_TURNS)
        why = diagnose(watched, loop) or mission.done(watched, folder)
        results.append(Result(mission, watched, why is None, why or _success(watched)))
    return Report(results)


def diagnose(watched: Watched, loop: Loop) -> str | None:
    """What stopped the loop before its mission's end, in French (None if nothing did)."""
    error, crash = watched.error, watched.crash
    if isinstance(error, ApiError) and error.status == 400:
        hint = next((text for words, text in HINTS if words in error.message), error.explication)
        return f"Appel {watched.calls} refusé par l’API : `{error.message}`. {hint}"
    if error is not None:
        return f"Appel {watched.calls} sans réponse : {after_colon(error.explication)}"
    if isinstance(crash, TooManyCalls):
        return (f"Votre boucle a appelé le modèle {watched.calls} fois sans s’arrêter : il lui "
                "manque la limite de tours, `for _ in range(max_tours):`.")
    if isinstance(crash, NoExit):
        return ("Le modèle a donné sa réponse finale (sans tool_calls), et votre boucle le "
                "rappelle : il manque EXIT, `if not reponse.tool_calls: return messages`.")
    if crash is not None:
        return f"Votre boucle a levé {type(crash).__name__} : {crash}{_where(crash, loop)}"
    return None


def _where(crash: Exception, loop: Loop) -> str:
    """« (ligne 7 : …) »: the line of the learner's function that raised, if it is there."""
    frames = [f for f in traceback.extract_tb(crash.__traceback__)
              if f.name == getattr(loop, "__name__", None)]
    if not frames:
        return "."
    line = f" : `{frames[-1].line}`" if frames[-1].line else ""
    return f" (ligne {frames[-1].lineno}{line})."


def _success(watched: Watched) -> str:
    if watched.run.reason == "max_turns":
        return (f"{watched.calls} appels, puis arrêt propre : chaque demande a reçu son résultat.")
    return f"{watched.calls} appels au modèle, puis la réponse finale."


def _answered(watched: Watched, folder: Path) -> str | None:
    """The run ends with the model's final answer, kept in messages[] (RULE 1 holds for it)."""
    run = watched.run
    if run.reason != "answer":
        return f"La boucle s’arrête sans réponse finale ({run.message})"
    last = run.messages[-1] if run.messages else None
    if not isinstance(last, dict) or last.get("content") != run.message:
        return ("La réponse finale n’est pas le dernier message de `messages[]` : RULE 1 vaut "
                "aussi pour elle, ajoutez-la avant de sortir par EXIT.")
    return None


def _recovered(watched: Watched, folder: Path) -> str | None:
    if why := _answered(watched, folder):
        return why
    if "docs/" not in watched.run.message:
        return ("Le modèle n’a pas trouvé docs/README.md : l’erreur de read_file doit lui "
                "revenir comme résultat d’outil, pour qu’il change de stratégie.")
    return None


def _fixed(watched: Watched, folder: Path) -> str | None:
    if why := _answered(watched, folder):
        return why
    if BUGGY in (folder / "price.py").read_text(encoding="utf-8"):
        return "price.py n’a pas été modifié : edit_file n’a pas été exécuté."
    return None


def _stopped(watched: Watched, folder: Path) -> str | None:
    """The never-ending mission: exactly MAX_TURNS calls, and a conversation left valid."""
    if watched.calls != MAX_TURNS:
        return (f"Votre boucle a appelé le modèle {watched.calls} fois ; avec max_tours = "
                f"{MAX_TURNS}, il en faut {MAX_TURNS}, pas un de plus ni de moins.")
    problems = check_conversation(watched.run.messages)
    if problems:
        return f"La boucle s’arrête, mais `messages[]` n’est plus valide : {problems[0]}"
    return None


MISSIONS = (
    Mission("lire", "Lire README.md et le résumer", README_TASK, "mini", _answered),
    Mission("erreur-outil", "README.md absent : chercher ailleurs", README_TASK, "docs",
            _recovered),
    Mission("format-price", "Corriger format_price", PRICE_TASK, "prix", _fixed),
    Mission("max-tours", "Une mission sans fin : s’arrêter à 15 tours", WAIT_TASK, "attente",
            _stopped),
)
