"""Nothing lost, nothing stuck: traces round-trip whatever the text, files are written
whole, FIFOs and devices are refused unread, and Ctrl-C keeps the run's trace."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness_lib import trace as trace_module
from harness_lib.errors import FileError
from harness_lib.files import read_capped, writable_target, write_atomically
from harness_lib.trace import Event, Trace, TraceError

REPO = str(Path(__file__).resolve().parents[1])
# Every code point, lone surrogates and line separators (U+2028, U+2029, U+0085) included.
ANY_TEXT = st.text(st.characters(blacklist_categories=()), max_size=40)
SEPARATORS = "a\u2028b\u2029c\x85d\x1ce\x1df\x1eg\x0bh\x0ci\rj\nk"


def trace_of(texts: list[str]) -> Trace:
    trace = Trace(system={"role": "system", "content": texts[0] if texts else ""})
    for turn, text in enumerate(texts):
        trace.add(Event("tool_result", turn, text, {"role": "tool", "content": text,
                                                    "tool_call_id": text}, {"clé": text}))
    return trace


def same(a: Trace, b: Trace) -> bool:
    return (a.system, [asdict(e) for e in a.events]) == (b.system, [asdict(e) for e in b.events])


@given(st.lists(ANY_TEXT, max_size=5))
def test_a_trace_of_any_text_loads_back_the_same(tmp_path_factory: pytest.TempPathFactory,
                                                 texts: list[str]) -> None:
    path = tmp_path_factory.mktemp("traces") / "t.jsonl"
    trace = trace_of(texts)
    trace.save(path)
    assert same(Trace.load(path), trace)
    path.read_bytes().decode("utf-8")  # strict: the file itself is valid UTF-8


def test_every_line_separator_survives_save_and_load(tmp_path: Path) -> None:
    trace = trace_of([SEPARATORS, "x"])
    trace.save(tmp_path / "t.jsonl")
    loaded = Trace.load(tmp_path / "t.jsonl")
    assert loaded.events[0].message == {"role": "tool", "content": SEPARATORS,
                                        "tool_call_id": SEPARATORS}
    assert same(loaded, trace)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "tube.jsonl"
    os.mkfifo(path)
    return path


def test_a_fifo_or_a_device_is_refused_unread(fifo: Path) -> None:
    for path in (fifo, Path("/dev/zero")):
        with pytest.raises(TraceError, match="pas un fichier ordinaire"):
            Trace.load(path)
        with pytest.raises(TraceError, match="rien n’y est écrit"):
            Trace(system=None).save(path)


def test_a_file_over_the_cap_is_refused_in_french(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.jsonl"
    trace_of(["x" * 100]).save(path)
    monkeypatch.setattr(trace_module, "MAX_TRACE_BYTES", 50)
    with pytest.raises(TraceError, match="dépasse 50 octets"):
        Trace.load(path)


def test_an_interrupted_save_leaves_the_old_file_whole(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.jsonl"
    write_atomically(path, b"ancien\n")

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(path, b"nouveau\n" * 1000)
    assert path.read_bytes() == b"ancien\n" and os.listdir(tmp_path) == ["t.jsonl"]


def test_read_and_write_errors_are_french(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="introuvable$"):
        read_capped(tmp_path / "absent", 10)
    with pytest.raises(FileError, match="introuvable$"):
        write_atomically(tmp_path / "absent" / "t.jsonl", b"x")
    with pytest.raises(FileError, match="est un dossier, pas un fichier ordinaire"):
        writable_target(str(tmp_path), "--trace")


def cli(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness_lib", *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "PYTHONPATH": REPO})


@pytest.mark.parametrize("option", ["--trace", "--out"])
def test_the_cli_refuses_a_fifo_instead_of_waiting_for_ever(fifo: Path, option: str) -> None:
    args = (["run", "--mock", "Bonjour", "--trace", str(fifo)] if option == "--trace"
            else ["diagram", "deux_tours", "--out", str(fifo.with_suffix(".mmd"))])
    if option == "--out":
        os.mkfifo(fifo.with_suffix(".mmd"))
    done = cli(*args)  # a hang would be a TimeoutExpired
    assert done.returncode == 2 and "tube nommé (FIFO), pas un fichier ordinaire" in done.stderr
    assert "Traceback" not in done.stderr


def test_ctrl_c_during_a_run_ends_in_french_and_keeps_the_trace(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "harness_lib", "run", "--mock", "--unconfined", "--workspace",
         str(tmp_path), "--trace", str(trace), "Lance `sleep 60`"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": REPO, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    for line in process.stdout:  # until the harness runs the tool: then press Ctrl-C
        if "Harness → Outils" in line:
            process.send_signal(signal.SIGINT)
            break
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "Arrêt : interrompu par la personne (Ctrl-C)." in err and "Traceback" not in err
    kept = Trace.load(trace)
    assert kept.events[-1].kind == "stop" and kept.events[-1].data == {"reason": "interrupted"}
    assert [e.kind for e in kept.events][:4] == ["task", "request", "reply", "permission"]


def test_edit_file_with_a_lone_surrogate_answers_in_french(tmp_path: Path) -> None:
    from harness_lib.messages import ToolCall
    from harness_lib.tools import run_tool, workspace_tools

    (tmp_path / "a.txt").write_text("bonjour")
    for old, new in (("bonjour", "x\udce9"), ("\ud800", "x")):
        seen = run_tool(ToolCall("edit_file", {"path": "a.txt", "old": old, "new": new}),
                        workspace_tools(tmp_path))
        assert seen.is_error and "caractère invalide" in seen.content
        assert "UnicodeEncodeError" not in seen.content
    assert (tmp_path / "a.txt").read_text() == "bonjour"


@pytest.fixture
def unwritable(tmp_path: Path) -> Path:
    """A folder that exists but takes no new file: read-only for a user; for root, whose
    rights ignore the mode, /sys (no file can be created there, even by root)."""
    folder = tmp_path / "lecture_seule"
    folder.mkdir(mode=0o555)
    if os.access(folder, os.W_OK):  # root
        folder = Path("/sys")
    try:
        os.close(os.open(folder / "essai", os.O_CREAT | os.O_WRONLY, 0o644))
    except OSError:
        return folder
    os.unlink(folder / "essai")
    pytest.skip(f"{folder} accepte un nouveau fichier ici")


@pytest.mark.parametrize("option", ["--trace", "--trace-otel", "--out"])
def test_an_unwritable_folder_is_refused_before_the_run(unwritable: Path, option: str) -> None:
    name = {"--trace": "t.jsonl", "--trace-otel": "t.json", "--out": "d.mmd"}[option]
    args = (["diagram", "deux_tours", "--out", str(unwritable / name)] if option == "--out"
            else ["run", "--mock", "Bonjour", option, str(unwritable / name)])
    done = cli(*args)
    assert done.returncode == 2 and done.stderr.startswith(f"Erreur : {option} ")
    assert f"impossible d’écrire dans le dossier {unwritable} (" in done.stderr
    assert "Traceback" not in done.stderr and "Espace de travail" not in done.stdout


def test_an_unwritable_trace_folder_stops_a_real_run_before_its_model_is_made(
        unwritable: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness_lib.cli import main as cli_main

    def no_model(name: str | None, max_tokens: int | None) -> None:
        raise AssertionError("le modèle (payant) ne devait pas être créé")

    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-v1-" + "0" * 64)
    monkeypatch.setattr(cli_main, "_real_model", no_model)
    assert cli_main.main(["run", "Bonjour", "--trace", str(unwritable / "t.jsonl")]) == 2
    assert "impossible d’écrire dans le dossier" in capsys.readouterr().err
