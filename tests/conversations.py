"""Conversations shared by several test modules (imported like fake_server)."""

from __future__ import annotations

from typing import Any

from harness_lib.messages import assistant, system, tool_call, tool_result, user


def chapter() -> list[dict[str, Any]]:
    """The five messages of the chapter, after two turns (a fresh list each call)."""
    return [
        system("Tu es un agent. Tu peux utiliser des outils…"),
        user("Lis README.md et résume le projet"),
        assistant(tool_calls=[tool_call("call_1", "read_file", {"path": "README.md"})]),
        tool_result("call_1", "# Mini harness\nUne boucle et un outil."),
        assistant("Le projet est un harness minimal…"),
    ]
