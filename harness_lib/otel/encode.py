"""Spans as OTLP/JSON, with the OpenTelemetry project's own classes: `opentelemetry-proto`
builds the `ExportTraceServiceRequest`, protobuf's `json_format` writes it, then the ids go
from base64 (proto3's JSON mapping) to hex (OTLP/JSON's rule). Both packages are imported
here, on the first export only (`pip install "harness_lib[otel]"`); without them,
`OtelMissing` says in French what to install.

>>> record = SpanRecord("chat m", CLIENT, 1, 2, {"gen_ai.operation.name": "chat"})
>>> span = encode([record])["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
>>> span["name"], span["kind"], span["startTimeUnixNano"], len(span["spanId"])
('chat m', 3, '1', 16)
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field
from typing import Any

from ..errors import HarnessError
from ..secrets import redact
from . import names as n

INTERNAL, CLIENT = 1, 3  # SpanKind
ERROR = 2  # Status.code


class OtelMissing(HarnessError):
    """The export's packages are not installed: the message says what to install."""


@dataclass
class SpanRecord:
    """One span before encoding: what the conventions say of one step of the run."""

    name: str
    kind: int
    start: int
    end: int
    attributes: dict[str, Any] = field(default_factory=dict)
    parent: bytes = b""
    span_id: bytes = field(default_factory=lambda: os.urandom(8))
    error: str = ""


def encode(records: list[SpanRecord]) -> dict[str, Any]:
    """The spans as an `ExportTraceServiceRequest`, then OTLP/JSON (ids in hex)."""
    request = _request(records)  # first: it says in French what is missing
    from google.protobuf.json_format import MessageToDict

    data: dict[str, Any] = MessageToDict(request, use_integers_for_enums=True)
    for span in data["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for key in ("traceId", "spanId", "parentSpanId"):
            if key in span:
                span[key] = base64.b64decode(span[key]).hex()
    return data


def require() -> None:
    """OtelMissing, in French, unless the export's packages are installed: the CLI asks
    before the run (`--trace-otel`), as the export comes after it."""
    _request([])


def _request(records: list[SpanRecord]) -> Any:
    """The OTLP request: one resource (service.name harness_lib), one scope, the spans."""
    try:
        from google.protobuf.json_format import MessageToDict  # noqa: F401  (said in French)
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as service
        from opentelemetry.proto.common.v1 import common_pb2 as common
        from opentelemetry.proto.resource.v1 import resource_pb2 as resource
        from opentelemetry.proto.trace.v1 import trace_pb2 as trace
    except ImportError as err:
        raise OtelMissing(
            f"L’export OpenTelemetry demande les paquets opentelemetry-proto et protobuf "
            f"({err.name} manque) : installez-les avec pip install \"harness_lib[otel]\", "
            "ou pip install opentelemetry-proto.") from None
    trace_id = os.urandom(16)
    encoded = [trace.Span(
        trace_id=trace_id, span_id=r.span_id, parent_span_id=r.parent, name=r.name,
        kind=trace.Span.SpanKind.ValueType(r.kind),
        start_time_unix_nano=r.start, end_time_unix_nano=r.end,
        attributes=[_key_value(common, k, v) for k, v in r.attributes.items()],
        status=trace.Status(code=trace.Status.StatusCode.ValueType(ERROR),
                            message=redact(r.error)) if r.error else None)
        for r in records]
    scope = trace.ScopeSpans(scope=common.InstrumentationScope(name="harness_lib.otel"),
                             spans=encoded, schema_url=n.SCHEMA_URL)
    who = resource.Resource(attributes=[_key_value(common, "service.name", "harness_lib")])
    return service.ExportTraceServiceRequest(resource_spans=[
        trace.ResourceSpans(resource=who, scope_spans=[scope], schema_url=n.SCHEMA_URL)])


def protobuf_bytes(data: dict[str, Any]) -> bytes:
    """OTLP/JSON (ids in hex) as the protobuf bytes an OTLP/HTTP receiver takes (Phoenix
    reads only these); `OtelMissing` without the packages, `ValueError` for a bad file."""
    from google.protobuf.json_format import ParseDict, ParseError
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as service

    if not isinstance(data, dict):
        raise ValueError("un objet {\"resourceSpans\": […]} est attendu")
    copy = json.loads(json.dumps(data))  # the caller's dict stays as it was
    for group in copy.get("resourceSpans") or []:
        for scope in group.get("scopeSpans") or []:
            for span in scope.get("spans") or []:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    try:
        request = ParseDict(copy, service.ExportTraceServiceRequest(), ignore_unknown_fields=True)
    except ParseError as err:
        raise ValueError(str(err)) from None
    return bytes(request.SerializeToString())


def _key_value(common: Any, key: str, value: object) -> Any:
    return common.KeyValue(key=key, value=_any_value(common, value))


def _any_value(common: Any, value: object) -> Any:
    """One attribute's value; every text through `redact` (a key never leaves)."""
    if isinstance(value, bool):
        return common.AnyValue(bool_value=value)
    if isinstance(value, int):
        return common.AnyValue(int_value=value)
    if isinstance(value, float):
        return common.AnyValue(double_value=value)
    if isinstance(value, (list, tuple)):
        items = [_any_value(common, item) for item in value]
        return common.AnyValue(array_value=common.ArrayValue(values=items))
    return common.AnyValue(string_value=redact(str(value)))
