"""Where `run` takes place, settled before the first call (a real model's calls are paid):
the files it will write (--trace, --trace-otel), its workspace, and what confines bash.

Each problem is a French message and exit code 2 (main.py), before any model is built.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from ..course.missions.tasks import example_workspace, workspace_for
from ..errors import HarnessError
from ..files import writable_target
from ..messages import SYSTEM_PROMPT, system
from ..otel.encode import require as require_otel
from ..policy import Policy
from ..tokens import tools_tokens
from ..tools.sandbox import notice as sandbox_notice
from ..tools.sandbox import problem as sandbox_problem
from ..tools.tool import Tool
from ..trace import Trace
from .keep import Keeper


def targets(args: argparse.Namespace) -> tuple[Path | None, Path | None]:
    """--trace and --trace-otel: each in a folder that takes a new file; the export's
    packages installed (opentelemetry-proto and protobuf, the `otel` extra)."""
    trace = writable_target(args.trace, "--trace") if args.trace is not None else None
    otel = (writable_target(args.trace_otel, "--trace-otel", (".json",))
            if args.trace_otel is not None else None)
    if otel is not None:
        require_otel()
    return trace, otel


def keeper(args: argparse.Namespace, files: tuple[Path | None, Path | None],
           tools: list[Tool]) -> Keeper:
    """What the run keeps: the files, and the CLI's own copy of the run, from the same
    system prompt and tools as the loop's (what an interruption leaves)."""
    schemas = [t.schema() for t in tools]
    kept = Trace(system=system(SYSTEM_PROMPT), tools_tokens=tools_tokens(schemas), tools=schemas)
    return Keeper(kept, *files, provider="mock" if args.mock else "openrouter")


def workspace(args: argparse.Namespace) -> Path:
    """--workspace, or the example folder that suits the mission."""
    if args.workspace is not None and not args.workspace.strip():
        raise HarnessError("empty workspace", explication="--workspace est vide : donnez le "
                           "dossier de travail de l’agent, ou retirez l’option (un exemple).")
    if args.workspace is not None:
        folder = Path(args.workspace).expanduser()
    else:  # the example's copy outlives the command: its path is printed, to look at after
        name = workspace_for(args.task)
        folder = example_workspace(name, tempfile.mkdtemp(prefix=f"harness-{name}-"))
    if not folder.is_dir():
        raise HarnessError(f"not a folder: {folder}", explication=f"« {folder} » "
                           f"{'n’est pas un dossier' if folder.exists() else 'n’existe pas'} :"
                           " --workspace attend le dossier de travail de l’agent.")
    return folder


def sandbox_line(policy: Policy) -> str:
    """What confines bash in this run, said once before it starts; where nothing can,
    that every command waits for a yes (the mock's too), or that --unconfined skips it."""
    why = sandbox_problem()
    if why is None:
        net = "réseau autorisé" if policy.network else "sans réseau"
        return f"Bac à sable : bash écrit dans l’espace de travail seulement, {net}."
    if policy.unconfined == "allow":
        return (f"Pas de bac à sable pour bash : {why}. Avec --unconfined, chaque commande "
                "tourne avec vos droits, sans question, à vos risques.")
    return sandbox_notice(why, opt_out="--unconfined")
