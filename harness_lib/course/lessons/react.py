"""ReAct, seen from the harness: reasoning → action → observation, turn by turn.

`react_steps(trace)` regroups a run by model call: the text the model displayed
next to its tool calls (its *visible* reasoning, if any), the actions it asked
for, and the observations the harness sent back. The harness never sees more
than that: whatever the model computed without writing it stays invisible.

`fixed_pipeline(task, tools, model)` is the opposite design: a small state
machine where the harness, not the model, decides the path (read README.md,
then one model call without tools to summarise it).

>>> from harness_lib import MockModel, run, workspace_tools
>>> from harness_lib.course.missions.tasks import example_workspace
>>> done = run("Lis README.md et résume le projet", MockModel(think=True),
...            workspace_tools(example_workspace("mini")))
>>> first, last = react_steps(done.trace)
>>> first.thought, first.actions
('Je dois lire README.md.', ('read_file("README.md")',))
>>> last.answer.startswith("Résumé.")
True
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ...errors import HarnessError
from ...loop import finish
from ...messages import SYSTEM_PROMPT, assistant, read_call, system, tool_call, tool_result, user
from ...models.model import Model, answer_text
from ...recorder import Recorder
from ...text import one_line, shorten
from ...tools.tool import Tool, run_tool
from ...trace import Run, Trace
from .codeview import HEAD

NOT_SHOWN = "(rien d’affiché)"  # the model asked for tools without writing a word


@dataclass(frozen=True)
class ReactTurn:
    """One model call: visible reasoning, actions asked for, observations, or the answer."""

    turn: int
    thought: str | None  # None: the model displayed no text with its tool calls
    actions: tuple[str, ...] = ()
    observations: tuple[str, ...] = ()
    answer: str | None = None  # set on the turn that ends without a tool call
    reasoning: str | None = None  # what a reasoning model's provider sent as its reasoning


def react_steps(trace: Trace) -> list[ReactTurn]:
    """The run as ReAct turns, read from the trace's replies and tool results."""
    results = {e.message.get("tool_call_id"): str(e.message.get("content"))
               for e in trace.events if e.kind == "tool_result" and e.message}
    turns = []
    for event in trace.events:
        if event.kind != "reply" or not event.message:
            continue
        calls = event.message.get("tool_calls") or []
        text = answer_text(event.message) or None  # content as text or as parts
        reasoning = event.data.get("reasoning") or None  # a provider's field, never the text
        if not calls:  # no tool request: this text is the final answer, not a thought
            turns.append(ReactTurn(event.turn, None, answer=text or "", reasoning=reasoning))
            continue
        turns.append(ReactTurn(event.turn, text, tuple(action_label(c) for c in calls),
                               tuple(results.get(c.get("id"), "(pas de résultat)") for c in calls),
                               reasoning=reasoning))
    return turns


def action_label(call: object) -> str:
    """read_file("README.md"): the tool's name and its argument values, as in the chapter."""
    return read_call(call).label


def _short(text: str, limit: int = 90) -> str:
    return shorten(one_line(text), limit)


def _quoted(text: str, limit: int = 90) -> str:
    """« text », shortened; its own « » become “ ”, as French nests quotation marks."""
    inner = _short(text, limit).replace("«\u00a0", "“").replace("\u00a0»", "”")
    return f"« {inner.replace('«', '“').replace('»', '”')} »"


def react_text(turns: Sequence[ReactTurn]) -> str:
    """The chapter's layout: « Tour 1 : raisonnement → … », one block per turn."""
    lines = []
    for t in turns:
        start = f"Tour {t.turn} : "
        pad = " " * len(start)
        if t.reasoning:  # the provider's own field: visible reasoning, not an action
            lines.append(f"{start}raisonnement visible (du fournisseur) → "
                         + _quoted(t.reasoning))
        lines.append((pad if t.reasoning else start) + "raisonnement → "
                     + (_quoted(t.thought) if t.thought else NOT_SHOWN))
        lines += [f"{pad}action       → {a}" for a in t.actions]
        lines += [f"{pad}observation  → {_quoted(o, 60)}" for o in t.observations]
        if t.answer is not None:
            lines.append(f"{pad}réponse finale → {_quoted(t.answer, 70)}")
    return "\n".join(lines)


CELL = "border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top"


def react_html(turns: Sequence[ReactTurn]) -> str:
    """The same turns as an HTML table (inline styles: they survive JupyterLab's sanitizer)."""
    # A column for the provider's reasoning only when a model sent some: the mock never does.
    shown = any(t.reasoning for t in turns)
    titles = ("Tour", "Raisonnement visible (du fournisseur)", "Raisonnement affiché", "Action",
              "Observation", "Réponse finale")
    head = "".join(f'<th style="{CELL};{HEAD}">{h}</th>'
                   for h in titles if shown or not h.startswith("Raisonnement visible"))
    rows = []
    for t in turns:
        thought = html.escape(t.thought) if t.thought \
            else f"<i>{NOT_SHOWN}</i>"
        visible = [html.escape(_short(t.reasoning or "", 200))] if shown else []
        cells = [str(t.turn), *visible, thought,
                 "<br>".join(f"<code>{html.escape(a)}</code>" for a in t.actions),
                 "<br>".join(html.escape(_short(o)) for o in t.observations),
                 html.escape(_short(t.answer, 200)) if t.answer is not None else ""]
        rows.append("<tr>" + "".join(f'<td style="{CELL}">{c}</td>' for c in cells) + "</tr>")
    return f'<table style="border-collapse:collapse"><tr>{head}</tr>{"".join(rows)}</table>'


@dataclass
class PipelineRun(Run):
    """A Run, plus the states the fixed pipeline went through."""

    states: list[str] = field(default_factory=list)


class _Machine:
    """The pipeline's bookkeeping: the recorder of the run and the states visited."""

    def __init__(self, rec: Recorder, say: Callable[[str], None] | None) -> None:
        self.rec, self.say, self.states = rec, say, []

    def enter(self, state: str) -> None:
        self.states.append(state)
        if self.say is not None:
            self.say(f"État : {state}")

    def end(self, done: Run) -> PipelineRun:
        return PipelineRun(done.messages, done.trace, done.reason, done.message, self.states)

    def fail(self, message: str) -> PipelineRun:
        self.enter("échec")
        return self.end(self.rec.stop("dead_end", message))

    def read(self, path: str, tools: Sequence[Tool]) -> bool:
        """The harness runs read_file itself. True when the file was read."""
        request = tool_call("call_1", "read_file", {"path": path})
        call = read_call(request)
        # An assistant message still carries the call: messages[] must stay valid (RULE 1).
        self.rec.messages.append(assistant(None, [request]))
        self.rec.tool_call(call, note="décidé par le harness")
        seen = run_tool(call, tools)
        self.rec.messages.append(tool_result(call.id, seen.content))  # RULE 2
        self.rec.tool_result(call, seen)
        return not seen.is_error


def fixed_pipeline(task: str, tools: Sequence[Tool], model: Model, *, path: str = "README.md",
                   say: Callable[[str], None] | None = print,
                   system_prompt: str = SYSTEM_PROMPT) -> PipelineRun:
    """Read `path`, then summarise it: the harness picks every step, the model only writes.

    States: « lire README.md » → « résumer » → « terminé », or « échec » as soon as a
    step fails: the machine has no other path to try.
    """
    messages = [system(system_prompt), user(task)]
    machine = _Machine(Recorder(messages, [], None, price=None), say)
    rec = machine.rec
    machine.enter(f"lire {path}")
    if not machine.read(path, tools):
        error = rec.messages[-1]["content"]
        return machine.fail(f"Arrêt : l’état « lire {path} » a échoué ({error}) et la machine "
                            "à états ne prévoit aucun autre chemin.")
    machine.enter("résumer")
    rec.request(1, "messages[] sans outils")
    try:
        reply = model.complete(messages, [])  # no tools: the model cannot change the path
    except HarnessError as err:
        return machine.fail(f"Arrêt : l’appel au modèle a échoué ({err.explication}).")
    messages.append(reply.message)  # RULE 1
    rec.reply(reply)
    if reply.tool_calls:
        return machine.fail("Arrêt : le modèle demande un outil, ce que l’état « résumer » "
                            "ne prévoit pas.")
    done = finish(rec, reply)
    machine.enter("terminé" if done.reason == "answer" else "échec")
    return machine.end(done)
