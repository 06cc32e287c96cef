"""Runs in and out of OpenTelemetry: a run exported as OTLP/JSON GenAI spans comes back the
same; the export decodes with the OTLP classes and uses the conventions' names; a key never
leaves; real recorded traces open in the player; hostile files get a French reason."""

from __future__ import annotations

import http.server
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from otlp_json import decode

from harness_lib import MockModel, Run, run, secrets
from harness_lib.course.drawing.diagram import running_totals
from harness_lib.course.drawing.trace_diagram import from_trace
from harness_lib.course.lessons.saved_trace import (
    TraceFileError,
    open_player,
    otel_diagram,
    read_trace,
)
from harness_lib.course.missions.tasks import example_workspace
from harness_lib.course.player.player import Player
from harness_lib.errors import HarnessError
from harness_lib.otel import (
    OtelMissing,
    OtlpError,
    loads_otlp,
    otlp_dict,
    send_otlp,
    write_otlp,
)
from harness_lib.otel import importer as otel_importer
from harness_lib.tools import workspace_tools

DATA = Path(__file__).parents[1] / "notebooks" / "traces"  # beside the course: Lab, Binder, site
REAL = sorted(DATA.glob("*.otlp.json"))
# The names the GenAI conventions v1.40.0 define (docs/gen-ai/gen-ai-spans.md,
# gen-ai-agent-spans.md) and that the export uses; ours all start with « harness. ».
CONVENTIONS = {
    "gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.agent.name",
    "gen_ai.request.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
    "gen_ai.response.finish_reasons", "gen_ai.tool.name", "gen_ai.tool.call.id",
    "gen_ai.tool.type", "error.type", "gen_ai.input.messages", "gen_ai.output.messages",
    "gen_ai.system_instructions", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result",
}
CONTENT = {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions",
           "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"}


def mock_run(task: str = "Lis README.md et résume-le") -> Run:
    return run(task, MockModel(), workspace_tools(example_workspace("mini")))


def all_spans(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for r in data["resourceSpans"] for g in r["scopeSpans"] for s in g["spans"]]


def names(span: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: a["value"] for a in span["attributes"]}


@pytest.mark.parametrize("content", [False, True])
def test_a_run_exported_then_imported_gives_the_same_steps_sizes_and_stop(content: bool) -> None:
    done = mock_run()
    back = loads_otlp(json.dumps(otlp_dict(done, content=content, model_name="mock")))
    steps = [(e.kind, e.turn, e.data.get("tool"), e.data.get("id")) for e in done.trace.events]
    assert [(e.kind, e.turn, e.data.get("tool"), e.data.get("id")) for e in back.events] == steps
    assert [e.ledger for e in back.events] == [e.ledger for e in done.trace.events]
    assert back.events[-1].kind == "answer" and done.reason == "answer"
    # The player draws the same context sizes, step by step.
    assert running_totals(otel_diagram(back)) == running_totals(from_trace(done.trace))
    usage = [e.data.get("usage") for e in back.events if e.kind == "reply"]
    assert usage == [{k: v for k, v in e.data["usage"].items() if k != "total_tokens"}
                     for e in done.trace.events if e.kind == "reply"]
    if content:  # the texts came back too: nothing is left to say missing
        assert [e.message for e in back.events] == [e.message for e in done.trace.events]
        assert back.notes == []
    else:
        assert back.notes and "les résultats des outils" in back.notes[0]


def test_a_stopped_run_keeps_its_reason_and_message() -> None:
    from harness_lib import Limits

    done = run("Lis README.md et résume-le", MockModel(),
               workspace_tools(example_workspace("mini")), limits=Limits(max_turns=1))
    assert done.reason == "max_turns"
    back = loads_otlp(json.dumps(otlp_dict(done)))
    assert back.events[-1].kind == "stop" and back.events[-1].data["reason"] == "max_turns"
    assert back.events[-1].text == done.message
    root = all_spans(otlp_dict(done))[0]
    assert names(root)["error.type"] == {"stringValue": "max_turns"}


def test_the_export_decodes_with_the_otlp_classes_and_uses_the_conventions_names(
        tmp_path: Path) -> None:
    path = write_otlp(mock_run(), tmp_path / "run.json", model_name="mock", provider="mock")
    decoded = decode(json.loads(path.read_text(encoding="utf-8")))  # ids: hex to bytes
    assert [s.name for s in decoded] == ["invoke_agent harness_lib", "chat mock",
                                         "execute_tool read_file", "chat mock"]
    assert [s.kind for s in decoded] == [1, 3, 1, 3]  # INTERNAL, CLIENT
    root = decoded[0].span_id
    assert all(s.parent_span_id == root for s in decoded[1:])
    assert all(s.start_time_unix_nano <= s.end_time_unix_nano for s in decoded)
    used = {a.key for s in decoded for a in s.attributes}
    assert {k for k in used if not k.startswith("harness.")} <= CONVENTIONS
    assert not used & CONTENT  # content only when asked
    chat = {a.key: a.value for a in decoded[1].attributes}
    assert chat["gen_ai.operation.name"].string_value == "chat"
    assert chat["gen_ai.usage.input_tokens"].int_value == 425
    assert chat["harness.context.tokens"].int_value == 425
    assert [v.string_value for v in chat["gen_ai.response.finish_reasons"].array_value.values] \
        == ["tool_calls"]
    assert chat["harness.cost.usd"].double_value > 0
    tool = {a.key: a.value for a in decoded[2].attributes}
    assert tool["gen_ai.tool.call.id"].string_value == "call_1"
    assert {a.key: a.value for a in decoded[0].attributes}["harness.stop.reason"].string_value \
        == "answer"


def test_content_follows_the_conventions_message_shape() -> None:
    spans = all_spans(otlp_dict(mock_run(), content=True))
    reply = json.loads(names(spans[1])["gen_ai.output.messages"]["stringValue"])
    assert reply == [{"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1",
                      "name": "read_file", "arguments": {"path": "README.md"}}],
                      "finish_reason": "tool_calls"}]
    sent = json.loads(names(spans[3])["gen_ai.input.messages"]["stringValue"])
    assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
    assert sent[2]["parts"][0]["type"] == "tool_call_response"


class FakeClient:
    """A model client that registers its key, as OpenRouterModel does."""

    key = "sk-or-v1-" + "f4ke" * 12

    def hide(self, text: str) -> str:
        return text.replace(self.key, "***")


def test_the_key_never_leaves_even_with_content(tmp_path: Path) -> None:
    client = FakeClient()
    secrets.register(client)
    done = mock_run(f"Lis README.md, ma clé est {client.key}")
    assert client.key in json.dumps(done.trace.events[0].message)  # the mission holds it
    text = write_otlp(done, tmp_path / "run.json", content=True).read_text(encoding="utf-8")
    assert client.key not in text and "ma clé est ***" in text
    assert client.key not in json.dumps(otlp_dict(done))


def test_without_the_packages_the_export_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "google.protobuf.json_format", None)
    with pytest.raises(OtelMissing, match=r"pip install \"harness_lib\[otel\]\""):
        otlp_dict(mock_run())


def test_importing_harness_lib_or_its_reader_loads_no_protobuf() -> None:
    code = ("import sys, harness_lib, harness_lib.otel; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('google', 'opentelemetry')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_real_recorded_traces_open_in_the_player(path: Path) -> None:
    assert len(REAL) >= 3 and path.stat().st_size < 200_000
    player = open_player(path)
    assert isinstance(player, Player)
    trace = read_trace(path.read_bytes(), path.name)
    kinds = [e.kind for e in trace.events]
    assert kinds.count("request") == 3 and kinds.count("tool_call") >= 2
    assert player.total == len(trace.events)
    # Each call's context is what the provider counted (gen_ai.usage.input_tokens).
    sent = [a["value"]["intValue"] for s in all_spans(json.loads(path.read_text()))
            for a in s["attributes"] if a["key"] == "gen_ai.usage.input_tokens"]
    totals = running_totals(player.diagram)
    requests = [i + 1 for i, e in enumerate(trace.events) if e.kind == "request"]
    assert [totals[k] for k in requests] == [int(x) for x in sent]
    said = player.diagram.steps[0].note
    assert "ne donne pas" in said and "résultats des outils" in said


def test_a_trace_that_ends_after_a_tool_says_so() -> None:
    trace = read_trace((DATA / "any_agent_google.otlp.json").read_bytes(), "g.json")
    last = trace.events[-1]
    assert last.kind == "stop" and last.data["reason"] == "incomplete"
    assert "sans réponse finale" in last.text


def otlp(*spans: dict[str, Any]) -> str:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]})


def span(span_id: str, parent: str = "", operation: str | None = "chat", start: int = 1,
         **attributes: Any) -> dict[str, Any]:
    values = ({"gen_ai.operation.name": operation} if operation else {}) | attributes
    return {"traceId": "ab" * 16, "spanId": span_id, "parentSpanId": parent, "name": span_id,
            "startTimeUnixNano": str(start),
            "attributes": [{"key": k, "value": {"intValue": str(v)} if isinstance(v, int)
                            else {"stringValue": v}} for k, v in values.items()]}


@pytest.mark.parametrize(("content", "said"), [
    (b"\xff\xfe{", "n’est pas un fichier texte"),
    ("{pas du json", "n’est pas du JSON lisible"),
    ("[1, 2]", "il lui manque la liste resourceSpans"),
    ('{"system": null, "tools_tokens": 0, "tools": []}', "Une trace du cours"),
    ('{"resourceSpans": []}', "aucun de ses 0 spans"),
    (otlp(span("a", operation=None, **{"http.method": "GET"})), "conventions GenAI"),
    (otlp(span("a", "b"), span("b", "c"), span("c", "a")), "forment une boucle"),
    (otlp(span("a", "a")), "forment une boucle"),
    ("[" * 100_000 + "]" * 100_000, "trop profondément"),
    ('{"resourceSpans": [{"scopeSpans": [{"spans": [1, "x"]}]}]}', "aucun de ses 0 spans"),
])
def test_hostile_files_are_refused_in_french(content: str | bytes, said: str,
                                             tmp_path: Path) -> None:
    with pytest.raises(TraceFileError) as refused:
        read_trace(content, "t.json")
    assert said in refused.value.explication
    path = tmp_path / "t.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    shown = open_player(path)  # never raises: a French message instead
    assert "Impossible d’ouvrir la trace" in shown.data


def test_the_reader_s_own_error_is_a_harness_error() -> None:
    with pytest.raises(OtlpError) as refused:
        loads_otlp("[1]")
    assert isinstance(refused.value, HarnessError) and "resourceSpans" in str(refused.value)


def test_odd_values_are_read_or_left_out_never_raised() -> None:
    deep: dict[str, Any] = {"stringValue": "x"}
    for _ in range(50):
        deep = {"arrayValue": {"values": [deep]}}
    odd = span("a", input=None) | {"startTimeUnixNano": "pas un nombre",
                                   "status": {"code": "STATUS_CODE_ERROR"}}
    odd["attributes"] += [{"key": "deep", "value": deep}, {"key": 3, "value": {}},
                          {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "9" * 50}}]
    trace = loads_otlp(otlp(odd, span("t", operation="execute_tool", start=2,
                                      **{"gen_ai.tool.name": "x"})))
    assert [e.kind for e in trace.events] == ["task", "request", "reply", "tool_call",
                                              "tool_result", "stop"]


def test_a_span_with_attributes_of_other_instrumentations_is_said_left_out() -> None:
    trace = loads_otlp(otlp(span("a"), span("h", operation=None, **{"http.method": "GET"})))
    assert any("1 spans sur 2" in note for note in trace.notes)


def test_a_hundred_thousand_spans_load_bounded() -> None:
    # Timing and memory: bench/run.py (« OTLP import »), not here.
    many = [span(f"{i + 1:016x}", "f" * 16, "chat" if i % 3 == 0 else "execute_tool", start=i,
                 **{"gen_ai.tool.name": "bash", "gen_ai.usage.input_tokens": i})
            for i in range(100_000)]
    trace = loads_otlp(otlp(*many), "gros.json")
    drawn = otel_importer.MAX_DRAWN
    assert sum(e.kind in ("request", "tool_call") for e in trace.events) == drawn
    assert any(f"{100_000 - drawn:,}".replace(",", "\u202f") in note for note in trace.notes)


class Receiver(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP receiver on 127.0.0.1, as a local Phoenix is: protobuf only."""

    received: list[bytes] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        kind = self.headers["Content-Type"]
        Receiver.received.append(body)
        self.send_response(200 if kind == "application/x-protobuf" else 415)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[str]:
    server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Receiver.received = []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1/traces"
    server.shutdown()
    server.server_close()


def test_a_run_and_a_real_trace_are_sent_as_protobuf_to_a_local_receiver(receiver: str) -> None:
    assert send_otlp(mock_run(), receiver, model_name="mock") == 200
    assert send_otlp(REAL[0], receiver) == 200
    mine, real = (ExportTraceServiceRequest.FromString(b) for b in Receiver.received)
    assert [s.name for s in mine.resource_spans[0].scope_spans[0].spans][:2] == [
        "invoke_agent harness_lib", "chat mock"]
    sent = real.resource_spans[0].scope_spans[0].spans
    file = all_spans(json.loads(REAL[0].read_text(encoding="utf-8")))
    assert [s.span_id.hex() for s in sent] == [s["spanId"] for s in file]


def test_sending_says_in_french_what_went_wrong(tmp_path: Path) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{free.getsockname()[1]}/v1/traces"
    with pytest.raises(HarnessError, match="Impossible de joindre .* phoenix serve"):
        send_otlp(mock_run(), closed, timeout=5)
    broken = tmp_path / "x.json"
    broken.write_text("{pas du json", encoding="utf-8")
    with pytest.raises(HarnessError, match="n’est pas de l’OTLP/JSON envoyable"):
        send_otlp(broken, closed)
