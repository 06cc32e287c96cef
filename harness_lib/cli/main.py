"""Command line: replay the chapter's incidents, or run the loop on a mission.

What each command does with its options (options.py lists them): `demo` replays an
incident, `run` runs the loop (its files and bash's confinement settled before the run:
setting.py; its traces kept whatever happens: keep.py; its printing quiet once stdout is
gone: out.py), `diagram` prints or writes a diagram. Every bad input is a French message
and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from dataclasses import replace

from ..course.drawing.export import IMAGE_SUFFIXES, diagram_text, export_image, export_text, load
from ..course.missions.scenarios import INCIDENTS, replay
from ..errors import HarnessError, os_error_text
from ..files import writable_target
from ..limits import Limits
from ..loop import run
from ..mock.model import MockModel
from ..models.model import Model
from ..policy import DEFAULT_POLICY, cli_approver
from ..recorder import bill
from ..text import dollars as dollars_fr
from ..tools.builtin import workspace_tools
from ..tools.sandbox import SandboxWarning
from ..tools.tool import Tool
from ..trace import Event, Trace, describe
from . import setting, teacher
from .debug import format_request, redact
from .keep import INTERRUPTED
from .options import parser
from .out import say, settle

OUT_SUFFIXES = (".mmd", *IMAGE_SUFFIXES)  # what `diagram --out` writes: Mermaid text, or an image


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a terminal that cannot show "é" gets "\xe9"
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    args = parser(INCIDENTS).parse_args(argv)  # a bad command line: French message, exit code 2
    try:
        with warnings.catch_warnings():  # the CLI says it its own way (setting.sandbox_line)
            warnings.simplefilter("ignore", SandboxWarning)
            return _command(args)
    except HarnessError as err:  # a clear French message, never a traceback
        say(redact(f"Erreur : {err.explication}"), error=True)
        return 2
    except OSError as err:  # a file that cannot be read or written (--out in a missing folder)
        where = f"{err.filename} : " if err.filename else ""
        say(redact(f"Erreur : {where}{os_error_text(err)}"), error=True)
        return 2
    except KeyboardInterrupt:  # Ctrl-C outside a run (a run keeps its trace: run_mission)
        say("\nInterrompu (Ctrl-C).", error=True)
        return INTERRUPTED
    finally:  # `| head` closed stdout: what it still holds is dropped, quietly
        settle()


def _command(args: argparse.Namespace) -> int:
    if args.command == "demo":
        return demo(args.scenario)
    if args.command == "diagram":
        return diagram(args.source, args.step, args.out)
    if args.command == "classe":
        return teacher.classe(args.folder, args.csv)
    if args.command == "lien-hub":
        return teacher.lien_hub(args.hub, args.depot, args.branche)
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
    files = setting.targets(args)  # checked before any (possibly paid) call
    workspace = setting.workspace(args)
    model = MockModel() if args.mock else _real_model(args.model, args.max_tokens)
    limits = Limits(max_turns=args.max_turns)
    policy = replace(DEFAULT_POLICY, network=args.network,
                     unconfined="allow" if args.unconfined else "ask")
    say(f"Espace de travail : {workspace}\n{setting.sandbox_line(policy)}")
    tools = workspace_tools(workspace)
    keeper = setting.keeper(args, files, tools)
    keeper.model_name = model.name
    show = _printer(model, tools, limits, keeper.kept, debug=args.debug)
    with keeper.signals():  # before the run: ending.py's handler, in a command, calls it
        try:
            keeper.result = run(args.task, model, tools, limits=limits, policy=policy,
                                approver=cli_approver, on_event=show)
        except BaseException as why:  # Ctrl-C, SIGTERM, SIGHUP, a bug: the trace is kept
            code = keeper.stopped(why)
            if not isinstance(why, KeyboardInterrupt):
                raise
            return code
        finally:
            keeper.save()
    say(redact(f"\n{keeper.result.message}"))
    say(cost_line(keeper.result.trace, model))
    return 0 if keeper.result.reason == "answer" else 1


def _printer(model: Model, tools: list[Tool], limits: Limits, seen: Trace, *, debug: bool
             ) -> Callable[[Event], None]:
    """What the CLI prints of each event; with --debug, each request in full before it.
    Each event is also added to `seen`: the CLI's own copy, to show messages[]."""

    def show(event: Event) -> None:
        seen.add(event)
        if debug and event.kind == "request":
            body = {"model": model.name, "messages": seen.messages,
                    "tools": [t.schema() for t in tools]}
            say(format_request({"body": body, "url": getattr(model, "url", "")},
                                 turn=event.turn, max_turns=limits.max_turns,
                                 model_timeout=limits.model_timeout,
                                 tool_timeout=limits.tool_timeout))
        say(redact(describe(event)))

    return show


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
