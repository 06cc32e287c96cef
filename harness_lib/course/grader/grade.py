"""The grader of notebook 08: your own loop, run for real on the chapter's missions.

`grade(loop)` first reads the loop (a `...` of the skeleton left, a missing parameter: it
is not run), then runs it on each mission with the MockModel, which checks messages[]
like the API, and fresh example workspaces, each mission within `seconds` and the whole
within `total` (guard.py: an infinite loop, a sleep or a swallowed cut is stopped). Each
mission gets ✔ or ✘ and a French explanation: at the first call where the loop sent
something a correct loop would not have (compare.py), the API's refusal if there was
one and what differs; else the exception and its line, or the cut, or what the loop
returned, or what is left undone. The verdict on the learner's own loop (defined in the
notebook, not a `without(...)` demonstration) is kept in their progress file.

>>> from harness_lib.course.missions.own_loop import reference_loop, without
>>> grade(reference_loop).ok
True
>>> "RULE 2 manque" in grade(without("RULE 2")).results[0].explication
True
"""

from __future__ import annotations

import inspect
import re
import time
from typing import Any

from ...errors import ApiError
from ...text import plural
from ...tools.builtin import workspace_tools
from ..missions.guard import Cut, Quit
from ..missions.own_loop import Loop, Watched, watch
from ..missions.spy import Audit, Strange
from ..missions.tasks import example_workspace
from ..progress.form import Item
from ..progress.keep import keep
from .compare import first_fault
from .explain import crash_text, cut_text
from .lines import code_line, ellipses
from .missions import EXTRA, MAX_TURNS, MISSIONS, Mission
from .report import Report, Result
from .seal import Seal, Tampered

MISSION_SECONDS = 5.0  # a mission takes the mock a few hundredths of a second
TOTAL_SECONDS = 20.0


def grade(loop: Loop, seconds: float = MISSION_SECONDS, total: float = TOTAL_SECONDS,
          missions: tuple[Mission, ...] = (*MISSIONS, EXTRA)) -> Report:
    """Run `loop` on each mission (a fresh workspace each time) and explain every outcome."""
    blocked = not_runnable(loop)
    if blocked:
        return Report([], blocked, loop)
    seal = Seal()  # the grader's code as it is now: what the loop changes is put back
    try:
        results = run_all(loop, seconds, total, missions, seal)
    finally:
        seal.audit()
    notes = sorted({r.watched.guard.note for r in results
                    if r.watched and r.watched.guard and r.watched.guard.note})
    report = Report(results, None, loop, notes)
    if problem := kept(report):
        report.notes.append(problem)
    return report


def kept(report: Report) -> str:
    """Keep the verdict on the learner's own loop as "08-grade" ("" or why it was not)."""
    loop = report.loop
    if getattr(loop, "__module__", None) != "__main__" or hasattr(loop, "without_rule"):
        return ""  # the course's loops, and a rule taken out of one: demonstrations
    passed = sum(r.ok for r in report.counted)
    return keep("08-grade", Item("grade", "08", correct=report.ok, verdict=report.total(),
                                 score=passed, out_of=len(MISSIONS)))


def run_all(loop: Loop, seconds: float, total: float, missions: tuple[Mission, ...],
            seal: Seal) -> list[Result]:
    end, results = time.monotonic() + total, []
    for mission in missions:
        left = end - time.monotonic()
        if left <= 0:
            results.append(Result(mission, None, False, "Non lancée : le temps total de la "
                                  f"correction ({total:g} s) est écoulé."))
            continue
        results.append(run_mission(mission, loop, min(seconds, left),
                                   whole=total if left < seconds else None, audit=seal.audit))
    return results


def run_mission(mission: Mission, loop: Loop, seconds: float,
                whole: float | None = None, audit: Audit | None = None) -> Result:
    folder = example_workspace(mission.workspace)
    tools = workspace_tools(folder)
    watched = watch(loop, mission.task, tools, MAX_TURNS, seconds=seconds, whole=whole,
                    audit=audit)
    try:
        why = verdict(watched, mission, [t.schema() for t in tools], loop) or \
            mission.done(watched, folder)
    except Exception as err:  # what the loop sent or returned defeats the grader's reading
        why = (f"Le correcteur n’a pas pu lire ce que votre boucle a envoyé ou rendu "
               f"({type(err).__name__}) : envoyez et rendez une liste de messages, des "
               "dictionnaires comme ceux de `system()`, `user()`, `tool_result()`.")
    return Result(mission, watched, why is None, why or success(watched, mission))


def not_runnable(loop: Loop) -> str | None:
    """Why the loop cannot be run at all, in French (None if it can)."""
    if not callable(loop):
        return (f"`{loop!r:.60}` n’est pas une fonction : passez au correcteur votre "
                "fonction elle-même, `grade(ma_boucle)`, sans parenthèses après son nom.")
    left = ellipses(loop)
    if left:
        where = (f"à la ligne {left[0]}" if len(left) == 1 else
                 "aux lignes " + ", ".join(map(str, left[:-1])) + f" et {left[-1]}")
        return (f"Votre boucle n’est pas encore écrite : il reste `...` {where}. "
                "Remplacez chaque `...` par le code qu’il attend (voir le tableau) ; en "
                "attendant, la suite du notebook utilise la boucle du corrigé.")
    try:
        signature = inspect.signature(loop)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind("mission", None, [], MAX_TURNS)
    except TypeError:
        return ("Votre fonction doit accepter quatre paramètres, "
                f"`(mission, modele, outils, max_tours=15)` ; la vôtre a `{signature}`. Le "
                "correcteur l’appelle avec la mission, le modèle, les outils et la limite.")
    return None


def verdict(watched: Watched, mission: Mission, schemas: list[dict[str, Any]],
            loop: Loop) -> str | None:
    """What went wrong in this run, in French: the first cause found (None if nothing)."""
    files = watched.guard.files if watched.guard else set()
    error, crash = watched.error, watched.crash
    if isinstance(crash, (Tampered, Quit)):  # before anything the loop sent: it cheated, or quit
        return cut_text(crash, watched.guard, watched.calls, files)
    fault = first_fault(watched, mission.task, schemas, loop)
    refused = isinstance(error, ApiError) and error.status == 400
    if fault is not None:
        if refused and fault.call == len(watched.sends):
            return f"Appel {fault.call} refusé par l’API : {_quoted(error)} {fault.text}"
        text = fault.text if fault.text[:4].isupper() else fault.text[0].lower() + fault.text[1:]
        return f"Appel {fault.call} : {text}"
    if refused:
        return (f"Appel {len(watched.sends)} refusé par l’API : {_quoted(error)} "
                f"{error.explication}")
    if error is not None:
        return f"Appel {len(watched.sends)} sans réponse : {error.explication}"
    if isinstance(crash, Cut):
        return cut_text(crash, watched.guard, watched.calls, files,
                        code_line(loop, r"^\s*while\b"))
    if crash is not None:
        return crash_text(crash, files)
    return returned(watched, loop, mission.optional)


def returned(watched: Watched, loop: Loop, stops_early: bool = False) -> str | None:
    """What the loop returned, against messages[] as a correct loop leaves it (a loop may
    return before the answer only on the optional mission, that of its own stop)."""
    run, value = watched.run, watched.returned
    if watched.calls == 0:
        return ("Votre boucle n’a jamais appelé le modèle : "
                "`reponse = modele.complete(messages, definitions)`.")
    if run.reason == "incomplete" and not stops_early and not _ran_last(watched):
        asked = watched.replies[-1].tool_calls
        names = ", ".join(str((c.get("function") or {}).get("name")) for c in asked)
        what = "un outil" if len(asked) == 1 else "des outils"
        where = code_line(loop, r'if .*tool_calls')
        return (f"Votre boucle rend la main après {plural(watched.calls, 'appel')}, alors que "
                f"le modèle demandait encore {what} ({names}){where} : "
                "EXIT ne sort que quand `reponse.tool_calls` est vide, "
                "`if not reponse.tool_calls:`.")
    when = "après la réponse finale (EXIT)" if run.reason == "answer" else \
        "après le dernier tour (sous la boucle `for`)"
    if value is None:
        return f"Votre boucle ne rend rien (`None`) {when} : écrivez `return messages`."
    if not isinstance(value, list):
        what = f"un objet {value.kind}" if isinstance(value, Strange) else \
            f"un objet {type(value).__name__}"
        return f"Votre boucle rend {what} {when}, au lieu de la liste : `return messages`."
    last = watched.sends[-1].messages
    if value[:len(last)] != last:
        return ("La liste que rend votre boucle n’est pas celle qu’elle envoyait au modèle : "
                "rendez `messages`, la liste complétée à chaque tour.")
    if run.reason == "answer" and (not value or value[-1] != watched.replies[-1].message):
        return ("La réponse finale n’est pas le dernier message de `messages[]` : la règle 1 vaut "
                "aussi pour elle, ajoutez-la avant de sortir par EXIT.")
    return None


def success(watched: Watched, mission: Mission) -> str:
    if mission.optional:
        return (f"{watched.calls} échecs d’affilée, puis arrêt : la condition d’arrêt « échecs "
                "répétés » du chapitre.")
    if watched.run.reason == "max_turns":
        return (f"{plural(watched.calls, 'appel')}, puis arrêt propre : chaque demande a reçu "
                "son résultat.")
    asked = sum(len(r.tool_calls) for r in watched.replies)
    tools = "sans demande d’outil" if asked == 0 else \
        "1 demande d’outil et son résultat" if asked == 1 else \
        f"{plural(asked, 'demande d’outil', 'demandes d’outil')} et autant de résultats"
    return f"{plural(watched.calls, 'appel')} au modèle, {tools}, puis la réponse finale."


def _quoted(error: ApiError) -> str:
    """« `its message` », then a full stop unless the message ends with one."""
    text = _short(error)
    return f"`{text}`" + ("" if text.endswith((".", "!", "?")) else ".")


def _short(error: ApiError) -> str:
    text = re.sub(r"\s+", " ", str(error.message))
    return text if len(text) <= 300 else text[:299] + "…"


def _ran_last(watched: Watched) -> bool:
    """Whether the loop ran the tools of the model's last request before returning."""
    kinds = [e.kind for e in watched.run.trace.events]
    last = len(kinds) - 1 - kinds[::-1].index("request") if "request" in kinds else 0
    return "tool_call" in kinds[last:]
