"""Runs in and out of OpenTelemetry: the GenAI semantic conventions v1.40.0, OTLP/JSON.

    names.py     the attribute names: the conventions' (pinned version) and ours (harness.*)
    export.py    `write_otlp(run, path)`, `otlp_dict(run)`: a run as spans (`SpanRecord`)
    encode.py    spans as OTLP/JSON with opentelemetry-proto and protobuf's json_format,
                 imported on the first export (the `otel` extra)
    messages.py  messages as the conventions' `role` + `parts`, every text redacted
    send.py      `send_otlp(run or file)`: to an OTLP/HTTP receiver (a local Phoenix)
    spans.py     `read_spans(text)`: an OTLP/JSON file as plain spans (standard library)
    importer.py  `load_otlp(path)`, `loads_otlp(text)`: GenAI spans recorded elsewhere as
                 the course's `Trace` (`OtelTrace`, with `notes`: what the file lacks)
    build.py     the events rebuilt from the chosen spans, sizes from the file
    said.py      what the file lacks, in French: placeholders and notes

Uses the harness (trace, tokens, secrets, files); the course uses it (07's picker).

>>> from harness_lib.otel import SEMCONV, loads_otlp, write_otlp
>>> SEMCONV
'1.40.0'
"""

from .export import OtelMissing, otlp_dict, write_otlp
from .importer import OtelTrace, load_otlp, loads_otlp, looks_like_otlp
from .names import SEMCONV
from .send import PHOENIX, send_otlp
from .spans import OtlpError

__all__ = ["PHOENIX", "SEMCONV", "OtelMissing", "OtelTrace", "OtlpError", "load_otlp",
           "loads_otlp", "looks_like_otlp", "otlp_dict", "send_otlp", "write_otlp"]
