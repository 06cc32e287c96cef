"""Valid UTF-8 everywhere: file names, file contents, command output and a model's text.

Bytes that are not UTF-8 reach messages[] as valid text (« � », and the observation says
so); the trace saves and loads; diagrams, the transcript, the exported .mmd and the
--debug view are valid UTF-8; the CLI prints in any terminal encoding without a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness_lib import Limits, MockModel, Trace, check_conversation, run, workspace_tools
from harness_lib.cli.debug import format_request
from harness_lib.course.drawing.diagram import transcript
from harness_lib.course.drawing.export import export_text
from harness_lib.course.drawing.mermaid import to_mermaid
from harness_lib.course.drawing.trace_diagram import from_trace
from harness_lib.models import Completion
from harness_lib.tools.shell import HeadTail

REPO = str(Path(__file__).resolve().parents[1])
LATIN = "café crème\n".encode("latin-1")
NOTE_OUTPUT = "[sortie non UTF-8 : octets illisibles remplacés par �]"
NOTE_NAMES = "[noms non UTF-8 : octets illisibles remplacés par �]"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "README.md").write_text("# Mini\n", encoding="utf-8")
    (folder / "latin.txt").write_bytes(LATIN)
    with open(os.fsencode(folder) + b"/caf\xe9.txt", "wb") as file:  # a name not in UTF-8
        file.write(b"x")
    return folder


def utf8(value: Any) -> str:
    """`value` as JSON text, which must encode as UTF-8 (it raises otherwise)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text.encode("utf-8")
    return text


def assert_saved_and_drawn(result: Any, tmp_path: Path) -> None:
    result.trace.save(tmp_path / "t.jsonl")
    (tmp_path / "t.jsonl").read_bytes().decode("utf-8")
    loaded = Trace.load(tmp_path / "t.jsonl")
    assert loaded.messages == result.messages
    diagram = from_trace(loaded)
    utf8(to_mermaid(diagram))
    utf8(transcript(diagram))
    export_text(diagram, tmp_path / "t.mmd", None)
    (tmp_path / "t.mmd").read_bytes().decode("utf-8")
    utf8(format_request({"body": {"messages": result.messages}}, turn=1, max_turns=2))


def test_names_contents_and_output_that_are_not_utf8_reach_messages_as_valid_text(
    root: Path, tmp_path: Path
) -> None:
    tools = workspace_tools(root)
    listing = next(t for t in tools if t.name == "list_files").function(path=".")
    assert listing == f"{NOTE_NAMES}\nREADME.md\ncaf�.txt\nlatin.txt"
    result = run("Lance `ls; cat latin.txt; printf 'a\\377b'`", MockModel(), tools,
                 limits=Limits(max_turns=2))
    output = result.messages[3]["content"]
    assert output.startswith(NOTE_OUTPUT) and "caf�.txt" in output and "a�b" in output
    assert check_conversation(result.messages) == []
    utf8(result.messages)
    assert_saved_and_drawn(result, tmp_path)
    read = next(t for t in tools if t.name == "read_file").function(path="latin.txt")
    assert read == "[fichier non UTF-8 : octets illisibles remplacés par �]\ncaf� cr�me\n"


def test_a_mission_or_a_path_with_lone_surrogates_becomes_valid_text(root: Path,
                                                                     tmp_path: Path) -> None:
    # What Python makes of a non-UTF-8 argv (the CLI) or of "\udce9" in a model's JSON.
    result = run("Lis caf\udce9.txt puis README.md", MockModel(), workspace_tools(root))
    assert result.messages[1]["content"] == "Lis caf�.txt puis README.md"
    utf8(result.messages)
    assert_saved_and_drawn(result, tmp_path)


class Surrogates:
    """A learner's model whose replies hold lone surrogates (a bad escape)."""

    name, price = "surrogates", None

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages: list, tools: list, timeout: float = 120.0) -> Completion:
        self.calls += 1
        if self.calls == 1:
            call = {"id": "c\udce9", "type": "function",
                    "function": {"name": "list_files", "arguments": '{"path": "\udcff"}'}}
            return Completion({"role": "assistant", "content": "\ud800", "tool_calls": [call]},
                              "tool_calls")
        return Completion({"role": "assistant", "content": "fin \udcff;#"}, "stop")


def test_a_model_writing_lone_surrogates_leaves_a_valid_run(root: Path, tmp_path: Path) -> None:
    result = run("Liste", Surrogates(), workspace_tools(root))
    assert result.reason == "answer" and result.message == "fin �;#"
    assert result.messages[2]["tool_calls"][0]["id"] == "c�" == result.messages[3]["tool_call_id"]
    assert check_conversation(result.messages) == []
    assert_saved_and_drawn(result, tmp_path)


def test_a_cut_inside_a_character_is_not_called_non_utf8() -> None:
    output = HeadTail(10)
    output.add("é".encode() * 20)  # 40 bytes: both cuts fall in the middle of an "é"
    assert output.text() == "éé\n… [tronqué : 32 octets au milieu] …\néé"
    output.add(b"\xff")
    assert output.text().startswith(NOTE_OUTPUT)


@pytest.mark.parametrize("env", [
    {"PYTHONIOENCODING": "ascii"},
    {"PYTHONIOENCODING": "latin-1"},
    {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"},
    {"LC_ALL": "C"},
], ids=["ascii", "latin-1", "C-locale", "C-coerced"])
def test_the_cli_prints_in_any_terminal_encoding(root: Path, tmp_path: Path,
                                                env: dict[str, str]) -> None:
    mission = os.fsencode("Lance `ls; cat latin.txt` ") + b"\xe9"  # argv that is not UTF-8
    done = subprocess.run(
        [sys.executable, "-m", "harness_lib", "run", "--mock", "--debug", "--workspace",
         os.fsencode(root), mission], capture_output=True, timeout=60, stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": REPO, **env})
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    assert b"latin.txt" in done.stdout and b"Requ" in done.stdout
    saved = tmp_path / "t.jsonl"
    run("Lance `cat latin.txt`", MockModel(), workspace_tools(root)).trace.save(saved)
    drawn = subprocess.run([sys.executable, "-m", "harness_lib", "diagram", saved],
                           capture_output=True, timeout=60,
                           env={**os.environ, "PYTHONPATH": REPO, **env})
    assert drawn.returncode == 0 and drawn.stdout.startswith(b"sequenceDiagram"), drawn.stderr
