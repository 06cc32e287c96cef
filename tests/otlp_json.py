"""OTLP/JSON decoded by the OpenTelemetry project's own classes (tests of the export)."""

from __future__ import annotations

import base64
import json
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


def all_spans(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for r in data["resourceSpans"] for g in r["scopeSpans"] for s in g["spans"]]


def decode(data: dict[str, Any]) -> Any:
    """The spans of an OTLP/JSON file as `ExportTraceServiceRequest`'s: OTLP/JSON writes
    ids in hex, proto3's JSON mapping (json_format.Parse) wants base64."""
    for span in all_spans(data):
        assert len(span["traceId"]) == 32 and len(span["spanId"]) == 16
        for key in ("traceId", "spanId", "parentSpanId"):
            if key in span:
                span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    request = json_format.Parse(json.dumps(data), ExportTraceServiceRequest())
    return request.resource_spans[0].scope_spans[0].spans
