"""`run --trace` and `--trace-otel` are kept whatever happens to stdout or to the process:
a pipe closed before the first line, stdout on a full disk, SIGTERM and SIGHUP (what
`timeout`, `kill` and a closed terminal send) in the middle of a bash command, with or
without a sandbox. And where no sandbox starts, the CLI says so before the run, and every
command, the mock's too, waits for a yes that a missing terminal never gives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import named, survivors

from harness_lib.tools import sandbox
from harness_lib.trace import Trace

REPO = str(Path(__file__).resolve().parents[1])
ENV = {**os.environ, "PYTHONPATH": REPO, "PYTHONUNBUFFERED": "1"}
# The CLI as on a machine where no sandbox starts (its program is not installed).
UNCONFINED = "\n".join([
    "import sys", "from harness_lib.tools import sandbox", "sandbox.PROGRAM = 'bwrap-absent'",
    "from harness_lib.cli.main import main", "sys.exit(main(sys.argv[1:]))"])
STOPPED = ("--max-turns", "2", "Attends que fini.txt apparaisse")  # ends with a stop event


def harness(*args: str, unconfined: bool = False) -> list[str]:
    start = ["-c", UNCONFINED] if unconfined else ["-m", "harness_lib"]
    return [sys.executable, *start, *args]


def kinds(path: Path) -> list[str]:
    return [e.kind for e in Trace.load(path).events]


@pytest.fixture
def reference(tmp_path: Path) -> tuple[int, list[str]]:
    """The same run with a working stdout: its exit code and its trace's steps."""
    done = subprocess.run(harness("run", "--mock", "--trace", str(tmp_path / "ref.jsonl"),
                                  *STOPPED), env=ENV, capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1, done.stderr
    return done.returncode, kinds(tmp_path / "ref.jsonl")


@pytest.mark.parametrize("stdout", ["tube fermé", "/dev/full"])
def test_a_closed_pipe_or_a_full_disk_keeps_the_trace_quietly(
        tmp_path: Path, reference: tuple[int, list[str]], stdout: str) -> None:
    if stdout == "/dev/full" and not Path("/dev/full").exists():
        pytest.skip("pas de /dev/full sur ce système")
    if stdout == "tube fermé":  # the reader is gone before the first line: `| head -0`
        reader, writer = os.pipe()
        os.close(reader)
    else:
        writer = os.open("/dev/full", os.O_WRONLY)
    trace = tmp_path / "t.jsonl"
    try:
        done = subprocess.run(harness("run", "--mock", "--trace", str(trace), *STOPPED),
                              stdout=writer, stderr=subprocess.PIPE, text=True, env=ENV,
                              timeout=60, stdin=subprocess.DEVNULL)
    finally:
        os.close(writer)
    assert done.returncode == reference[0]  # the run's own exit code, not 120 or a signal's
    for noise in ("Warning", "Traceback", "BrokenPipe", "Exception ignored", "on_event"):
        assert noise not in done.stderr, done.stderr
    if stdout == "tube fermé":
        assert done.stderr == ""  # the reader had enough: nothing to say
    else:
        assert "La sortie standard n’accepte plus rien (plus de place sur le disque)" \
            in done.stderr
    assert kinds(trace) == reference[1] and reference[1][-1] == "stop"


def test_head_keeps_the_first_line_and_the_trace(tmp_path: Path) -> None:
    trace, otel = tmp_path / "t.jsonl", tmp_path / "t.json"
    command = " ".join(f"'{a}'" for a in harness(
        "run", "--mock", "--debug", "--trace", str(trace), "--trace-otel", str(otel),
        *STOPPED))
    done = subprocess.run(["bash", "-c", f"set -o pipefail; {command} | head -1"],
                          capture_output=True, text=True, env=ENV, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and done.stdout.startswith("Espace de travail")
    assert done.stderr == "", done.stderr
    assert kinds(trace)[-1] == "stop" and Trace.load(trace).events[-1].data["reason"] \
        == "max_turns"
    from harness_lib.otel import load_otlp

    assert [e.kind for e in load_otlp(otel).events] == kinds(trace)


def started_tool(process: subprocess.Popen[str], out: Path) -> None:
    """Wait (at most 30 s, polling the child's stdout) until it runs its bash command."""
    deadline = time.monotonic() + 30
    while "Harness → Outils" not in out.read_text(encoding="utf-8"):
        assert process.poll() is None, (out.read_text(encoding="utf-8"), process.communicate())
        assert time.monotonic() < deadline, "la commande n’a pas démarré"
        time.sleep(0.02)


ENDINGS = [("SIGTERM", "bac à sable"), ("SIGTERM", "sans bac à sable"),
           ("SIGHUP", "sans bac à sable")]


@pytest.mark.parametrize(("name", "mode"), ENDINGS)
def test_a_signal_during_a_command_keeps_both_traces_and_ends_the_command(
        tmp_path: Path, name: str, mode: str) -> None:
    unconfined = mode == "sans bac à sable"
    if not unconfined and (why := sandbox.problem()) is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"le bac à sable doit démarrer en CI : {why}")
        pytest.skip(f"pas de bac à sable ici : {why}")
    trace, otel, out = tmp_path / "t.jsonl", tmp_path / "t.json", tmp_path / "out.txt"
    token = f"sleep 6{os.getpid() % 10}{len(name)}"  # a command line to find its processes
    with out.open("w", encoding="utf-8") as sink:
        process = subprocess.Popen(
            harness("run", "--mock", "--unconfined", "--workspace", str(tmp_path), "--trace",
                    str(trace), "--trace-otel", str(otel), f"Lance `{token}`",
                    unconfined=unconfined),
            stdout=sink, stderr=subprocess.PIPE, text=True, env=ENV, stdin=subprocess.DEVNULL)
        started_tool(process, out)
        running = named(token)
        process.send_signal(getattr(signal, name))
        _, err = process.communicate(timeout=30)
    number = getattr(signal, name)
    assert process.returncode == 128 + number, err  # said and kept, not killed outright
    sent_by = "envoyé par timeout ou kill" if name == "SIGTERM" else "le terminal s’est fermé"
    assert f"Arrêt : interrompu par {name} ({sent_by})." in err and "Traceback" not in err
    kept = Trace.load(trace)
    assert kept.events[-1].kind == "stop"
    assert kept.events[-1].data == {"reason": "interrupted", "signal": name}
    assert [e.kind for e in kept.events][:5] == ["task", "request", "reply", "permission",
                                                 "tool_call"]
    from harness_lib.otel import load_otlp

    assert load_otlp(otel).events[-1].data["reason"] == "interrupted"
    assert running and survivors(running) == []  # the command ended with the harness


def test_without_a_sandbox_the_cli_says_so_and_the_mock_waits_for_a_yes(tmp_path: Path) -> None:
    done = subprocess.run(harness("run", "--mock", "--workspace", str(tmp_path),
                                  "Lance `touch fait.txt`", unconfined=True),
                          capture_output=True, text=True, env=ENV, timeout=60,
                          stdin=subprocess.DEVNULL)  # CI: nobody to answer, never a wait
    said = done.stdout.split("[tour 0]")[0]  # before the run
    assert "Pas de bac à sable pour bash : bwrap-absent est introuvable" in said
    assert ("Une commande tournerait avec vos droits : chacune attend donc l’accord d’une "
            "personne, quel que soit le modèle, le modèle simulé compris (--unconfined lève "
            "cette attente, à vos risques).") in said
    assert "Refusé : personne ne peut répondre ici (l’entrée standard n’est pas un " \
        "terminal)." in done.stdout
    assert not (tmp_path / "fait.txt").exists() and done.returncode == 1


def test_unconfined_runs_the_mock_commands_without_a_question(tmp_path: Path) -> None:
    done = subprocess.run(harness("run", "--mock", "--unconfined", "--workspace",
                                  str(tmp_path), "Lance `touch fait.txt`", unconfined=True),
                          capture_output=True, text=True, env=ENV, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert "Avec --unconfined, chaque commande tourne avec vos droits, sans question" \
        in done.stdout
    assert "Autoriser" not in done.stdout and (tmp_path / "fait.txt").exists()
