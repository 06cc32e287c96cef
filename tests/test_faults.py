"""The fault matrix, end to end: run() + OpenRouterModel against a real local HTTP server.

Every fault ends in one of three ways, and nothing else:
- a clean retry (429/502/503), after which the run goes on to its answer;
- an observation the model can act on: the next request the server receives
  carries it as a `tool` message;
- a clean stop, with a named reason and a French message.

Whatever happened, `assert_nothing_lost` checks the same invariants: run() returned,
messages[] is a valid conversation (or has exactly the documented problem), every
request on the wire is in the trace, the trace saves to JSON lines and loads back
unchanged, and ReplayModel.from_trace plays the run again to the same messages.
See docs/reliability.md for the table of faults and the test that proves each one.
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest
from fake_server import FakeServer, completion_body, error_body, text_reply, tool_reply
from processes import alive, named, survivors

from harness_lib import (
    STRICT_POLICY,
    Limits,
    ReplayModel,
    Run,
    Trace,
    check_conversation,
    run,
    workspace_tools,
)
from harness_lib.messages import ToolCall
from harness_lib.models import openrouter
from harness_lib.models.openrouter import OpenRouterModel
from harness_lib.policy import DEFAULT_POLICY, Policy, check_permission
from harness_lib.tools import Tool
from harness_lib.tools.shell import BACKGROUND

KEY = "sk-or-v1-" + "0123456789abcdef" * 4
TASK = "Lis README.md et résume le projet"
FAST = Limits(max_turns=4, model_timeout=5.0, tool_timeout=5.0)
README = "# Mini harness\nUne boucle et un outil.\n"


@pytest.fixture
def tools(tmp_path: Path) -> list[Tool]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text(README, encoding="utf-8")
    (root / "a.txt").write_text("contenu de a\n", encoding="utf-8")
    (root / "c.txt").write_text("contenu de c\n", encoding="utf-8")
    return workspace_tools(root)


def closed_port_url() -> str:
    with socket.socket() as sock:  # a port that was free a moment ago: nobody listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def mission(
    fake: FakeServer,
    tools: list[Tool],
    tmp_path: Path,
    *,
    limits: Limits = FAST,
    url: str | None = None,
    documented: tuple[str, ...] = (),
    policy: Policy = DEFAULT_POLICY,
) -> tuple[Run, list[float]]:
    """Run TASK with a real OpenRouterModel on the fake server; check that nothing is lost."""
    sleeps: list[float] = []
    model = OpenRouterModel(
        "fake/model", api_key=KEY, base_url=url or fake.url, sleep=sleeps.append
    )
    result = run(TASK, model, tools, limits=limits, policy=policy)  # never raises
    assert_nothing_lost(result, fake, tools, tmp_path, limits, documented, policy)
    return result, sleeps


def assert_nothing_lost(
    result: Run,
    fake: FakeServer,
    tools: list[Tool],
    tmp_path: Path,
    limits: Limits,
    documented: tuple[str, ...],
    policy: Policy,
) -> None:
    # messages[]: a valid conversation, or exactly the documented problems.
    assert [p.message for p in check_conversation(result.messages)] == list(documented)
    last = result.trace.events[-1]
    assert last.kind == ("answer" if result.reason == "answer" else "stop")
    if result.reason != "answer":
        assert last.data["reason"] == result.reason and result.message.startswith("Arrêt")
    # The trace knows every request that went on the wire (retries send the same one again).
    sent = [r.body["messages"] for r in fake.chat_requests]
    sent = [body for i, body in enumerate(sent) if i == 0 or body != sent[i - 1]]
    asked = [k for k, e in enumerate(result.trace.events) if e.kind == "request"]
    assert sent == [result.trace.messages_at(k) for k in asked][: len(sent)]
    # JSON lines and back: not one event, message or character lost.
    path = tmp_path / "trace.jsonl"
    result.trace.save(path)
    loaded = Trace.load(path)
    assert [asdict(e) for e in loaded.events] == [asdict(e) for e in result.trace.events]
    assert (loaded.system, loaded.tools) == (result.trace.system, result.trace.tools)
    assert loaded.messages == result.messages
    # The replay plays the recorded replies again, and the loop rebuilds the same messages.
    replay = ReplayModel.from_trace(loaded)
    assert replay.replies == [m for m in result.messages if m["role"] == "assistant"]
    again = run(TASK, replay, tools, limits=limits, policy=policy)
    assert again.messages == result.messages


def tool_messages(fake: FakeServer, k: int) -> list[str]:
    """The contents of the tool messages in the k-th chat request the server received."""
    return [m["content"] for m in fake.chat_requests[k].body["messages"] if m["role"] == "tool"]


def read_readme() -> dict[str, Any]:
    return tool_reply(("read_file", {"path": "README.md"}))


# --- the model's API: HTTP statuses, retries ------------------------------------------------


def test_http_400_stops_with_the_provider_text_from_metadata_raw(fake_openai, tools, tmp_path):
    text = "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after"
    raw = {"type": "error", "error": {"type": "invalid_request_error", "message": text}}
    fake_openai.push(error_body("Provider returned error", 400, raw=raw), status=400)
    result, sleeps = mission(fake_openai, tools, tmp_path)
    assert result.reason == "api_error" and sleeps == []
    assert text in result.message and "Requête refusée par l’API" in result.message
    assert "Provider returned error" not in result.message  # the inner text, not the wrapper
    assert [m["role"] for m in result.messages] == ["system", "user"]


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (401, "Clé d’API invalide"),
        (402, "Plus de crédits"),
        (403, "modération"),
        (408, "propre délai"),
        (500, "indisponible"),
    ],
)
@pytest.mark.parametrize("turn", [1, 2])
def test_http_errors_stop_cleanly_with_a_french_reason(
    fake_openai, tools, tmp_path, status, words, turn
):
    if turn == 2:  # the first turn went fine: its messages must survive the error
        fake_openai.push(read_readme())
    fake_openai.push(error_body(f"Erreur {status} du fournisseur", status), status=status)
    result, sleeps = mission(fake_openai, tools, tmp_path)
    assert (result.reason, sleeps) == ("api_error", [])  # not retried
    assert f"HTTP {status}" in result.message and words in result.message
    assert len(fake_openai.chat_requests) == turn
    assert len(result.messages) == (2 if turn == 1 else 4)


@pytest.mark.parametrize(("headers", "waits"), [({"Retry-After": "3"}, [3.0]), ({}, [1.0])])
def test_429_is_retried_then_the_run_answers(fake_openai, tools, tmp_path, headers, waits):
    fake_openai.push(read_readme())
    fake_openai.push(error_body("Rate limit exceeded", 429), status=429, headers=headers)
    fake_openai.push(text_reply("Le projet est un harness minimal."))
    result, sleeps = mission(fake_openai, tools, tmp_path)
    assert (result.reason, result.answer) == ("answer", "Le projet est un harness minimal.")
    assert sleeps == waits  # the server's Retry-After, else the first step of the backoff
    assert len(fake_openai.chat_requests) == 3
    assert fake_openai.chat_requests[1].body == fake_openai.chat_requests[2].body  # same request
    assert [e.kind for e in result.trace.events].count("request") == 2  # one turn, not two


@pytest.mark.parametrize("status", [502, 503])
def test_502_and_503_are_retried_then_the_run_answers(fake_openai, tools, tmp_path, status):
    fake_openai.push("<html>Bad gateway</html>", status=status)
    fake_openai.push(read_readme())
    fake_openai.push(text_reply("Résumé."))
    result, sleeps = mission(fake_openai, tools, tmp_path)
    assert (result.reason, sleeps) == ("answer", [1.0])


def test_retries_exhausted_stop_with_api_error(fake_openai, tools, tmp_path):
    for _ in range(4):  # max_retries=3: four tries in all
        fake_openai.push(error_body("Overloaded", 503), status=503, headers={"Retry-After": "2"})
    result, sleeps = mission(fake_openai, tools, tmp_path)
    assert (result.reason, sleeps) == ("api_error", [2.0, 2.0, 2.0])
    assert "HTTP 503" in result.message and "indisponible" in result.message


# --- no answer, or a broken one --------------------------------------------------------------


def test_connection_refused_is_a_clean_stop(fake_openai, tools, tmp_path):
    result, sleeps = mission(fake_openai, tools, tmp_path, url=closed_port_url())
    assert (result.reason, sleeps) == ("api_error", [])
    assert "Pas de réponse" in result.message and "Impossible de joindre" in result.message


def test_model_timeout_is_a_clean_stop(fake_openai, tools, tmp_path):
    fake_openai.push(read_readme())
    fake_openai.push(text_reply("trop tard"), delay=3.0)
    limits = Limits(max_turns=4, model_timeout=0.3, tool_timeout=5.0)
    result, _ = mission(fake_openai, tools, tmp_path, limits=limits)
    assert result.reason == "timeout" and "n’a pas répondu en 0,3 s" in result.message
    assert [m["role"] for m in result.messages] == ["system", "user", "assistant", "tool"]


@pytest.mark.parametrize("fault", [{"trickle": 0.05}, {"endless": True}, {"delay": 30.0}],
                         ids=["trickle", "endless", "silent"])
def test_model_timeout_bounds_the_whole_call(fake_openai, tools, tmp_path, fault):
    # httpx's timeout is per read: a server sending one byte every 50 ms (20 s for this
    # body), or blanks forever, never trips it. The deadline is checked between chunks, and
    # the caller stops waiting at the deadline whatever the network does.
    fake_openai.push(read_readme())
    fake_openai.push(text_reply("Le projet est un harness minimal. " * 10), **fault)
    limits = Limits(max_turns=4, model_timeout=0.5, tool_timeout=5.0)
    start = time.monotonic()
    result, _ = mission(fake_openai, tools, tmp_path, limits=limits)
    assert time.monotonic() - start < 10  # cut at the deadline, not at the end of the body
    assert result.reason == "timeout" and "n’a pas répondu en 0,5 s" in result.message
    assert [m["role"] for m in result.messages] == ["system", "user", "assistant", "tool"]


def test_a_reply_over_the_size_cap_is_refused(fake_openai, tools, tmp_path, monkeypatch):
    monkeypatch.setattr(openrouter, "MAX_REPLY_BYTES", 10_000)
    fake_openai.push(text_reply("x" * 20_000))
    result, _ = mission(fake_openai, tools, tmp_path)
    assert result.reason == "api_error" and "dépasse 10 000 octets" in result.message


def test_retry_after_never_exceeds_the_model_timeout(fake_openai, tools, tmp_path):
    fake_openai.push(error_body("Rate limit exceeded", 429), status=429,
                     headers={"Retry-After": "20"})
    limits = Limits(max_turns=4, model_timeout=2.0, tool_timeout=5.0)
    result, sleeps = mission(fake_openai, tools, tmp_path, limits=limits)
    assert (result.reason, sleeps) == ("api_error", [])  # no wait past the caller's limit
    assert "HTTP 429" in result.message and "dépasserait le délai de 2 s" in result.message


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ({"body": text_reply("coupé"), "truncate": 25}, "réponse interrompue"),
        ({"drop": True}, "réponse interrompue"),
        ({"body": '{"choices": [{"message": {"role": "assis'}, "pas du JSON valide"),
        ({"body": "<html>Maintenance</html>"}, "pas du JSON valide"),
        ({"body": {"id": "gen-1", "object": "chat.completion", "choices": []}}, "`choices` vide"),
        ({"body": {"usage": {"prompt_tokens": 3}}}, "`choices` vide"),
        # In a 200, not transient (a transient code is retried: test_openrouter.py).
        ({"body": error_body("Invalid tool schema", 400)}, "200, mais avec une erreur"),
    ],
    ids=["truncated", "dropped", "json-cut", "html", "no-choices", "no-choices-key", "error-200"],
)
@pytest.mark.parametrize("turn", [1, 2])
def test_broken_bodies_stop_cleanly(fake_openai, tools, tmp_path, fault, words, turn):
    if turn == 2:
        fake_openai.push(read_readme())
    fake_openai.push(**fault)
    result, sleeps = mission(fake_openai, tools, tmp_path)
    assert (result.reason, sleeps) == ("api_error", [])
    assert words in result.message
    assert len(result.messages) == (2 if turn == 1 else 4)


def test_finish_reason_length_stops_and_keeps_the_cut_answer(fake_openai, tools, tmp_path):
    fake_openai.push(read_readme())
    fake_openai.push(text_reply("Le projet est un harn", finish_reason="length"))
    result, _ = mission(fake_openai, tools, tmp_path)
    assert result.reason == "length" and "coupée" in result.message
    assert result.messages[-1] == {"role": "assistant", "content": "Le projet est un harn"}


@pytest.mark.parametrize(("finish", "reason"), [("stop", "answer"), ("length", "length"),
                                                ("content_filter", "content_filter")])
def test_a_reply_without_text_or_call_leaves_messages_valid(fake_openai, tools, tmp_path,
                                                            finish, reason):
    fake_openai.push(read_readme())
    fake_openai.push(completion_body({"role": "assistant", "content": None}, finish))
    result, _ = mission(fake_openai, tools, tmp_path)  # checks messages[] is valid
    assert result.reason == reason
    assert result.messages[-1] == {"role": "assistant", "content": ""}  # null would be refused
    if reason == "content_filter":
        assert result.message.startswith("Arrêt : le fournisseur a bloqué la réponse (filtre")


# --- the model's tool calls ------------------------------------------------------------------


def broken_call(arguments: str, name: str = "read_file") -> dict[str, Any]:
    function = {"name": name, "arguments": arguments}
    call = {"id": "call_bad", "type": "function", "function": function}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return completion_body(message, "tool_calls")


@pytest.mark.parametrize(
    ("reply", "observation"),
    [
        (broken_call('{"path": "README.md"'), "Erreur : arguments de read_file : JSON invalide"),
        (broken_call('"README.md"'), "Erreur : arguments de read_file : un objet JSON est attendu"),
        (broken_call('{"file": "README.md"}'), "Erreur : read_file : argument manquant : path"),
        (broken_call('{"path": 7}'), "Erreur : read_file : path doit être de type string"),
        (broken_call("{}", name="delete_repo"), "Erreur : outil inconnu : delete_repo. Outils"),
    ],
    ids=["invalid-json", "not-an-object", "missing-field", "wrong-type", "unknown-tool"],
)
def test_bad_tool_calls_become_observations_the_model_reads(
    fake_openai, tools, tmp_path, reply, observation
):
    fake_openai.push(reply)
    fake_openai.push(read_readme())  # the model reads the error and changes its strategy
    fake_openai.push(text_reply("Résumé."))
    result, _ = mission(fake_openai, tools, tmp_path)
    assert result.reason == "answer"
    first, second = tool_messages(fake_openai, 1), tool_messages(fake_openai, 2)
    assert len(first) == 1 and first[0].startswith(observation)
    assert second[1] == README  # recovered
    assert result.messages[3]["tool_call_id"] == "call_bad"


def test_invalid_json_arguments_are_sent_back_as_received(fake_openai, tools, tmp_path):
    # RULE 1: the assistant message goes back unchanged, broken arguments included.
    fake_openai.push(broken_call('{"path": '))
    fake_openai.push(text_reply("Pardon."))
    mission(fake_openai, tools, tmp_path)
    sent = fake_openai.chat_requests[1].body["messages"][2]
    assert sent["tool_calls"][0]["function"]["arguments"] == '{"path": '


def duplicate_ids_reply() -> dict[str, Any]:
    reply = tool_reply(("read_file", {"path": "a.txt"}), ("read_file", {"path": "c.txt"}))
    for call in reply["choices"][0]["message"]["tool_calls"]:
        call["id"] = "call_dup"
    return reply


DUPLICATE = ("Duplicate value for 'tool_call_id' of call_dup in message[2]",  # the request
             "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_dup', in "
             "messages[3] and messages[4].")  # and its two results


def test_duplicate_tool_call_ids_are_run_and_sent_with_the_documented_problem(
    fake_openai, tools, tmp_path
):
    # The harness keeps the model's ids (RULE 1) and answers each call (RULE 2): two results
    # under one id. A lenient server (this fake) answers; OpenAI answers 400 with the second
    # text; check_conversation names both problems.
    fake_openai.push(duplicate_ids_reply())
    fake_openai.push(text_reply("Résumé."))
    result, _ = mission(fake_openai, tools, tmp_path, documented=DUPLICATE)
    assert result.reason == "answer"
    assert [(m["tool_call_id"], m["content"]) for m in result.messages[3:5]] == [
        ("call_dup", "contenu de a\n"),
        ("call_dup", "contenu de c\n"),
    ]
    assert tool_messages(fake_openai, 1) == ["contenu de a\n", "contenu de c\n"]


def test_duplicate_tool_call_ids_refused_by_a_strict_provider_stop_cleanly(
    fake_openai, tools, tmp_path
):
    text = "messages.1.content.1: `tool_use` ids must be unique"
    raw = {"type": "error", "error": {"type": "invalid_request_error", "message": text}}
    fake_openai.push(duplicate_ids_reply())
    fake_openai.push(error_body("Provider returned error", 400, raw=raw), status=400)
    result, _ = mission(fake_openai, tools, tmp_path, documented=DUPLICATE)
    assert result.reason == "api_error" and text in result.message


def test_one_failing_call_among_several_keeps_every_result_in_order(fake_openai, tools, tmp_path):
    fake_openai.push(
        tool_reply(
            ("read_file", {"path": "a.txt"}),
            ("read_file", {"path": "absent.txt"}),
            ("read_file", {"path": "c.txt"}),
        )
    )
    fake_openai.push(text_reply("a et c lus, b absent."))
    result, _ = mission(fake_openai, tools, tmp_path)
    assert result.reason == "answer"
    calls = result.messages[2]["tool_calls"]
    assert [m["tool_call_id"] for m in result.messages[3:6]] == [c["id"] for c in calls]
    assert tool_messages(fake_openai, 1) == [
        "contenu de a\n",
        "Erreur : absent.txt introuvable",
        "contenu de c\n",
    ]


# --- the tools themselves --------------------------------------------------------------------


def test_hanging_tool_is_killed_with_its_whole_process_group(fake_openai, tools, tmp_path,
                                                             bash_mode):
    # Found by a token on their command line: in the sandbox, $$ and $! are its own PIDs.
    token = f"suspendu-{os.getpid()}-{time.monotonic_ns()}"
    sleeper = f"bash -c 'sleep 300; :' {token}"
    command = f"echo $$ >> pids; {sleeper} & echo $! >> pids; {sleeper} & echo $! >> pids; wait"
    fake_openai.push(tool_reply(("bash", {"command": command})))
    limits = Limits(max_turns=4, model_timeout=5.0, tool_timeout=0.3)
    policy = replace(DEFAULT_POLICY, unconfined="allow")  # without a sandbox: no question
    result, _ = mission(fake_openai, tools, tmp_path, limits=limits, policy=policy)
    assert result.reason == "timeout" and "l’outil bash a dépassé 0,3 s" in result.message
    assert result.messages[-1]["content"] == "Erreur : délai de 0,3 s dépassé, commande arrêtée"
    pids = [int(p) for p in (tmp_path / "ws" / "pids").read_text().split()]
    assert len(pids) == 6  # the shell and its two sleeps, for the run and for its replay
    assert survivors(named(token)) == []  # no orphan left behind


def test_megabytes_of_output_are_capped_before_the_model_sees_them(fake_openai, tools, tmp_path):
    root = tmp_path / "ws"
    (root / "big.txt").write_text("x" * 300_000, encoding="utf-8")
    with open(root / "huge.log", "wb") as file:
        file.truncate(50_000_000)  # sparse: costs nothing on disk
    fake_openai.push(
        tool_reply(
            ("bash", {"command": "echo DEBUT; yes ligne | head -c 5000000; echo FIN"}),
            ("read_file", {"path": "big.txt"}),
            ("read_file", {"path": "huge.log"}),
        )
    )
    fake_openai.push(text_reply("Trop long."))
    result, _ = mission(fake_openai, tools, tmp_path)
    shell, big, huge = tool_messages(fake_openai, 1)
    assert shell.startswith("DEBUT\n") and shell.endswith("FIN\n[code de sortie : 0]")
    assert "octets au milieu] …" in shell and len(shell) < 21_000
    assert big.endswith("… [tronqué : 200 000 caractères de plus]") and len(big) < 100_100
    assert huge.startswith("Erreur : huge.log dépasse 2 000 000 octets")
    assert len(json.dumps(fake_openai.chat_requests[1].body)) < 150_000


def test_binary_and_non_utf8_files_reach_the_model_as_marked_text(fake_openai, tools, tmp_path):
    root = tmp_path / "ws"
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe" * 300)
    (root / "latin1.txt").write_bytes("café crème".encode("latin-1"))
    fake_openai.push(
        tool_reply(("read_file", {"path": "image.png"}), ("read_file", {"path": "latin1.txt"}))
    )
    fake_openai.push(text_reply("Une image et un texte latin-1."))
    result, _ = mission(fake_openai, tools, tmp_path)
    assert result.reason == "answer"
    image, latin = tool_messages(fake_openai, 1)
    assert image.startswith("[fichier binaire de 5 400 octets") and "\0" not in image
    assert latin == "[fichier non UTF-8 : octets illisibles remplacés par �]\ncaf� cr�me"


# --- learners' bad input -------------------------------------------------------------------


@pytest.mark.parametrize("options", [{"model_timeout": 0}, {"model_timeout": -1},
                                     {"tool_timeout": 0}, {"tool_timeout": float("nan")}])
def test_limits_without_a_positive_timeout_are_refused_in_french(options):
    # Before: model_timeout=-1 made run() raise httpx's "Timeout value out of range" mid-run.
    with pytest.raises(ValueError, match="doit être un nombre de secondes > 0"):  # (and finite)
        Limits(**options)


@pytest.mark.parametrize(("options", "field"), [
    ({"max_turns": 0}, "max_turns"), ({"max_turns": -1}, "max_turns"),
    ({"max_turns": 2.5}, "max_turns"), ({"max_turns": "abc"}, "max_turns"),
    ({"max_turns": True}, "max_turns"), ({"max_turns": None}, "max_turns"),
    ({"max_failures": 0}, "max_failures"), ({"max_failures": "3"}, "max_failures"),
    ({"max_tokens": -1}, "max_tokens"), ({"max_tokens": 1.5}, "max_tokens"),
    ({"max_cost": -0.01}, "max_cost"), ({"max_cost": float("nan")}, "max_cost"),
    ({"max_cost": "1"}, "max_cost"), ({"model_timeout": float("inf")}, "model_timeout"),
    ({"tool_timeout": "5"}, "tool_timeout"),
])
def test_limits_refuse_every_nonsense_value_naming_the_field(options, field):
    with pytest.raises(ValueError, match=f"^Limits : {field} doit être"):
        Limits(**options)
    Limits(max_turns=1, max_failures=1, max_tokens=0, max_cost=0, model_timeout=0.01)  # fine


def test_a_learners_tool_that_misbehaves_becomes_an_observation(fake_openai, tools, tmp_path):
    empty = {"type": "object", "properties": {}}

    def crashes() -> str:
        raise RuntimeError("oups")

    mine = [Tool("plante", "Plante.", empty, crashes),
            Tool("rien", "Ne renvoie rien.", empty, lambda: None),  # type: ignore[arg-type]
            Tool("schema", "Schéma cassé.", "pas un dict", lambda: "ok")]  # type: ignore[arg-type]
    fake_openai.push(tool_reply(("plante", {}), ("rien", {}), ("schema", {})))
    fake_openai.push(text_reply("Trois outils essayés."))
    # A new tool must also be allowed: the default policy denies any tool it does not list.
    policy = Policy(allow=[t.name for t in tools + mine])
    result, _ = mission(fake_openai, tools + mine, tmp_path, policy=policy)
    assert result.reason == "answer"
    crashed, nothing, schema = tool_messages(fake_openai, 1)
    assert crashed == "Erreur : plante a échoué : RuntimeError : oups"
    assert nothing == "None"  # str() of what came back: the model still gets a text
    assert schema == ("Erreur : schema : le schéma de ses arguments n’est pas un objet JSON : "
                      "l’outil est à corriger")


def test_an_approver_that_crashes_runs_nothing(fake_openai, tools, tmp_path):
    def broken(call: dict, decision: object) -> bool:
        raise RuntimeError("approbateur cassé")

    fake_openai.push(tool_reply(("bash", {"command": "touch marqueur"})))
    model = OpenRouterModel("fake/model", api_key=KEY, base_url=fake_openai.url)
    with pytest.raises(RuntimeError, match="approbateur cassé"):  # a bug shown, not hidden
        run(TASK, model, tools, policy=STRICT_POLICY, approver=broken)
    assert not (tmp_path / "ws" / "marqueur").exists()  # and the command never ran


# --- what the sandbox does not stop (docs/reliability.md) -----------------------------------
# These tests prove documented limits. If one fails one day, the hole is closed: update the doc.


def test_setsid_escapes_the_process_group_kill_only_without_a_sandbox(tools, bash_mode):
    bash = next(t for t in tools if t.name == "bash")
    token = f"evade-{os.getpid()}-{time.monotonic_ns()}"
    command = f"setsid bash -c 'sleep 300; :' {token} >/dev/null 2>&1 & sleep 0.2"
    said = bash.function(command=command, timeout=5.0, network=False)
    if bash_mode == "bac à sable":  # the sandbox's processes all end with it, and it says so
        assert said == f"{BACKGROUND}\n[code de sortie : 0]"
        assert survivors(named(token)) == []
        return
    assert said == "[code de sortie : 0]"
    pids = named(token)
    try:
        assert pids and all(map(alive, pids))  # a new session: killpg() does not reach it
    finally:
        for pid in pids:
            os.kill(pid, 9)  # our own orphans, by their pids
    assert survivors(pids) == []


def test_a_hard_link_to_an_outside_file_is_not_detected(tools, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("HORS DU DOSSIER", encoding="utf-8")
    os.link(secret, tmp_path / "ws" / "lien_dur.txt")  # what `ln ../secret.txt .` would do
    read_file, edit_file = tools[0].function, tools[2].function
    assert read_file(path="lien_dur.txt") == "HORS DU DOSSIER"  # same inode: no way to tell
    edit_file(path="lien_dur.txt", old="HORS", new="DANS")
    assert secret.read_text(encoding="utf-8") == "DANS DU DOSSIER"


@pytest.mark.parametrize("command", [
    "python3 -c \"import shutil; shutil.rmtree('/tmp/ailleurs')\"",  # another language
    "git -c alias.envoie=push envoie",  # an alias
    "$(printf cu)rl http://exemple.org",  # a word computed when the command runs
    "cible=/; rm -rf $cible",  # a variable other than HOME
    "cd / && rm -rf *",  # a relative path, after a cd
])
def test_the_command_rules_are_a_list_of_known_dangers_not_a_sandbox(command):
    call = ToolCall("bash", {"command": command})
    # STRICT_POLICY asks a human instead
    assert check_permission(call, DEFAULT_POLICY).verdict == "allow"
    assert check_permission(call, STRICT_POLICY).verdict == "ask"
