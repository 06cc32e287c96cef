"""A loop written by hand, run for real and watched from outside.

A learner's loop is a plain function `loop(task, model, tools, max_turns)` that returns
its messages[] (`reference_loop` is the harness's own, `minimal_loop.boucle`). `watch()`
runs it with a model and tools that report what happens, and
rebuilds the `Trace` the harness would have recorded: each call, each reply and whether
the loop appended it (RULE 1), each tool run and whether its result was appended
(RULE 2). The model is the MockModel, which checks messages[] like the API: a loop that
forgets a rule gets the API's real refusal, from that very run.

`without("RULE 1")` is `reference_loop` with its line marked RULE 1 deleted, the way a
learner deletes it (markers.py). The incidents `missing-call` and `missing-result` are such
loops. `watch(…, seconds=5)` also bounds the loop in time and caps its output (guard.py).

>>> from harness_lib.tools import workspace_tools
>>> from harness_lib.course.missions.tasks import README_TASK, example_workspace
>>> tools = workspace_tools(example_workspace("mini"))
>>> watch(reference_loop, README_TASK, tools).run.reason
'answer'
>>> broken = watch(without("RULE 1"), README_TASK, tools)
>>> broken.run.reason, broken.error.message[:49]
('api_error', "Invalid parameter: messages with role 'tool' must")
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...errors import HarnessError, ModelTimeout
from ...minimal_loop import boucle
from ...mock.model import MockModel
from ...models.model import Completion, Model
from ...text import after_colon, plural
from ...tools.tool import Tool
from ...trace import Run
from . import markers
from .guard import Cut, Guard, raise_in
from .logbook import Logbook
from .spy import Audit, Sent, WatchedModel, for_loop, plain, watched_tool

Loop = Callable[..., Any]  # loop(task, model, tools, max_turns) -> messages[]
# The chapter's loop, written once, in the harness (minimal_loop.py): 08's corrigé.
reference_loop: Loop = boucle


def without(rule: str, loop: Loop = reference_loop) -> Loop:
    """The same loop, its line marked `# RULE n` (or `# EXIT`) deleted (see markers.py)."""
    return markers.without(rule, loop)


@dataclass(frozen=True)
class Watched:
    """A hand-written loop's run: what the harness would have recorded, and how it ended."""

    run: Run  # messages[] as the loop left it, the trace, the reason, the final message
    error: HarnessError | None  # the API's refusal (or timeout), when there was one
    crash: BaseException | None  # the loop's own exception, or the cut that stopped it
    calls: int  # model calls
    sends: list[Sent] = field(default_factory=list)  # what each call sent, plain
    replies: list[Completion] = field(default_factory=list)  # what each call received
    returned: Any = None  # what the loop returned, plain (Strange if it was no plain data)
    guard: Guard | None = None  # its time limit, its cuts, its output
    runs: dict[int, int] = field(default_factory=dict)  # tools started after reply k (failed too)


def watch(loop: Loop, task: str, tools: Sequence[Tool], max_turns: int = 15,
          model: Model | None = None, limit: int | None = None,
          seconds: float | None = None, whole: float | None = None,
          audit: Audit | None = None) -> Watched:
    """Run `loop` on `task`: cut after `limit` calls (3×max_turns), or `seconds` (guard.py);
    `audit`, called at each call and after the loop: what it changed of the grader's."""
    book = Logbook([tool.schema() for tool in tools])
    guard = Guard(seconds, loop_files(loop), whole)
    spy = WatchedModel(model or MockModel(), book, guard, limit or 3 * max_turns, guard.files,
                       audit)
    error = crash = None
    returned: object = None
    threads = set(threading.enumerate())
    try:
        with guard:
            try:
                returned = loop(task, for_loop(spy),
                                [watched_tool(t, book, guard, audit) for t in tools], max_turns)
            except HarnessError as err:  # the API refused (or did not answer): it stops here
                error = err
            except KeyboardInterrupt:  # the learner's ■: theirs, not the loop's
                raise
            except BaseException as err:  # never raised: reported, and explained
                crash = err
    except Cut as err:  # a last cut, landed as the loop came out
        crash = crash or err
    _end_threads(threads | {guard.watchdog})
    crash = (audit() if audit else None) or crash or guard.cut  # a change made at the end,
    # or a cut the loop caught, then returned as if nothing happened
    kept = plain(returned)
    book.sync(kept if isinstance(kept, list) else book.messages)
    reason, message = _ending(book, error, crash, max_turns)
    book.close(reason, message)
    run = Run(list(book.messages), book.trace, reason, message)
    return Watched(run, error, crash, book.calls, spy.sends, book.replies, kept, guard,
                   dict(book.runs))


def _end_threads(before: set[threading.Thread | None]) -> None:
    """The threads the loop started and left running: SystemExit raised into each (quietly
    ended by `threading`), so that none goes on changing the grader's code after the grading.
    One blocked in a call into C ends when the call returns."""
    left = [t for t in threading.enumerate() if t not in before]
    for thread in left:
        raise_in(thread.ident, SystemExit)
    for thread in left:
        thread.join(0.5)


def loop_files(loop: Loop) -> set[str]:
    """The file of the loop's own code (a notebook cell is one): where its lines are."""
    code = getattr(loop, "__code__", None)
    return {code.co_filename} if code is not None else set()


def _ending(book: Logbook, error: HarnessError | None, crash: BaseException | None,
            max_turns: int) -> tuple[str, str]:
    """Why the run stopped, as a Run reason and its French message."""
    if isinstance(error, ModelTimeout):
        return "timeout", f"Arrêt : {after_colon(error.explication)}"
    if error is not None:
        return "api_error", f"Arrêt : l’API refuse l’appel ({error})."
    if isinstance(crash, Cut):
        return crash.reason, f"Arrêt : {crash}"
    if crash is not None:
        return "exception", f"Arrêt : la boucle a levé {type(crash).__name__}."
    last = book.replies[-1] if book.replies else None
    if last is not None and not last.tool_calls:
        return "answer", str(last.message.get("content") or "")
    if book.calls == max_turns:
        return "max_turns", f"Arrêt propre: maximum de {max_turns} tours dépassé."
    return "incomplete", f"Arrêt : la boucle rend la main après {plural(book.calls, 'appel')}, " \
                         "sans réponse finale."
