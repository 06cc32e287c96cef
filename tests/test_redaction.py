"""The key out of every path: whatever a tool prints, a known secret is *** before it
reaches messages[], the provider, the trace or the screen (secrets.py, run_tool, Recorder).

Known secrets: the key a model client was given (typed in the course's toggle: never in
the environment) and the values of secret-looking variables. The tools here print them
plainly, as a command reading a file, /proc or a log would: the redaction must hold
whether bash is confined or not.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from fake_server import FakeServer, text_reply, tool_reply

from harness_lib import run, secrets
from harness_lib.loop import refusal
from harness_lib.messages import ToolCall, system, user
from harness_lib.models.openrouter import OpenRouterModel
from harness_lib.policy import DEFAULT_POLICY, Decision
from harness_lib.recorder import Recorder
from harness_lib.tools import Tool, run_tool, workspace_tools

TYPED = "sk-or-v1-tapee-" + "d4" * 16  # typed in the toggle: in no environment variable
EXPORTED = "ghp_" + "Z9" * 18  # an exported GITHUB_TOKEN
REPO = str(Path(__file__).resolve().parents[1])


def leaky(secret: str) -> Tool:
    """A tool that prints a secret, with text around it."""
    return Tool("fuite", "Affiche un secret.", {"type": "object", "properties": {}},
                lambda: f"début {secret} fin")


def test_a_secret_looking_variable_s_value_is_hidden_in_any_tool_s_output(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", EXPORTED)
    seen = run_tool(ToolCall("fuite", {}), [leaky(EXPORTED)])
    assert seen.content == "début *** fin"


def test_short_or_ordinary_values_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYBOARD", "fr")  # a "secret" name, a value too short to hide
    monkeypatch.setenv("HARNESS_NAME", "bonjour le monde")  # not a secret's name
    seen = run_tool(ToolCall("fuite", {}), [leaky("fr bonjour le monde")])
    assert seen.content == "début fr bonjour le monde fin"


def test_a_url_password_in_the_environment_is_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://moi:motdepasse-long@db/base")
    assert run_tool(ToolCall("fuite", {}), [leaky("motdepasse-long")]).content == "début *** fin"


def test_the_key_of_a_model_client_is_hidden_while_the_client_lives() -> None:
    model = OpenRouterModel("m", api_key=TYPED)
    assert run_tool(ToolCall("fuite", {}), [leaky(TYPED)]).content == "début *** fin"
    assert secrets.redact(f"[{TYPED}]") == "[***]"
    model.close()
    del model
    import gc

    gc.collect()  # the client is gone: its key is no longer anyone's to hide
    assert secrets.redact(f"[{TYPED}]") == f"[{TYPED}]"


def test_a_refusal_quoting_the_key_is_hidden_before_it_enters_messages() -> None:
    # A refused command is quoted back in its observation: the loop hides the key there too.
    model = OpenRouterModel("m", api_key=TYPED)
    ask = Decision("ask", f"bash : curl -H 'Authorization: {TYPED}'")
    rec = Recorder([system("s"), user("u")], [], None, price=None)
    seen = refusal(rec, ToolCall("bash", {}, id="c1"), ask, None)
    assert seen is not None and TYPED not in seen.content and "***" in seen.content
    model.close()


def test_a_typed_key_printed_by_bash_never_reaches_the_provider_the_trace_or_the_screen(
        fake_openai: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text(f"clé copiée ici par erreur : {TYPED}\n")
    model = OpenRouterModel("fake/model", api_key=TYPED, base_url=fake_openai.url,
                            sleep=lambda s: None)
    fake_openai.push(tool_reply(("bash", {"command": "cat notes.txt"})))
    fake_openai.push(text_reply("Lu."))
    policy = replace(DEFAULT_POLICY, unconfined="allow")  # the same, confined or not
    shown: list[str] = []
    done = run("Lis notes.txt", model, workspace_tools(root), policy=policy,
               on_event=lambda event: shown.append(event.text))
    second = json.dumps(fake_openai.chat_requests[1].body, ensure_ascii=False)
    assert done.reason == "answer" and "copiée ici par erreur : ***" in second
    for text in (second, json.dumps(done.messages), done.trace.text(), *shown):
        assert TYPED not in text
    model.close()


def test_the_cli_trace_and_screen_hide_an_exported_token(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "log.txt").write_text(f"token={EXPORTED}\n")
    done = subprocess.run(
        [sys.executable, "-m", "harness_lib", "run", "--mock", "--unconfined", "--workspace",
         str(root), "--trace", str(tmp_path / "t.jsonl"), "Lance `cat log.txt`"],
        capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": REPO, "GITHUB_TOKEN": EXPORTED})
    assert done.returncode == 0, done.stderr
    assert "token=***" in done.stdout
    assert EXPORTED not in done.stdout + done.stderr + (tmp_path / "t.jsonl").read_text()
