"""Your own run, kept and replayed: a saved trace back in the player, or a French reason."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from harness_lib.course.lessons.saved_trace import (
    TraceFileError,
    open_player,
    open_trace,
    read_trace,
    trace_picker,
)
from harness_lib.course.missions.scenarios import replay
from harness_lib.course.player.player import Player


def saved(tmp_path: Path, name: str = "tool-error") -> tuple[Path, object]:
    trace = replay(name).run.trace
    path = tmp_path / "run.jsonl"
    trace.save(path)
    return path, trace


def test_a_saved_run_comes_back_whole(tmp_path: Path) -> None:
    path, trace = saved(tmp_path)
    back = open_trace(path)
    assert back == trace
    player = open_player(str(path))
    assert isinstance(player, Player) and player.total == len(trace.events)


HEADER = json.dumps({"system": None, "tools_tokens": 0, "tools": []})


@pytest.mark.parametrize(("content", "said"), [
    ("", "est vide"),
    (b"\xff\xfe", "n’est pas un fichier texte"),
    ("{pas du json", "ligne 1 : JSON illisible"),
    (HEADER + "\n[1, 2]", "ligne 2 : un objet JSON {…} est attendu"),
    (HEADER + '\n{"kind": "task", "turn": 0, "text": "x", "couleur": 1}',
     "ligne 2 : champ inconnu 'couleur'"),
    (HEADER + '\n{"kind": "task", "turn": "un", "text": "x"}', "ligne 2 : turn n’a pas le bon"),
    (HEADER + '\n{"kind": "task", "turn": true, "text": "x"}', "ligne 2 : turn n’a pas le bon"),
    (HEADER + '\n\n{"kind": "task", "turn": 0}', "ligne 3 : il manque le champ text"),
    (HEADER + '\n{"kind": "robot", "turn": 0, "text": "x"}', "kind vaut 'robot'"),
    ('{"system": "pas un message"}', "ligne 1 : system n’a pas le bon type"),
])
def test_a_broken_file_says_what_is_wrong_and_where(content: str | bytes, said: str) -> None:
    with pytest.raises(TraceFileError) as refused:
        read_trace(content, "t.jsonl")
    assert said in refused.value.explication


def test_a_missing_file_or_a_folder_is_a_french_message(tmp_path: Path) -> None:
    with pytest.raises(TraceFileError, match="est introuvable"):
        open_trace(tmp_path / "absent.jsonl")
    with pytest.raises(TraceFileError, match="est un dossier"):
        open_trace(tmp_path)
    shown = open_player(tmp_path / "absent.jsonl")
    assert "Impossible d’ouvrir la trace" in shown.data and "introuvable" in shown.data


def test_the_picker_opens_an_upload_or_a_path(tmp_path: Path) -> None:
    path, trace = saved(tmp_path, "missing-call")
    picker = trace_picker()
    (upload, typed, button), shown = picker.children[0].children, picker.children[1]
    button.click()
    assert "Choisissez un fichier" in str(shown.outputs)
    typed.value = str(path)
    button.click()
    assert "application/vnd.jupyter.widget-view+json" in shown.outputs[0]["data"]
    upload.value = ({"name": "x.jsonl", "content": memoryview(b"{oups"), "size": 5,
                     "type": "", "last_modified": datetime.now(timezone.utc)},)
    button.click()
    shown_html = "".join(o.get("data", {}).get("text/html", "") for o in shown.outputs)
    assert "ligne 1 : JSON illisible" in shown_html


def test_a_named_pipe_or_a_huge_file_is_refused_unread(tmp_path: Path) -> None:
    import os

    from harness_lib.course.lessons import saved_trace

    fifo = tmp_path / "trace.jsonl"
    os.mkfifo(fifo)  # opening it for reading would wait forever for a writer
    with pytest.raises(saved_trace.TraceFileError, match="ordinaire|tube"):
        saved_trace.open_trace(fifo)
    huge = tmp_path / "enorme.jsonl"
    huge.write_bytes(b"x")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(saved_trace, "MAX_TRACE_BYTES", 0)
        with pytest.raises(saved_trace.TraceFileError):
            saved_trace.open_trace(huge)
