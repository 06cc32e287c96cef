"""The missions a learner's loop is graded on, each needing a part of the loop.

- read README.md: two calls, and the answer must come from the file (no tools, no file);
- three files: three tool calls in one turn, three results (« trois demandes, trois
  résultats »): handling only `tool_calls[0]` fails it;
- README.md missing: the tool's error must go back to the model, which looks elsewhere;
- format_price: read, edit, run the tests; the file must really be fixed;
- a mission without end: exactly 15 calls, and messages[] left valid;
- going further (optional, not counted): a command that fails again and again; a loop with
  the chapter's stop condition « échecs répétés » stops after 3 failures in a row.

>>> [m.name for m in MISSIONS], EXTRA.name
(['lire', 'trois-fichiers', 'erreur-outil', 'format-price', 'max-tours'], 'echecs')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...limits import MAX_FAILURES
from ...mock.conversation import check_conversation
from ...mock.missions import BUGGY
from ...text import plural
from ..missions.own_loop import Watched
from ..missions.tasks import PRICE_TASK, README_TASK, WAIT_TASK

MAX_TURNS = 15
THREE_TASK = "Lis docs/README.md, pyproject.toml et src/boucle.py, puis résume-les"
FAIL_TASK = "Lance `test -f fini.txt`"
THREE = ("docs/README.md", "pyproject.toml", "src/boucle.py")


@dataclass(frozen=True)
class Mission:
    name: str
    title: str  # French
    task: str
    workspace: str
    done: Callable[[Watched, Path], str | None]  # None if the mission is done, else why not
    optional: bool = False  # « pour aller plus loin »: graded, not counted


def answered(watched: Watched, folder: Path) -> str | None:
    """The run ends with the model's final answer."""
    run = watched.run
    if run.reason != "answer":
        return f"La boucle s’arrête sans réponse finale ({run.message})"
    return None


def read_readme(watched: Watched, folder: Path) -> str | None:
    if why := answered(watched, folder):
        return why
    if "Mini harness" not in watched.run.message:
        return ("La réponse finale ne vient pas de README.md : le modèle ne l’a pas lu. "
                f"Il a répondu : « {watched.run.message[:160]} »")
    return None


def read_three(watched: Watched, folder: Path) -> str | None:
    if why := answered(watched, folder):
        return why
    runs = [e.data.get("id") for e in watched.run.trace.events if e.kind == "tool_call"]
    if len(runs) < len(THREE):
        return (f"Le modèle a demandé trois fichiers, votre boucle n’a exécuté que "
                f"{plural(len(runs), 'outil')} : chaque demande s’exécute, `for appel in "
                "reponse.tool_calls:`.")
    return None


def recovered(watched: Watched, folder: Path) -> str | None:
    if why := answered(watched, folder):
        return why
    if "docs/" not in watched.run.message and "docs" not in watched.run.message.lower():
        return ("Le modèle n’a pas trouvé docs/README.md : l’erreur de read_file doit lui "
                "revenir comme résultat d’outil, telle quelle, pour qu’il change de stratégie.")
    return None


def fixed(watched: Watched, folder: Path) -> str | None:
    if why := answered(watched, folder):
        return why
    if BUGGY in (folder / "price.py").read_text(encoding="utf-8"):
        return "price.py n’a pas été modifié : edit_file n’a pas été exécuté."
    return None


def stopped(watched: Watched, folder: Path) -> str | None:
    """The never-ending mission: exactly MAX_TURNS calls, and a conversation left valid."""
    if watched.calls != MAX_TURNS:
        return (f"Votre boucle a appelé le modèle {watched.calls} fois ; avec `max_tours = "
                f"{MAX_TURNS}`, il en faut {MAX_TURNS}, pas un de plus ni de moins.")
    problems = check_conversation(watched.run.messages)
    if problems:
        return f"La boucle s’arrête, mais `messages[]` n’est plus valide : {problems[0]}"
    return None


def gave_up(watched: Watched, folder: Path) -> str | None:
    """The optional mission: stop after MAX_FAILURES failed tool results in a row."""
    if watched.calls == MAX_FAILURES:
        problems = check_conversation(watched.run.messages)
        return f"`messages[]` n’est plus valide : {problems[0]}" if problems else None
    if watched.calls > MAX_FAILURES:
        return (f"La commande a échoué à chaque tour et votre boucle a continué : "
                f"{watched.calls} appels. Le chapitre arrête la boucle sur des « échecs "
                "répétés » ; le harness du cours l’arrête au troisième échec d’outil d’affilée "
                "(`Limits.max_failures`). Comptez-les (`run_tool(…).is_error`) et sortez quand "
                "il y en a trois.")
    return (f"Votre boucle s’arrête après {plural(watched.calls, 'appel')}, avant le troisième "
            "échec d’affilée : le harness du cours attend le troisième (`Limits.max_failures`), "
            "faites de même.")


MISSIONS = (
    Mission("lire", "Lire README.md et le résumer", README_TASK, "mini", read_readme),
    Mission("trois-fichiers", "Trois fichiers d’un coup (trois demandes, trois résultats)",
            THREE_TASK, "docs", read_three),
    Mission("erreur-outil", "README.md absent, chercher ailleurs", README_TASK, "docs",
            recovered),
    Mission("format-price", "Corriger format_price", PRICE_TASK, "prix", fixed),
    Mission("max-tours", "Une mission sans fin, arrêtée à 15 tours", WAIT_TASK, "attente",
            stopped),
)
EXTRA = Mission("echecs", "Pour aller plus loin, s’arrêter après 3 échecs d’affilée",
                FAIL_TASK, "attente", gave_up, optional=True)
