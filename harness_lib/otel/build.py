"""The events of a run, rebuilt from its GenAI spans (importer.py chose and ordered them).

Each model call: a request and a reply; each tool span after it: its permission (when the
file has the harness's verdict), its call and its result; then the answer, or the stop.
The context is counted as the recorder counts it, from the sizes the file gives (see
importer.py); what the file lacks becomes a placeholder text and a sentence of `notes`.

>>> from harness_lib.otel.spans import Span
>>> call = Span("a", "", "t", "chat m", 1, 0, {"gen_ai.operation.name": "chat",
...                                            "gen_ai.usage.input_tokens": 40})
>>> trace = Builder({}, []).build([call])
>>> [(e.kind, sum(e.ledger.values())) for e in trace.events]
[('task', 40), ('request', 40), ('reply', 40), ('answer', 40)]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..messages import Message, read_call
from ..trace import Event, Trace
from . import names as n
from .messages import text_of, tool_calls_of
from .said import (
    MISSING,
    NO_ARGUMENTS,
    NO_RESULT,
    NO_START,
    NO_SYSTEM,
    NO_TASK,
    NO_TEXT,
    STILL_MISSING,
)
from .spans import Span


@dataclass
class OtelTrace(Trace):
    """A Trace read from OTLP/JSON: `system_tokens` the system prompt's size when the file
    gives it; `notes` what the file does not contain, and what was left out (French)."""

    system_tokens: int = 0
    notes: list[str] = field(default_factory=list)


def kind(span: Span) -> str:
    """call, tool, agent, or other (no GenAI attribute that the course reads)."""
    attributes = span.attributes
    operation = attributes.get(n.OPERATION)
    if operation == n.TOOL or (operation is None and n.TOOL_NAME in attributes):
        return "tool"
    if operation == n.AGENT:
        return "agent"
    if operation in n.MODEL_CALLS or (operation is None and n.INPUT_TOKENS in attributes):
        return "call"
    return "other"


class Builder:
    """The events of the run, one span at a time, the context counted as the recorder does."""

    def __init__(self, root: dict[str, Any], notes: list[str]) -> None:
        self.root, self.notes = root, notes
        self.ours = n.TASK_TOKENS in root  # written by harness_lib: each message's size
        self.ledger: dict[str, int] = {}
        self.trace = OtelTrace(notes=notes)
        self.turn = 0
        self.missing: set[str] = set()
        self.labels: dict[str, str] = {}  # call id -> read_file("a.txt")

    def build(self, spans: list[Span]) -> OtelTrace:
        root, trace = self.root, self.trace
        if self.ours:
            trace.tools_tokens = _int(root.get(n.TOOLS_TOKENS))
            trace.system_tokens = _int(root.get(n.SYSTEM_TOKENS))
            system = text_of(_parsed(root.get(n.SYSTEM_INSTRUCTIONS)))
            trace.system = {"role": "system", "content": system or NO_SYSTEM}
            self.ledger = {k: v for k, v in (("system", trace.system_tokens),
                                             ("tools", trace.tools_tokens)) if v}
        groups = _groups(spans)
        first = groups[0][0].attributes if groups else {}
        task = _int(root.get(n.TASK_TOKENS)) if self.ours else _int(first.get(n.INPUT_TOKENS))
        task_text = _first_text(root.get(n.INPUT_MESSAGES)) or (NO_TASK if self.ours else NO_START)
        self._add("task", task_text, "user", task)
        sizes = [self._results(groups, k) for k in range(len(groups))]
        for (call, tools), shares in zip(groups, sizes, strict=True):
            self._call(call, tools, shares)
        self._end(groups[-1][1] if groups else [])
        self._say_missing()
        return trace

    def _add(self, kind: str, text: str, role: str | None, tokens: int,
             message: Message | None = None, **data: Any) -> None:
        if role is not None:
            message = message or {"role": role, "content": text}
            self.ledger[role] = self.ledger.get(role, 0) + tokens
            data["tokens"] = tokens
        self.trace.add(Event(kind, self.turn, text, message, data, dict(self.ledger)))  # type: ignore[arg-type]

    def _results(self, groups: list[tuple[Span, list[Span]]], k: int) -> list[int]:
        """Each tool result's size after call k: the file's, else the next call's growth."""
        call, tools = groups[k]
        if self.ours or not tools:
            return [_int(t.attributes.get(n.MESSAGE_TOKENS)) for t in tools]
        if k + 1 == len(groups):
            self.missing.add("size")
            return [0] * len(tools)
        attributes, after = call.attributes, groups[k + 1][0].attributes
        grown = _int(after.get(n.INPUT_TOKENS)) - _int(attributes.get(n.INPUT_TOKENS)) \
            - _int(attributes.get(n.OUTPUT_TOKENS))
        if grown < 0:
            self.notes.append(f"Entre les appels {k + 1} et {k + 2}, le contexte envoyé a "
                              "diminué : le fichier ne dit pas ce que l’agent a retiré.")
            grown = 0
        self.missing.add("shared") if len(tools) > 1 else None
        share, rest = divmod(grown, len(tools))
        return [share + (rest if i == len(tools) - 1 else 0) for i in range(len(tools))]

    def _call(self, call: Span, tools: list[Span], sizes: list[int]) -> None:
        self.turn += 1
        attributes = call.attributes
        self._add("request", f"Appel {self.turn} : messages[] + outils", None, 0,
                  turn=self.turn)
        message = self._reply_message(attributes, tools)
        usage = {"prompt_tokens": attributes.get(n.INPUT_TOKENS),
                 "completion_tokens": attributes.get(n.OUTPUT_TOKENS)}
        size = attributes.get(n.MESSAGE_TOKENS) if self.ours else usage["completion_tokens"]
        reasons = attributes.get(n.FINISH_REASONS)
        data: dict[str, Any] = {"usage": {k: v for k, v in usage.items() if isinstance(v, int)},
                                "finish_reason": reasons[0] if isinstance(reasons, list)
                                and reasons else None}
        if isinstance(attributes.get(n.COST), (int, float)):
            data.update(cost=attributes[n.COST], cost_from=attributes.get(n.COST_SOURCE))
        calls = [read_call(c) for c in message.get("tool_calls") or []]
        self.labels.update({c.id: c.label for c in calls})
        label = "tool_call " + ", ".join(c.label for c in calls) if calls else "Réponse finale"
        self._add("reply", label, "assistant", _int(size), message, **data)
        for tool, result_size in zip(tools, sizes, strict=True):
            self._tool(tool, result_size)

    def _reply_message(self, attributes: dict[str, Any], tools: list[Span]) -> Message:
        """The assistant message: its text and calls from the file, else placeholders."""
        out = _parsed(attributes.get(n.OUTPUT_MESSAGES))
        parts = out[0].get("parts") if isinstance(out, list) and out and \
            isinstance(out[0], dict) else None
        written = {str(p.get("id")): p.get("arguments") for p in tool_calls_of(parts)}
        calls = [{"id": _call_id(t), "type": "function", "function": {
            "name": str(t.attributes.get(n.TOOL_NAME) or "?"),
            "arguments": self._arguments(t, written.get(_call_id(t)))}} for t in tools]
        text = text_of(parts) or None
        if text is None and not calls:
            self.missing.add("text")
        message: Message = {"role": "assistant", "content": text if calls else text or NO_TEXT}
        return {**message, "tool_calls": calls} if calls else message

    def _arguments(self, tool: Span, written: object) -> str:
        found = tool.attributes.get(n.TOOL_ARGUMENTS, written)
        if found is None:
            self.missing.add("arguments")
            return NO_ARGUMENTS
        return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)

    def _tool(self, tool: Span, size: int) -> None:
        attributes, call_id = tool.attributes, _call_id(tool)
        name = str(attributes.get(n.TOOL_NAME) or "?")
        if attributes.get(n.VERDICT):
            said = {"allow": "autorisé", "ask": "à valider", "deny": "interdit"}
            verdict = str(attributes[n.VERDICT])
            self._add("permission", f"Contrôle de permission : {said.get(verdict, '?')}", None,
                      0, verdict=verdict, reason="", id=call_id)
        if attributes.get(n.RAN, True) is not False:
            self._add("tool_call", self.labels.get(call_id, name), None, 0, tool=name, id=call_id)
        result = attributes.get(n.TOOL_RESULT)
        if result is None:
            self.missing.add("result")
        text = result if isinstance(result, str) else NO_RESULT if result is None else \
            json.dumps(result, ensure_ascii=False)
        failed = tool.failed or n.ERROR_TYPE in attributes
        self._add("tool_result", text, "tool", size,
                  {"role": "tool", "tool_call_id": call_id, "content": text},
                  tool=name, id=call_id, error=failed)

    def _end(self, last_tools: list[Span]) -> None:
        reason = self.root.get(n.STOP_REASON) or ("incomplete" if last_tools else "answer")
        if reason == "answer":
            last = self.trace.events[-1].message or {}
            self._add("answer", str(last.get("content") or NO_TEXT), None, 0)
        else:
            text = str(self.root.get(n.STOP_MESSAGE) or "Fin du fichier : la trace s’arrête "
                       "après un outil, sans réponse finale du modèle enregistrée.")
            self._add("stop", text, None, 0, reason=str(reason))

    def _say_missing(self) -> None:
        absent = [MISSING[k] for k in MISSING if k in self.missing]
        absent = absent if self.ours else [STILL_MISSING, *absent]
        if absent:
            self.notes.insert(0, f"Ce que ce fichier ne donne pas (dans les attributs GenAI "
                                 f"v{n.SEMCONV} que le lecteur lit) : " + " ; ".join(absent) + ".")


def _groups(spans: list[Span]) -> list[tuple[Span, list[Span]]]:
    """Each model call with the tool spans that began after it and before the next call."""
    groups: list[tuple[Span, list[Span]]] = []
    for span in spans:
        if kind(span) == "call":
            groups.append((span, []))
        elif groups:
            groups[-1][1].append(span)
    return groups


def _call_id(tool: Span) -> str:
    return str(tool.attributes.get(n.TOOL_CALL_ID) or f"sans_id_{tool.index}")


def _first_text(raw: object) -> str:
    messages = _parsed(raw)
    first = messages[0] if isinstance(messages, list) and messages else None
    return text_of(first.get("parts")) if isinstance(first, dict) else ""


def _parsed(raw: object) -> Any:
    """An attribute holding JSON (structured values come already parsed)."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def _int(raw: object) -> int:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else 0
