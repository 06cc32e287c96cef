"""A loop written by hand, run for real and watched from outside.

A learner's loop is a plain function `loop(task, model, tools, max_turns)` that returns
its messages[]. `watch()` runs it with a model and tools that report what happens, and
rebuilds the `Trace` the harness would have recorded: each call, each reply and whether
the loop appended it (RULE 1), each tool run and whether its result was appended
(RULE 2). The model is the MockModel, which checks messages[] like the API: a loop that
forgets a rule gets the API's real refusal, from that very run.

`without("RULE 1")` is `reference_loop` with its line marked RULE 1 deleted, the way a
learner deletes it. The incidents `missing-call` and `missing-result` are such loops.

>>> from harness_lib.tools import workspace_tools
>>> from harness_lib.course.missions.scenarios import README_TASK, example_workspace
>>> tools = workspace_tools(example_workspace("mini"))
>>> watch(reference_loop, README_TASK, tools).run.reason
'answer'
>>> broken = watch(without("RULE 1"), README_TASK, tools)
>>> broken.run.reason, broken.error.message[:49]
('api_error', "Invalid parameter: messages with role 'tool' must")
"""

from __future__ import annotations

import inspect
import linecache
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ...errors import HarnessError, ModelTimeout
from ...loop import SYSTEM_PROMPT
from ...messages import Message, read_call, system, tool_result, user
from ...models import Completion, MockModel, Model
from ...text import after_colon
from ...tools import Tool, run_tool
from ...trace import Run
from .logbook import Logbook, NoExit, TooManyCalls

Loop = Callable[..., Any]  # loop(task, model, tools, max_turns) -> messages[]


def reference_loop(task: str, model: Model, tools: Sequence[Tool],
                   max_turns: int = 15) -> list[Message]:
    """The loop of notebook 08: the shortest one that keeps both rules and both limits."""
    messages = [system(SYSTEM_PROMPT), user(task)]
    schemas = [tool.schema() for tool in tools]
    for _turn in range(max_turns):
        reply = model.complete(messages, schemas)
        messages.append(reply.message)  # RULE 1
        if not reply.tool_calls:  # EXIT
            return messages
        for call in reply.tool_calls:
            result = run_tool(read_call(call), tools).content
            messages.append(tool_result(call["id"], result))  # RULE 2
    return messages


def without(rule: str, loop: Loop = reference_loop) -> Loop:
    """The same loop, its line marked `# RULE n` (or `# EXIT`) deleted, as a learner would.

    A marked line that opens a block (`if …:`) goes with the lines indented under it.
    """
    source = textwrap.dedent(inspect.getsource(loop)).splitlines()
    kept, block = [], None  # block: the indent of a deleted `if …:`, while we are under it
    for line in source:
        indent = len(line) - len(line.lstrip())
        if block is not None and line.strip() and indent > block:
            continue
        block = None
        if f"# {rule}" in line:
            block = indent if line.split("#")[0].rstrip().endswith(":") else None
            continue
        kept.append(line)
    if len(kept) == len(source):
        raise ValueError(f"aucune ligne marquée « # {rule} » dans {loop.__name__}")
    text, name = "\n".join(kept) + "\n", f"<{loop.__name__} sans {rule}>"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)  # for tracebacks
    namespace = dict(loop.__globals__)  # the loop's own names; the original stays untouched
    exec(compile(text, name, "exec"), namespace)
    return namespace[loop.__name__]


@dataclass(frozen=True)
class Watched:
    """A hand-written loop's run: what the harness would have recorded, and how it ended."""

    run: Run  # messages[] as the loop left it, the trace, the reason, the final message
    error: HarnessError | None  # the API's refusal (or timeout), when there was one
    crash: Exception | None  # an exception raised by the loop's own code
    calls: int  # model calls


def watch(loop: Loop, task: str, tools: Sequence[Tool], max_turns: int = 15,
          model: Model | None = None, limit: int | None = None) -> Watched:
    """Run `loop` on `task`; a loop still calling after `limit` calls (3×max_turns) is cut."""
    book = Logbook([tool.schema() for tool in tools])
    spy = _Spy(model or MockModel(), book, limit or 3 * max_turns)
    error = crash = None
    returned: object = None
    try:
        returned = loop(task, spy, [_watched(tool, book) for tool in tools], max_turns)
    except HarnessError as err:  # the API refused (or did not answer): the loop stops here
        error = err
    except (TooManyCalls, NoExit) as err:
        crash = err
    except Exception as err:  # the loop's own bug: reported to the learner, never raised
        crash = err
    messages = returned if isinstance(returned, list) else book.messages
    book.sync(messages)
    reason, message = _ending(book, error, crash, max_turns)
    book.close(reason, message)
    return Watched(Run(list(messages), book.trace, reason, message), error, crash, book.calls)


def _ending(book: Logbook, error: HarnessError | None, crash: Exception | None,
            max_turns: int) -> tuple[str, str]:
    """Why the run stopped, as a Run reason and its French message."""
    if isinstance(error, ModelTimeout):
        return "timeout", f"Arrêt : {after_colon(error.explication)}"
    if error is not None:
        return "api_error", f"Arrêt : l’API refuse l’appel ({error})."
    if isinstance(crash, (TooManyCalls, NoExit)):
        return crash.reason, f"Arrêt : {crash}"
    if crash is not None:
        return "exception", f"Arrêt : la boucle a levé {type(crash).__name__} : {crash}"
    last = book.replies[-1] if book.replies else None
    if last is not None and not last.tool_calls:
        return "answer", str(last.message.get("content") or "")
    if book.calls == max_turns:
        return "max_turns", f"Arrêt propre: maximum de {max_turns} tours dépassé."
    return "incomplete", f"Arrêt : la boucle rend la main après {book.calls} appel(s), " \
                         "sans réponse finale."


class _Spy:
    """The model the loop calls: it records each call, and cuts a loop that never ends."""

    def __init__(self, model: Model, book: Logbook, limit: int) -> None:
        self.model, self.book, self.limit = model, book, limit
        self.name = getattr(model, "name", "modèle")

    def complete(self, messages: list[Message], tools: list[dict[str, Any]],
                 timeout: float = 120.0) -> Completion:
        self.book.sync(messages)
        if self.book.replies and not self.book.replies[-1].tool_calls:
            raise NoExit()  # the model had answered: EXIT should have returned
        if self.book.calls >= self.limit:
            raise TooManyCalls(self.book.calls)
        self.book.request()
        reply = self.model.complete(messages, tools, timeout)  # refused like the API would
        self.book.reply(reply)
        return reply


def _watched(tool: Tool, book: Logbook) -> Tool:
    """The same tool, reporting each run (its arguments and its result) to the logbook."""

    def function(**arguments: Any) -> str:
        shown = {k: v for k, v in arguments.items() if k != "timeout"}
        result = tool.function(**arguments)
        book.tool_run(tool.name, shown, result if isinstance(result, str) else str(result))
        return result

    return replace(tool, function=function)
