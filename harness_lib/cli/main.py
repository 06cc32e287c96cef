"""Command line: replay the chapter's incidents, or run the loop on a mission.

What each command does with its options (options.py lists them): `demo` replays an
incident, `run` runs the loop (bash in its sandbox, said before the run; Ctrl-C keeps
the trace), `diagram` prints or writes a diagram. Every bad input is a French message
and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..course.drawing.export import IMAGE_SUFFIXES, diagram_text, export_image, export_text, load
from ..course.missions.scenarios import example_workspace, replay, workspace_for
from ..errors import HarnessError, os_error_text
from ..files import writable_target, write_atomically
from ..limits import Limits
from ..loop import run
from ..messages import SYSTEM_PROMPT, system
from ..mock import MockModel
from ..models import Model
from ..policy import DEFAULT_POLICY, Policy, cli_approver
from ..recorder import bill
from ..text import dollars as dollars_fr
from ..tokens import tools_tokens
from ..tools import Tool, sandbox, workspace_tools
from ..tools.sandbox import SandboxWarning
from ..trace import Event, Trace, describe
from .debug import format_request, redact
from .options import parser

OUT_SUFFIXES = (".mmd", *IMAGE_SUFFIXES)  # what `diagram --out` writes: Mermaid text, or an image
INTERRUPTED = 130  # the exit code of a program stopped by Ctrl-C (128 + SIGINT)


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a terminal that cannot show "é" gets "\xe9"
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    args = parser().parse_args(argv)  # a bad command line: French message, exit code 2
    try:
        with warnings.catch_warnings():  # the CLI says it its own way (_sandbox_line)
            warnings.simplefilter("ignore", SandboxWarning)
            return _command(args)
    except HarnessError as err:  # a clear French message, never a traceback
        print(redact(f"Erreur : {err.explication}"), file=sys.stderr)
        return 2
    except OSError as err:  # a file that cannot be read or written (--out in a missing folder)
        where = f"{err.filename} : " if err.filename else ""
        print(redact(f"Erreur : {where}{os_error_text(err)}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C outside a run (a run keeps its trace: run_mission)
        print("\nInterrompu (Ctrl-C).", file=sys.stderr)
        return INTERRUPTED


def _command(args: argparse.Namespace) -> int:
    if args.command == "demo":
        return demo(args.scenario)
    if args.command == "diagram":
        return diagram(args.source, args.step, args.out)
    return run_mission(args)


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
    target = writable_target(out, "--out", OUT_SUFFIXES) if out is not None else None
    loaded = load(source)
    if target is None:
        print(diagram_text(loaded, step), end="")
        return 0
    if target.suffix.lower() in IMAGE_SUFFIXES:
        written = export_image(loaded, target, step=step)  # server: $MERMAID_INK_SERVER
    else:
        written = export_text(loaded, target, step)
    print(f"Diagramme écrit : {written}")
    return 0


def run_mission(args: argparse.Namespace) -> int:
    if not args.task.strip():
        raise HarnessError("empty mission", explication="La mission est vide : écrivez entre "
                           "guillemets ce que l’agent doit faire.")
    trace_file = writable_target(args.trace, "--trace") if args.trace is not None else None
    workspace = _workspace(args)
    model = MockModel() if args.mock else _real_model(args.model, args.max_tokens)
    limits = Limits(max_turns=args.max_turns)
    policy = replace(DEFAULT_POLICY, network=args.network,
                     unconfined="allow" if args.unconfined else "ask")
    print(f"Espace de travail : {workspace}\n{_sandbox_line(policy)}")
    tools = workspace_tools(workspace)
    kept = Trace(system=system(SYSTEM_PROMPT), tools_tokens=tools_tokens(
        [t.schema() for t in tools]), tools=[t.schema() for t in tools])  # what Ctrl-C keeps
    show = _printer(model, tools, limits, kept, debug=args.debug)
    try:
        result = run(args.task, model, tools, limits=limits, policy=policy,
                     approver=cli_approver, on_event=show)
    except KeyboardInterrupt:
        return _interrupted(kept, trace_file)
    print(redact(f"\n{result.message}"))
    print(cost_line(result.trace, model))
    if trace_file is not None:
        save_trace(result.trace, trace_file)
    return 0 if result.reason == "answer" else 1


def _sandbox_line(policy: Policy) -> str:
    """What confines bash in this run, said once before it starts."""
    why = sandbox.problem()
    if why is None:
        net = "réseau autorisé" if policy.network else "sans réseau"
        return f"Bac à sable : bash écrit dans l’espace de travail seulement, {net}."
    said = sandbox.notice(why)
    if policy.unconfined == "allow":
        return f"{said} Ici, les commandes tournent sans question."
    return said


def _interrupted(kept: Trace, trace_file: Path | None) -> int:
    """Ctrl-C during the run: say it, and keep what happened until then."""
    turn = kept.events[-1].turn if kept.events else 0
    message = "Arrêt : interrompu par la personne (Ctrl-C)."
    ledger = dict(kept.events[-1].ledger) if kept.events else {}
    kept.add(Event("stop", turn, message, data={"reason": "interrupted"}, ledger=ledger))
    print(f"\n{message}", file=sys.stderr)
    if trace_file is not None:
        save_trace(kept, trace_file)
    return INTERRUPTED


def _workspace(args: argparse.Namespace) -> Path:
    """--workspace, or the example folder that suits the mission."""
    if args.workspace is not None and not args.workspace.strip():
        raise HarnessError("empty workspace", explication="--workspace est vide : donnez le "
                           "dossier de travail de l’agent, ou retirez l’option (un exemple).")
    workspace = (Path(args.workspace).expanduser() if args.workspace is not None
                 else example_workspace(workspace_for(args.task)))
    if not workspace.is_dir():
        raise HarnessError(f"not a folder: {workspace}", explication=f"« {workspace} » "
                           f"{'n’est pas un dossier' if workspace.exists() else 'n’existe pas'} :"
                           " --workspace attend le dossier de travail de l’agent.")
    return workspace


def _printer(model: Model, tools: list[Tool], limits: Limits, seen: Trace, *, debug: bool
             ) -> Callable[[Event], None]:
    """What the CLI prints of each event; with --debug, each request in full before it.
    Each event is also added to `seen`: the CLI's own copy, to show messages[]."""

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


def save_trace(trace: Trace, target: Path) -> None:
    """The run's trace as JSON lines, written whole, to replay in the player; a key quoted
    by a model or a tool becomes *** before it reaches the disk."""
    write_atomically(target, redact(trace.text()).encode("utf-8"))
    print(f"Trace enregistrée : {target} (le notebook 07 la rejoue dans le lecteur)")


def _real_model(name: str | None, max_tokens: int | None) -> Model:
    from ..models.openrouter import OpenRouterModel  # httpx is imported only on this path

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
