"""The --debug view: options, tools, numbered messages, shortened, no key."""

from __future__ import annotations

from harness_lib.cli.debug import format_request, redact, shorten

KEY = "sk-or-v1-" + "a1" * 32


def test_format_request_lists_everything():
    body = {
        "model": "m",
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "read_file",
                    "description": "Lit un fichier.",
                    "parameters": {
                        "type": "object",
                        "properties": {"path": {"type": "string"}},
                        "required": ["path"],
                    },
                },
            }
        ],
        "messages": [{"role": "user", "content": "x" * 1000}],
    }
    text = format_request({"body": body}, turn=2, max_turns=15)
    assert "tour 2/15" in text and "read_file(path: string)" in text
    assert "[0] user : " in text and "caractères coupés" in text and "x" * 400 not in text


def test_redact_removes_keys(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    assert KEY not in redact(f"Authorization: Bearer {KEY}")
    body = {"model": "m", "messages": [{"role": "user", "content": KEY}]}
    assert KEY not in format_request({"body": body}, turn=1, max_turns=15)


def test_shorten_keeps_short_text():
    assert shorten("a\nb") == "a b"
