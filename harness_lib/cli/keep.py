"""What `run` keeps whatever happens: its trace (--trace) and its OpenTelemetry copy
(--trace-otel), written in a `finally`.

After an answer or a stop, the run's own trace; after Ctrl-C, SIGTERM or SIGHUP (what
`timeout`, `kill` and a closed terminal send), what the CLI saw until then, ended by a
`stop` event that says which (`reason` "interrupted", and `signal` for a signal); after an
unexpected failure, the same with its name. Whatever happened to stdout too (out.py): the
files are written before anything more is printed.

SIGTERM and SIGHUP would end Python at once, with no `finally`: while the run goes on,
`Keeper.signals()` turns them into `Ended`, a KeyboardInterrupt, which unwinds the run as
Ctrl-C does. Installed before the run, so that tools/ending.py, while a bash command runs,
kills the command's process group first and then calls this handler. A second signal while
the files are written waits for them, then ends the process as it would have.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from ..errors import HarnessError
from ..files import write_atomically
from ..otel.export import write_otlp
from ..tools.ending import replace_handlers
from ..trace import Event, Run, Trace
from .debug import redact
from .out import say

INTERRUPTED = 130  # the exit code of a program stopped by Ctrl-C (128 + SIGINT)
SENT_BY = {"SIGTERM": "envoyé par timeout ou kill", "SIGHUP": "le terminal s’est fermé"}


class Ended(KeyboardInterrupt):
    """SIGTERM or SIGHUP during the run: unwinds it as Ctrl-C does (a tool's `finally`
    still kills its command), with the signal's number."""

    def __init__(self, number: int) -> None:
        super().__init__(signal.Signals(number).name)
        self.number = number


@dataclass
class Keeper:
    """The files `run` was asked to write, and what it saw of the run (`kept`)."""

    kept: Trace
    trace_file: Path | None = None
    otel_file: Path | None = None
    model_name: str = "inconnu"
    provider: str = "openrouter"
    result: Run | None = None
    ending: bool = False
    pending: int = 0  # a signal received while the files were written

    @contextmanager
    def signals(self) -> Iterator[None]:
        """While the block runs, SIGTERM and SIGHUP raise Ended (once; later, they wait)."""

        def end(number: int, frame: FrameType | None) -> None:
            if self.ending:
                self.pending = self.pending or number
                return
            self.ending = True
            raise Ended(number)

        previous = replace_handlers(end)  # not under nohup, nor off the main thread
        try:
            yield
        finally:
            for number, before in previous.items():
                signal.signal(number, before)
            if self.pending:  # the files are written: now the signal does what it did
                os.kill(os.getpid(), self.pending)

    def stopped(self, why: BaseException) -> int:
        """The run did not end by itself: a `stop` event that says why; the exit code."""
        self.ending = True
        data: dict[str, object] = {"reason": "interrupted"}
        code = INTERRUPTED
        if isinstance(why, Ended):
            name = signal.Signals(why.number).name
            message = f"Arrêt : interrompu par {name} ({SENT_BY.get(name, 'un signal')})."
            data["signal"], code = name, 128 + why.number
        elif isinstance(why, KeyboardInterrupt):
            message = "Arrêt : interrompu par la personne (Ctrl-C)."
        else:
            message = f"Arrêt : la harness a échoué ({type(why).__name__})."
            data["error"], code = type(why).__name__, 2
        last = self.kept.events[-1] if self.kept.events else None
        self.kept.add(Event("stop", last.turn if last else 0, message, data=dict(data),
                            ledger=dict(last.ledger) if last else {}))
        say(f"\n{message}", error=True)
        return code

    def save(self) -> None:
        """Write each file asked for; then, if one could not be written, say why (FileError)."""
        self.ending = True
        trace = self.result.trace if self.result is not None else self.kept
        failed: list[HarnessError] = []
        for path, write in ((self.trace_file, self._trace), (self.otel_file, self._otel)):
            if path is not None:
                try:
                    write(trace, path)
                except HarnessError as err:
                    failed.append(err)
        if failed:
            raise failed[0]

    def _trace(self, trace: Trace, path: Path) -> None:
        save_trace(trace, path)

    def _otel(self, trace: Trace, path: Path) -> None:
        write_otlp(trace, path, model_name=self.model_name, provider=self.provider)
        say(f"Trace OpenTelemetry enregistrée : {path} (spans GenAI, pour Phoenix, Langfuse…)")


def save_trace(trace: Trace, target: Path) -> None:
    """The run's trace as JSON lines, written whole, to replay in the player; a key quoted
    by a model or a tool becomes *** before it reaches the disk."""
    write_atomically(target, redact(trace.text()).encode("utf-8"))
    say(f"Trace enregistrée : {target} (le notebook 07 la rejoue dans le lecteur)")
