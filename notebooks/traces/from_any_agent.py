"""How the three traces here were made from any-agent's recorded traces: format only.

any-agent (mozilla-ai/any-agent, Apache-2.0) keeps, as test assets, traces of real runs
of its agents (each framework, model mistral/mistral-small-latest), recorded by the
OpenTelemetry Python SDK and saved as its spans' own JSON (`ReadableSpan.to_json`: ids as
integers, attributes as an object). This script writes the same spans as OTLP/JSON, the
encoding of the OTLP specification: ids in hex, times as strings, attributes as
`{"key", "value": {"stringValue": …}}`, kinds and status codes as numbers. Every span,
attribute, value, id and time is kept; nothing is added but the envelope
(`resourceSpans` → `scopeSpans` → `spans`).

    python notebooks/traces/from_any_agent.py OPENAI_trace.json > any_agent_openai.otlp.json
"""

from __future__ import annotations

import json
import sys
from typing import Any

KINDS = {"internal": 1, "server": 2, "client": 3, "producer": 4, "consumer": 5}
CODES = {"unset": 0, "ok": 1, "error": 2}


def any_value(value: object) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    return {"stringValue": str(value)}


def key_values(attributes: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "value": any_value(value)} for key, value in attributes.items()]


def span(raw: dict[str, Any]) -> dict[str, Any]:
    context, parent = raw["context"], raw.get("parent") or {}
    out: dict[str, Any] = {"traceId": f"{context['trace_id']:032x}",
                           "spanId": f"{context['span_id']:016x}"}
    if parent.get("span_id") is not None:
        out["parentSpanId"] = f"{parent['span_id']:016x}"
    out |= {"name": raw["name"], "kind": KINDS[raw["kind"]],
            "startTimeUnixNano": str(raw["start_time"]), "endTimeUnixNano": str(raw["end_time"]),
            "attributes": key_values(raw["attributes"])}
    status = raw.get("status") or {}
    code = CODES[status.get("status_code", "unset")]
    if code or status.get("description"):
        out["status"] = {"code": code, **({"message": status["description"]}
                                          if status.get("description") else {})}
    return out


def convert(document: dict[str, Any]) -> dict[str, Any]:
    resource = document["spans"][0]["resource"]
    return {"resourceSpans": [{"resource": {"attributes": key_values(resource["attributes"])},
                               "scopeSpans": [{"spans": [span(s) for s in document["spans"]]}]}]}


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as file:
        print(json.dumps(convert(json.load(file)), ensure_ascii=False, indent=1))
