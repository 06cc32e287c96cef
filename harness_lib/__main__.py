"""Command line: replay the chapter's incidents, or run the loop on a mission.

python -m harness_lib demo normal|missing-call|missing-result|tool-error|max-turns
python -m harness_lib run "Lis README.md et résume le projet" --mock --debug [--trace F.jsonl]
python -m harness_lib diagram deux_tours|FICHIER.mmd|TRACE.jsonl [--step K] [--out FICHIER]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from .course.drawing.export import IMAGE_SUFFIXES, diagram_text, export_image, export_text, load
from .course.missions.scenarios import INCIDENTS, example_workspace, replay, workspace_for
from .debug import format_request, redact
from .errors import HarnessError
from .french_args import FrenchArgumentParser, positive_int
from .limits import MAX_TURNS, Limits
from .loop import SYSTEM_PROMPT, run
from .messages import system
from .models import MockModel, Model
from .policy import cli_approver
from .recorder import bill
from .text import dollars as dollars_fr
from .tools import Tool, workspace_tools
from .trace import Event, Trace, describe


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a terminal that cannot show "é" gets "\xe9"
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    args = _parser().parse_args(argv)  # a bad command line: French message, exit code 2
    try:
        if args.command == "demo":
            return demo(args.scenario)
        if args.command == "diagram":
            return diagram(args.source, args.step, args.out)
        return run_mission(args)
    except HarnessError as err:  # a clear French message, never a traceback
        print(redact(f"Erreur : {err.explication}"), file=sys.stderr)
        return 2
    except OSError as err:  # a file that cannot be read or written (--out in a missing folder)
        print(redact(f"Erreur : {err.filename or ''} : {err.strerror or err}"), file=sys.stderr)
        return 2


def demo(name: str) -> int:
    incident = replay(name)
    print(f"# {incident.name} — {incident.title}\n")
    for event in incident.run.trace.events:
        print(describe(event))
    print(f"\nMessage manquant : {incident.missing}")
    print(f"Qui devait l’ajouter : {incident.who}")
    if incident.error is not None:
        print(f"Erreur de l’API : {incident.error}\n→ {incident.error.explication}")
    print(f"\nFin : {incident.run.message}")
    return 0


def diagram(source: str, step: int | None, out: str | None) -> int:
    """Print the Mermaid text (offline), or write it: .svg/.png need a mermaid.ink server."""
    loaded = load(source)
    if out is None:
        print(diagram_text(loaded, step), end="")
        return 0
    if Path(out).suffix.lower() in IMAGE_SUFFIXES:
        written = export_image(loaded, out, step=step)  # server: $MERMAID_INK_SERVER
    else:
        written = export_text(loaded, out, step)
    print(f"Diagramme écrit : {written}")
    return 0


def run_mission(args: argparse.Namespace) -> int:
    if not args.task.strip():
        raise HarnessError("empty mission", explication="La mission est vide : écrivez entre "
                           "guillemets ce que l’agent doit faire.")
    trace_file = _trace_file(args.trace) if args.trace else None
    workspace = _workspace(args)
    model = MockModel() if args.mock else _real_model(args.model, args.max_tokens)
    limits = Limits(max_turns=args.max_turns)
    print(f"Espace de travail : {workspace}")
    tools = workspace_tools(workspace)
    show = _printer(model, tools, limits, debug=args.debug)
    result = run(args.task, model, tools, limits=limits, approver=cli_approver, on_event=show)
    print(redact(f"\n{result.message}"))
    print(cost_line(result.trace, model))
    if trace_file is not None:
        save_trace(result.trace, trace_file)
    return 0 if result.reason == "answer" else 1


def _workspace(args: argparse.Namespace) -> Path:
    """--workspace, or the example folder that suits the mission."""
    workspace = (
        Path(args.workspace) if args.workspace else example_workspace(workspace_for(args.task))
    )
    if not workspace.is_dir():
        raise HarnessError(f"not a folder: {workspace}", explication=f"« {workspace} » "
                           f"{'n’est pas un dossier' if workspace.exists() else 'n’existe pas'} :"
                           " --workspace attend le dossier de travail de l’agent.")
    return workspace


def _printer(model: Model, tools: list[Tool], limits: Limits, *, debug: bool
             ) -> Callable[[Event], None]:
    """What the CLI prints of each event; with --debug, each request in full before it."""
    seen = Trace(system=system(SYSTEM_PROMPT))  # the CLI's own copy, to show messages[]

    def show(event: Event) -> None:
        seen.add(event)
        if debug and event.kind == "request":
            body = {"model": model.name, "messages": seen.messages,
                    "tools": [t.schema() for t in tools]}
            print(format_request({"body": body, "url": getattr(model, "url", "")},
                                 turn=event.turn, max_turns=limits.max_turns,
                                 model_timeout=limits.model_timeout,
                                 tool_timeout=limits.tool_timeout))
        print(redact(describe(event)))

    return show


def _trace_file(path: str) -> Path:
    """Where --trace will write, checked before the run: a mission is not run for nothing."""
    target = Path(path).expanduser()
    if not target.parent.is_dir() or target.is_dir():
        raise HarnessError(path, explication=f"--trace {path} : le dossier "
                           f"{target.parent} n’existe pas, ou {target.name} est un dossier.")
    return target


def save_trace(trace: Trace, target: Path) -> None:
    """The run's trace as JSON lines, to replay in the player; a key in it becomes ***."""
    try:
        trace.save(target)
        text = target.read_text(encoding="utf-8")
        if redact(text) != text:  # a model or a tool quoted the key: never keep it on disk
            target.write_text(redact(text), encoding="utf-8")
    except OSError as err:
        raise HarnessError(str(err), explication=f"impossible d’écrire la trace dans {target} "
                           f"({err.strerror or err}).") from None
    print(f"Trace enregistrée : {target} (le notebook 07 la rejoue dans le lecteur)")


def _real_model(name: str | None, max_tokens: int | None) -> Model:
    from .models.openrouter import OpenRouterModel  # httpx is imported only on this path

    model = OpenRouterModel(name, max_tokens=max_tokens)
    if model.price is None:  # not in the table: ask the server's models list (online)
        model.price = model.fetch_price()
    return model


def cost_line(trace: Trace, model: Model) -> str:
    """What the run cost, and who said so: the provider's bill, or tokens × a price."""
    spent, sources = bill(trace)
    if not sources or sources == {"unknown"}:
        return f"Coût : inconnu (ni le fournisseur ni le prix de {model.name} ne le disent)."
    said = {"provider": "facturé par le fournisseur", "price": "estimé au prix du modèle",
            "unknown": "des appels sans prix comptés 0"}
    return f"Coût : {dollars_fr(spent)} ({', '.join(said[s] for s in sorted(sources))})."


def _parser() -> argparse.ArgumentParser:
    parser = FrenchArgumentParser(
        prog="python -m harness_lib",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, title="commandes",
                                metavar="COMMANDE")
    demo_cmd = sub.add_parser("demo", help="rejouer un incident du chapitre (hors ligne)")
    demo_cmd.add_argument("scenario", choices=list(INCIDENTS))
    run_cmd = sub.add_parser("run", help="lancer la boucle sur une mission")
    run_cmd.add_argument("task", metavar="MISSION", help="la mission, entre guillemets")
    run_cmd.add_argument(
        "--debug", action="store_true", help="afficher chaque requête avant l’appel"
    )
    run_cmd.add_argument("--mock", action="store_true", help="modèle simulé : ni réseau ni clé")
    run_cmd.add_argument("--model", default=None, help="identifiant OpenRouter du modèle")
    run_cmd.add_argument("--max-turns", type=positive_int, default=MAX_TURNS,
                         help=f"limite de tours ({MAX_TURNS})")
    run_cmd.add_argument("--max-tokens", type=positive_int, default=None, metavar="N",
                         help="longueur maximale de chaque réponse du modèle réel, en tokens")
    run_cmd.add_argument("--workspace", default=None, help="dossier de travail (un exemple sinon)")
    run_cmd.add_argument("--trace", default=None, metavar="FICHIER.jsonl",
                         help="enregistrer la trace de l’exécution, pour la rejouer")
    _diagram_parser(sub.add_parser("diagram", help="le texte Mermaid d’un diagramme, ou son image"))
    return parser


def _diagram_parser(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "source",
        metavar="NOM_OU_FICHIER",
        help="deux_tours, erreur_outil, boucle_complete, un .mmd ou une trace .jsonl",
    )
    cmd.add_argument(
        "--step",
        type=positive_int,
        default=None,
        metavar="K",
        help="seulement les K premières flèches, la dernière surlignée",
    )
    cmd.add_argument(
        "--out",
        default=None,
        metavar="FICHIER",
        help="écrire dans un .mmd (hors ligne), ou un .svg/.png : l’image "
        "demande le réseau (serveur mermaid.ink ou $MERMAID_INK_SERVER)",
    )


if __name__ == "__main__":
    sys.exit(main())
