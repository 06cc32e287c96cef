"""Command line: replay the chapter's incidents, or run the loop on a mission.

python -m harness_lib demo normal|missing-call|missing-result|tool-error|max-turns
python -m harness_lib run "Lis README.md et résume le projet" --mock --debug
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .debug import format_request, redact
from .errors import HarnessError
from .loop import SYSTEM_PROMPT, Limits, run
from .messages import system
from .mock import MockModel
from .policy import cli_approver
from .scenarios import INCIDENTS, example_workspace, replay, workspace_for
from .tools import workspace_tools
from .trace import Event, Trace, describe


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return demo(args.scenario) if args.command == "demo" else run_mission(args)
    except HarnessError as err:  # a clear French message, never a traceback
        print(redact(f"Erreur : {err.explication}"), file=sys.stderr)
        return 2


def demo(name: str) -> int:
    incident = replay(name)
    print(f"# {incident.name} — {incident.title}\n")
    for event in incident.run.trace.events:
        print(describe(event))
    print(f"\nMessage manquant : {incident.missing}")
    print(f"Qui devait l'ajouter : {incident.who}")
    if incident.error is not None:
        print(f"Erreur de l'API : {incident.error}\n→ {incident.error.explication}")
    print(f"\nFin : {incident.run.message}")
    return 0


def run_mission(args: argparse.Namespace) -> int:
    model = MockModel() if args.mock else _real_model(args.model)
    limits = Limits(max_turns=args.max_turns)
    workspace = (
        Path(args.workspace) if args.workspace else example_workspace(workspace_for(args.task))
    )
    print(f"Espace de travail : {workspace}")

    tools = workspace_tools(workspace)
    seen = Trace(system=system(SYSTEM_PROMPT))  # the CLI's own copy, to show messages[]

    def show(event: Event) -> None:
        seen.add(event)
        if args.debug and event.kind == "request":
            body = {
                "model": model.name,
                "messages": seen.messages,
                "tools": [t.schema() for t in tools],
            }
            print(
                format_request(
                    {"body": body, "url": getattr(model, "url", "")},
                    turn=event.turn,
                    max_turns=limits.max_turns,
                    model_timeout=limits.model_timeout,
                    tool_timeout=limits.tool_timeout,
                )
            )
        print(redact(describe(event)))

    result = run(args.task, model, tools, limits=limits, approver=cli_approver, on_event=show)
    print(redact(f"\n{result.message}"))
    return 0 if result.reason == "answer" else 1


def _real_model(name: str | None):
    from .openrouter import OpenRouterModel  # httpx is imported only on this path

    return OpenRouterModel(name)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m harness_lib",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo_cmd = sub.add_parser("demo", help="rejouer un incident du chapitre (hors ligne)")
    demo_cmd.add_argument("scenario", choices=list(INCIDENTS))
    run_cmd = sub.add_parser("run", help="lancer la boucle sur une mission")
    run_cmd.add_argument("task", help="la mission, entre guillemets")
    run_cmd.add_argument(
        "--debug", action="store_true", help="afficher chaque requête avant l'appel"
    )
    run_cmd.add_argument("--mock", action="store_true", help="modèle simulé : ni réseau ni clé")
    run_cmd.add_argument("--model", default=None, help="identifiant OpenRouter du modèle")
    run_cmd.add_argument("--max-turns", type=int, default=15, help="limite de tours (15)")
    run_cmd.add_argument("--workspace", default=None, help="dossier de travail (un exemple sinon)")
    return parser


if __name__ == "__main__":
    sys.exit(main())
