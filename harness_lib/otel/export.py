"""A run written as OpenTelemetry spans (OTLP/JSON), in the GenAI conventions v1.40.0.

One `invoke_agent harness_lib` span for the run (its stop reason: `harness.stop.reason`),
one `chat {model}` span per model call (`gen_ai.usage.*`, `gen_ai.response.finish_reasons`,
the context it sent: `harness.context.tokens`, its cost when known), one
`execute_tool {name}` span per tool call (`gen_ai.tool.call.id`). Message content only
with `content=True`, and even then every text through `secrets.redact`. The course's trace
keeps no clock: the spans follow one another, 1 ms per step, from the export's time.

The spans are built with the OpenTelemetry project's own classes (`opentelemetry-proto`)
and encoded by protobuf's `json_format`, then the ids written in hex as OTLP/JSON wants.
Both are imported on the first export: `pip install "harness_lib[otel]"`.

>>> from harness_lib.trace import Event, Trace
>>> t = Trace(events=[Event("task", 0, "Mission"), Event("request", 1, "Appel 1"),
...                   Event("reply", 1, "Réponse finale", data={"finish_reason": "stop"}),
...                   Event("answer", 1, "Bonjour")])
>>> [(s.name, s.attributes.get("harness.stop.reason")) for s in spans(t, model="m")]
[('invoke_agent harness_lib', 'answer'), ('chat m', None)]
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from ..files import write_atomically
from ..messages import read_call
from ..tokens import message_tokens
from ..trace import Event, Run, Trace
from . import names as n
from .encode import CLIENT, INTERNAL, OtelMissing, SpanRecord, encode
from .messages import input_messages, output_message

STEP_NS = 1_000_000  # 1 ms between two steps: the course's trace keeps no clock
__all__ = ["OtelMissing", "SpanRecord", "otlp_dict", "spans", "write_otlp"]


def write_otlp(source: Trace | Run, path: str | Path, *, content: bool = False,
               model_name: str = "inconnu", provider: str = "openrouter") -> Path:
    """Write the run as one OTLP/JSON file (an `ExportTraceServiceRequest`); its path."""
    data = otlp_dict(source, content=content, model_name=model_name, provider=provider)
    target = Path(path)
    write_atomically(target, json.dumps(data, ensure_ascii=False).encode("utf-8"))
    return target


def otlp_dict(source: Trace | Run, *, content: bool = False, model_name: str = "inconnu",
              provider: str = "openrouter", start_ns: int | None = None) -> dict[str, Any]:
    """The run as OTLP/JSON: `{"resourceSpans": [...]}`, ids in hex, times as strings."""
    trace = source.trace if isinstance(source, Run) else source
    records = spans(trace, model=model_name, provider=provider, content=content,
                    start_ns=start_ns)
    return encode(records)


def spans(trace: Trace, *, model: str, provider: str = "openrouter", content: bool = False,
          start_ns: int | None = None) -> list[SpanRecord]:
    """The run's spans, the root first, then each call and tool in the order they began."""
    writer = _Writer(trace, model, provider, content, start_ns or time.time_ns())
    for i, event in enumerate(trace.events):
        writer.step(i, event)
    return writer.finish()


class _Writer:
    """Reads the events in order; one method per kind of event that opens or closes a span."""

    def __init__(self, trace: Trace, model: str, provider: str, content: bool, start: int):
        self.trace, self.model, self.provider, self.content = trace, model, provider, content
        self.start = start
        self.root = SpanRecord(f"{n.AGENT} harness_lib", INTERNAL, start, start, {
            n.OPERATION: n.AGENT, n.AGENT_NAME: "harness_lib", n.PROVIDER: provider,
            n.REQUEST_MODEL: model, n.TOOLS_TOKENS: trace.tools_tokens})
        if trace.system is not None:
            self.root.attributes[n.SYSTEM_TOKENS] = message_tokens(trace.system)
            if content:
                self.root.attributes[n.SYSTEM_INSTRUCTIONS] = _json(
                    [{"type": "text", "content": str(trace.system.get("content") or "")}])
        self.children: list[SpanRecord] = []
        self.chat: SpanRecord | None = None
        self.tools: dict[str, SpanRecord] = {}
        self.names: dict[str, str] = {}
        self.usage = [0, 0]

    def step(self, i: int, event: Event) -> None:
        t = self.start + (i + 1) * STEP_NS
        if event.kind == "task" and event.message is not None:
            self.root.attributes[n.TASK_TOKENS] = message_tokens(event.message)
            if self.content:
                self.root.attributes[n.INPUT_MESSAGES] = _json(input_messages([event.message]))
        elif event.kind == "request":
            self._request(i, event, t)
        elif event.kind == "reply" and self.chat is not None:
            self._reply(event, self.chat, t)
        elif event.kind in ("permission", "tool_call", "tool_result"):
            self._tool(event, t)
        elif event.kind in ("answer", "stop"):
            self._end(event)
        self.root.end = t

    def _request(self, i: int, event: Event, t: int) -> None:
        self.chat = SpanRecord(f"{n.CHAT} {self.model}", CLIENT, t, t, {
            n.OPERATION: n.CHAT, n.PROVIDER: self.provider, n.REQUEST_MODEL: self.model,
            n.CONTEXT_TOKENS: sum(event.ledger.values())}, self.root.span_id)
        if self.content:
            self.chat.attributes[n.INPUT_MESSAGES] = _json(input_messages(
                self.trace.messages_at(i)[1 if self.trace.system else 0:]))
        self.children.append(self.chat)

    def _reply(self, event: Event, chat: SpanRecord, t: int) -> None:
        chat.end = t
        usage, data = event.data.get("usage") or {}, event.data
        attributes = chat.attributes
        for name, key, k in ((n.INPUT_TOKENS, "prompt_tokens", 0),
                             (n.OUTPUT_TOKENS, "completion_tokens", 1)):
            if isinstance(usage.get(key), int):
                attributes[name] = usage[key]
                self.usage[k] += usage[key]
        if data.get("finish_reason"):
            attributes[n.FINISH_REASONS] = [str(data["finish_reason"])]
        if data.get("cost_from") in ("provider", "price"):
            attributes[n.COST], attributes[n.COST_SOURCE] = float(data["cost"]), data["cost_from"]
        if event.message is not None:
            attributes[n.MESSAGE_TOKENS] = message_tokens(event.message)
            calls = event.message.get("tool_calls") or []
            self.names.update({(c := read_call(call)).id: str(c.name) for call in calls})
            if self.content:
                attributes[n.OUTPUT_MESSAGES] = _json(
                    [output_message(event.message, data.get("finish_reason"))])

    def _tool(self, event: Event, t: int) -> None:
        call_id = str(event.data.get("id"))
        span = self.tools.get(call_id)
        if span is None:
            name = str(event.data.get("tool") or self.names.get(call_id, "?"))
            span = self.tools[call_id] = SpanRecord(f"{n.TOOL} {name}", INTERNAL, t, t, {
                n.OPERATION: n.TOOL, n.TOOL_NAME: name, n.TOOL_CALL_ID: call_id,
                n.TOOL_TYPE: "function", n.RAN: False}, self.root.span_id)
            self.children.append(span)
        span.end = t
        if event.kind == "permission":
            span.attributes[n.VERDICT] = str(event.data.get("verdict"))
        elif event.kind == "tool_call":
            span.attributes[n.RAN] = True
            if self.content and self.chat is not None:
                span.attributes[n.TOOL_ARGUMENTS] = self._arguments(call_id)
        elif event.message is not None:
            span.attributes[n.MESSAGE_TOKENS] = message_tokens(event.message)
            if event.data.get("error"):
                span.attributes[n.ERROR_TYPE], span.error = "tool_error", "Erreur de l’outil"
            if self.content:
                span.attributes[n.TOOL_RESULT] = str(event.message.get("content") or "")

    def _arguments(self, call_id: str) -> str:
        """The call's arguments as the model wrote them (the JSON text of its request)."""
        for message in reversed(self.trace.messages):
            for call in message.get("tool_calls") or []:
                if read_call(call).id == call_id:
                    return str((call.get("function") or {}).get("arguments") or "")
        return ""

    def _end(self, event: Event) -> None:
        reason = "answer" if event.kind == "answer" else str(event.data.get("reason"))
        attributes = self.root.attributes
        attributes[n.STOP_REASON] = reason
        if event.kind == "stop":
            attributes[n.STOP_MESSAGE] = event.text
            attributes[n.ERROR_TYPE], self.root.error = reason, event.text
        elif self.content:
            attributes[n.OUTPUT_MESSAGES] = _json([output_message(
                {"role": "assistant", "content": event.text}, "stop")])

    def finish(self) -> list[SpanRecord]:
        self.root.attributes[n.INPUT_TOKENS], self.root.attributes[n.OUTPUT_TOKENS] = self.usage
        return [self.root, *self.children]


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)
