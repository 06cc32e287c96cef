"""The API key: it travels in the Authorization header, and shows up nowhere else.

A fake key is set in OPENROUTER_API_KEY (and passed explicitly), a mission runs
against the fake server, and every output is searched for it: the request record,
repr of the model, every error (even when a server quotes the key back), the saved
trace, the --debug view, the DEBUG logs of httpx/httpcore, the bash tool's
environment, and the notebook playground's display.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import re
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_server import FakeServer, error_body, text_reply, tool_reply

from harness_lib import run, user, workspace_tools
from harness_lib.cli import debug
from harness_lib.cli import main as cli
from harness_lib.errors import ApiError
from harness_lib.models.openrouter import OpenRouterModel
from harness_lib.trace import describe

KEY = "sk-or-v1-" + "5f3a9c0e7b21d4e8" * 4  # the shape of a real OpenRouter key
TASK = "Lis README.md et résume le projet"
REPO = str(Path(__file__).resolve().parents[1])  # harness_lib, for a python subprocess


@pytest.fixture(autouse=True)
def key_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    monkeypatch.setenv("HARNESS_VISIBLE", "oui")  # an ordinary variable, passed on to bash
    monkeypatch.delenv("HARNESS_MODEL", raising=False)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "README.md").write_text("# Mini harness\n", encoding="utf-8")
    return folder


def model_on(fake: FakeServer, **kwargs: Any) -> OpenRouterModel:
    return OpenRouterModel("fake/model", api_key=KEY, base_url=fake.url, sleep=lambda s: None,
                           **kwargs)


def assert_secret(texts: list[str]) -> None:
    assert texts and all(KEY not in text for text in texts)
    assert all("5f3a9c0e7b21d4e8" not in text for text in texts)  # not even a piece of it


def bearers(text: str) -> set[str]:
    """Every value given after "Bearer" in a text."""
    return set(re.findall(r"Bearer\s+([\w.*-]+)", text))


# Servers that quote the key back: an echo service, a verbose proxy, a chatty provider.
ECHOES = [
    {"body": error_body(f"Incorrect API key provided: {KEY}", 401), "status": 401},
    {"body": error_body("Provider returned error", 400, raw={"error": {"message": KEY}}),
     "status": 400},
    {"body": error_body(f"Key {KEY} is rate limited", 429), "status": 429},
    {"body": {"headers": {"Authorization": f"Bearer {KEY}"}, "url": "/anything"}},  # no choices
    {"body": error_body(f"key {KEY} suspended", 403)},  # an error inside a 200
    {"body": f"<html>Bad request from Bearer {KEY}</html>"},  # not JSON
    {"body": f"<html>Proxy error for {KEY}</html>", "status": 502},
]


def error_texts(error: ApiError) -> list[str]:
    return [str(error), repr(error), error.message, error.explication, json.dumps(error.body),
            "".join(traceback.format_exception(error))]


def test_the_key_travels_in_the_header_only(fake_openai: FakeServer, root: Path,
                                            caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # httpx and httpcore log every request at DEBUG
    model = model_on(fake_openai)
    fake_openai.push(tool_reply(("read_file", {"path": "README.md"})))
    completion = model.complete([user(TASK)], [t.schema() for t in workspace_tools(root)])
    fake_openai.push(tool_reply(("read_file", {"path": "README.md"})))
    fake_openai.push(text_reply("Le projet est un harness minimal."))
    result = run(TASK, model, workspace_tools(root))
    result.trace.save(root.parent / "trace.jsonl")
    saved = (root.parent / "trace.jsonl").read_text(encoding="utf-8")
    assert result.reason == "answer"
    assert {r.headers["authorization"] for r in fake_openai.requests} == {f"Bearer {KEY}"}
    assert_secret([repr(model), str(model), repr(completion), json.dumps(completion.request),
                   repr(result), saved, caplog.text, *map(describe, result.trace.events)])
    assert bearers(json.dumps(completion.request)) == {"***"}
    assert bearers(saved) <= {"***"}  # the trace holds no Authorization value but the redacted one
    assert "chat/completions" in caplog.text  # the logs were really captured


@pytest.mark.parametrize("echo", ECHOES, ids=["401", "400-raw", "429", "echo-200", "error-200",
                                              "html-200", "html-502"])
def test_a_server_that_quotes_the_key_back_cannot_leak_it(
    fake_openai: FakeServer, root: Path, echo: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    model = model_on(fake_openai, max_retries=0)
    fake_openai.push(**echo)
    with pytest.raises(ApiError) as info:
        model.complete([user(TASK)], [])
    fake_openai.push(**echo)
    result = run(TASK, model, workspace_tools(root))
    result.trace.save(root.parent / "trace.jsonl")
    saved = (root.parent / "trace.jsonl").read_text(encoding="utf-8")
    assert result.reason == "api_error"
    assert_secret([*error_texts(info.value), result.message, saved, caplog.text])
    assert "***" in str(info.value) + json.dumps(info.value.body)  # redacted, not dropped
    assert bearers(saved) <= {"***"}


def test_a_200_reply_quoting_the_key_never_reaches_messages_trace_or_screen(
    fake_openai: FakeServer, root: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], no_redact: None,
) -> None:
    # No error here: a successful reply whose text and tool arguments quote the key.
    monkeypatch.setattr(cli, "_real_model", lambda name, max_tokens: model_on(fake_openai))
    for _ in range(2):  # once through run(), once through the CLI
        fake_openai.push(tool_reply(("read_file", {"path": KEY}), content=f"Je lis {KEY}"))
        fake_openai.push(text_reply(f"Votre clé est {KEY}"))
    result = run(TASK, model_on(fake_openai), workspace_tools(root))
    result.trace.save(root.parent / "trace.jsonl")
    code = cli.main(["run", "--debug", "--workspace", str(root), TASK])
    out, err = capsys.readouterr()
    assert result.reason == "answer" and result.message == "Votre clé est ***" and code == 0
    assert result.messages[2]["tool_calls"][0]["function"]["arguments"] == '{"path": "***"}'
    sent = [json.dumps(r.body) for r in fake_openai.chat_requests]
    assert_secret([json.dumps(result.messages), (root.parent / "trace.jsonl").read_text(),
                   out, err, *sent])


def test_bash_cannot_print_the_key(fake_openai: FakeServer, root: Path) -> None:
    command = "env; printenv OPENROUTER_API_KEY || echo absente"
    fake_openai.push(tool_reply(("bash", {"command": command})))
    fake_openai.push(text_reply("Fini."))
    result = run(TASK, model_on(fake_openai), workspace_tools(root))
    seen = result.messages[3]["content"]
    assert "HARNESS_VISIBLE=oui" in seen and "absente" in seen  # env really ran
    sent = json.dumps(fake_openai.chat_requests[1].body)
    assert_secret([seen, sent])


def test_debug_view_of_a_real_request_has_no_key(fake_openai: FakeServer, root: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the variable, redact() knows no key: the record itself must be clean.
    monkeypatch.delenv("OPENROUTER_API_KEY")
    fake_openai.push(text_reply("ok"))
    completion = model_on(fake_openai).complete([user(TASK)], [])
    shown = debug.format_request(completion.request, turn=1, max_turns=15)
    assert fake_openai.url in shown and "[0] user : Lis README.md" in shown
    assert_secret([shown])


@pytest.fixture
def no_redact(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch off redact(), the second line of defence: the first must hold on its own."""
    monkeypatch.setattr(debug, "redact", lambda text, secrets=(): text)
    monkeypatch.setattr(cli, "redact", lambda text, secrets=(): text)


def test_cli_debug_with_a_real_model_shows_no_key(
    fake_openai: FakeServer, root: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], no_redact: None,
) -> None:
    # The CLI has no --base-url: its real model is pointed at the fake server here.
    monkeypatch.setattr(cli, "_real_model", lambda name, max_tokens: model_on(fake_openai))
    fake_openai.push(tool_reply(("bash", {"command": "env | grep -iE 'visible|key|token'"})))
    fake_openai.push(error_body(f"Incorrect API key provided: {KEY}", 401), status=401)
    code = cli.main(["run", "--debug", "--workspace", str(root), TASK])
    out, err = capsys.readouterr()
    assert code == 1 and "── Requête 2" in out and "HTTP 401" in out
    assert "HARNESS_VISIBLE=oui" in out
    assert_secret([out, err])


def test_cli_mock_debug_with_the_key_in_the_environment(root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "harness_lib", "run", "--mock", "--debug", "--workspace",
         str(root), "Lance `env`"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        env={**os.environ, "OPENROUTER_API_KEY": KEY, "PYTHONPATH": REPO},
    )
    assert "HARNESS_VISIBLE=oui" in done.stdout and "── Requête 1" in done.stdout
    assert_secret([done.stdout, done.stderr])


class ToFake(httpx.BaseTransport):
    """Sends what the playground addresses to openrouter.ai to the fake server instead."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.url = httpx.URL(self.url + "/chat/completions")
        return self.inner.handle_request(request)


@pytest.fixture
def playground(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    module = importlib.import_module("harness_lib.course.playground.toggle")
    monkeypatch.setattr(module, "_shared", None)  # the kernel-wide toggle: restored after
    yield module


def test_playground_shows_no_key(fake_openai: FakeServer, playground: Any,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    pg = playground.Playground(transport=ToFake(fake_openai.url))
    monkeypatch.setattr(playground, "_shared", pg)  # what toggle() does, without displaying
    pg.choice.value = playground.REAL
    pg.key.value = KEY  # typed by the learner, then moved out of the widget
    fake_openai.push(tool_reply(("read_file", {"path": "README.md"})))
    from harness_lib.course.playground.sending import send

    reply = send([user(TASK)], show=False)
    fake_openai.push(error_body(f"Incorrect API key provided: {KEY}", 401), status=401)
    error = send([user(TASK)], show=False)
    assert fake_openai.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert reply.tool_calls and isinstance(error, ApiError) and error.status == 401
    from harness_lib.course.playground.replies import render

    assert_secret([repr(pg), str(pg.key.value), pg.status.value, render(reply), render(error),
                   *error_texts(error), json.dumps(reply.request)])


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="Linux /proc only")
def test_bash_reads_the_parent_environment_only_without_a_sandbox(tmp_path: Path,
                                                                   bash_mode: str) -> None:
    # safe_env() cleans the environment bash gets; in the sandbox its parent is the
    # sandbox's own init, and the harness's /proc is out of sight. Without a sandbox bash
    # runs with the learner's rights and reads the harness's, where the key lives: a
    # documented limit (docs/reliability.md), which the policy then asks a human about.
    unconfined = bash_mode == "sans bac à sable"
    script = ("from harness_lib.tools import sandbox, shell\n"
              + ("sandbox.PROGRAM = 'bwrap-absent'\n" if unconfined else "")
              + "shell.run('tr \"\\\\0\" \"\\\\n\" < /proc/$PPID/environ > butin', '.', 5)")
    subprocess.run([sys.executable, "-W", "ignore", "-c", script], check=True, timeout=60,
                   env={**os.environ, "OPENROUTER_API_KEY": KEY, "PYTHONPATH": REPO},
                   cwd=tmp_path)
    loot = (tmp_path / "butin").read_text(encoding="utf-8")
    assert "PATH=" in loot  # the command did read an environment...
    # ...and the harness's only without a sandbox.
    assert (f"OPENROUTER_API_KEY={KEY}" in loot) == unconfined
