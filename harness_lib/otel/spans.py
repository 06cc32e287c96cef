"""An OTLP/JSON file read into plain spans, with the standard library only, bounded.

What it accepts: one `ExportTraceServiceRequest` in JSON (`{"resourceSpans": [...]}`),
or JSON lines of them (the OpenTelemetry Collector's file exporter); ids in hex or base64,
times as strings or numbers. What it refuses, in French (`OtlpError`): not UTF-8, not
JSON, no `resourceSpans`, parents that form a cycle. Nothing here walks a chain of
parents twice, nor recurses deeper than `MAX_DEPTH`: a hostile file costs linear time.

>>> doc = {"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "01", "name": "chat m",
...   "startTimeUnixNano": "5", "attributes": [{"key": "gen_ai.usage.input_tokens",
...   "value": {"intValue": "12"}}]}]}]}]}
>>> [(s.name, s.start, s.attributes) for s in read_spans(json.dumps(doc))]
[('chat m', 5, {'gen_ai.usage.input_tokens': 12})]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..errors import HarnessError

MAX_DEPTH = 8  # nested arrayValue / kvlistValue read at most this deep


class OtlpError(HarnessError, ValueError):
    """A file that is not OTLP/JSON of GenAI spans; the message says why, in French."""


@dataclass
class Span:
    """One span, as much of it as the course uses."""

    span_id: str
    parent: str
    trace_id: str
    name: str
    start: int
    index: int  # its place in the file: the order of spans that began at the same time
    attributes: dict[str, Any] = field(default_factory=dict)
    failed: bool = False  # status ERROR


def read_spans(content: str | bytes, name: str = "le fichier") -> list[Span]:
    """Every span of the file, in the file's order; OtlpError if it is not OTLP/JSON."""
    try:
        text = content.decode("utf-8") if isinstance(content, bytes) else content
    except UnicodeDecodeError:
        raise OtlpError(f"{name} n’est pas un fichier texte (UTF-8) : OTLP/JSON est du "
                        "JSON") from None
    spans = [_span(raw, i) for i, raw in enumerate(_raw_spans(_documents(text, name), name))]
    _refuse_cycles(spans, name)
    return spans


def _documents(text: str, name: str) -> list[object]:
    """The JSON document, or each line's (JSON lines)."""
    try:
        return [json.loads(text)]
    except json.JSONDecodeError as err:
        if err.msg != "Extra data":
            raise OtlpError(f"{name} n’est pas du JSON lisible ({err.msg}, ligne {err.lineno}) : "
                            "un fichier OTLP/JSON est un objet {\"resourceSpans\": […]}") from None
    except RecursionError:
        raise OtlpError(f"{name} : JSON imbriqué trop profondément") from None
    documents = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            try:
                documents.append(json.loads(line))
            except (ValueError, RecursionError) as err:
                raise OtlpError(f"{name}, ligne {number} : JSON illisible ({err})") from None
    return documents


def _raw_spans(documents: list[object], name: str) -> list[dict[str, Any]]:
    """The span objects under resourceSpans → scopeSpans → spans, whatever else is there."""
    found: list[dict[str, Any]] = []
    for document in documents:
        groups = document.get("resourceSpans") if isinstance(document, dict) else None
        if not isinstance(groups, list):
            keys = ", ".join(map(str, list(document)[:5])) if isinstance(document, dict) else \
                type(document).__name__
            raise OtlpError(f"{name} n’est pas un fichier OTLP/JSON : il lui manque la liste "
                            f"resourceSpans (trouvé : {keys or 'un objet vide'}). Une trace du "
                            "cours (run --trace) s’ouvre comme fichier .jsonl.")
        for group in _dicts(groups):
            scopes = group.get("scopeSpans", group.get("instrumentationLibrarySpans"))
            for scope in _dicts(scopes):
                found += _dicts(scope.get("spans"))
    return found


def _span(raw: dict[str, Any], index: int) -> Span:
    status = raw.get("status")
    code = status.get("code") if isinstance(status, dict) else None
    parent = _text(raw.get("parentSpanId"))
    return Span(_text(raw.get("spanId")), parent if parent.strip("0") else "",
                _text(raw.get("traceId")), _text(raw.get("name")),
                _integer(raw.get("startTimeUnixNano")) or 0, index,
                attributes(raw.get("attributes")), code in (2, "STATUS_CODE_ERROR"))


def attributes(values: object) -> dict[str, Any]:
    """`[{"key": k, "value": {"stringValue": v}}, …]` as `{k: v}` (unreadable ones left out)."""
    found: dict[str, Any] = {}
    for pair in _dicts(values):
        if isinstance(pair.get("key"), str):
            found[pair["key"]] = value(pair.get("value"))
    return found


def value(any_value: object, depth: int = 0) -> Any:
    """One AnyValue as Python: text, number, bool, list or dict; None if unreadable."""
    if not isinstance(any_value, dict) or depth > MAX_DEPTH:
        return None
    if "stringValue" in any_value:
        return _text(any_value["stringValue"])
    if "intValue" in any_value:
        return _integer(any_value["intValue"])
    if "doubleValue" in any_value or "boolValue" in any_value:
        found = any_value.get("doubleValue", any_value.get("boolValue"))
        return found if isinstance(found, (int, float, bool)) else None
    inner = any_value.get("arrayValue", any_value.get("kvlistValue"))
    items = inner.get("values") if isinstance(inner, dict) else None
    if "arrayValue" in any_value:
        return [value(item, depth + 1) for item in items] if isinstance(items, list) else []
    if "kvlistValue" in any_value:
        return {k: value(v, depth + 1) for k, v in attributes(items).items()}
    return None


def _refuse_cycles(spans: list[Span], name: str) -> None:
    """OtlpError if following parents ever comes back to a span: each span walked once."""
    parents = {s.span_id: s.parent for s in spans if s.span_id}
    done: set[str] = set()
    for start in parents:
        path: set[str] = set()
        node = start
        while node in parents and node not in done:
            if node in path:
                raise OtlpError(f"{name} : les parents des spans forment une boucle (le span "
                                f"{node[:32]} est son propre ancêtre) ; une trace est un arbre.")
            path.add(node)
            node = parents[node]
        done |= path


def _dicts(values: object) -> list[dict[str, Any]]:
    return [v for v in values if isinstance(v, dict)] if isinstance(values, list) else []


def _text(raw: object) -> str:
    return raw if isinstance(raw, str) else "" if raw is None else str(raw)


def _integer(raw: object) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    try:
        return int(str(raw)) if isinstance(raw, (str, float)) and len(str(raw)) < 40 else None
    except ValueError:
        return None
