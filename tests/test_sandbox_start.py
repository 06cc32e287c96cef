"""The sandbox never silently disappears: it starts wherever the workspace and the kernel's
files are and whatever $HOME is; when it truly cannot, `problem()` says which mount and
why; SIGTERM and SIGHUP to the harness end the tool's process group as Ctrl-C does.

Real bubblewrap runs (skipped where none can start, a failure in CI: conftest.sandboxed);
the failures of bwrap are those of a stand-in `bwrap` on PATH that prints bwrap's own words.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest
from processes import named, survivors

from harness_lib.messages import ToolCall
from harness_lib.tools import run_tool, sandbox, workspace_tools

ROOT = Path(__file__).resolve().parents[1]
# bubblewrap, /proc, /tmp: Linux's. Elsewhere, no sandbox, and test_sandbox.py says so.
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux seulement")
KEY = "cle-du-noyau-" + "5e" * 12  # in the fake kernel connection files


@pytest.fixture
def fresh_probe() -> Iterator[None]:
    """`problem()` tried again under this test's conditions, and again after it."""
    sandbox._probe.cache_clear()
    yield
    sandbox._probe.cache_clear()


@pytest.fixture
def in_tmp() -> Iterator[Path]:
    """A folder right under /tmp (not pytest's): where nbclient's kernels keep their files."""
    folder = Path(tempfile.mkdtemp(prefix="harness-bac-", dir="/tmp"))
    yield Path(os.path.realpath(folder))
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def kernel_in_tmp(in_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A workspace under /tmp; a Jupyter runtime folder under /tmp; this process started as a
    kernel with `-f` a connection file right in /tmp (jupyter_client's `mkstemp`)."""
    places = {"ws": in_tmp / "espace", "runtime": in_tmp / "runtime",
              "direct": in_tmp.parent / f"kernel-{in_tmp.name}.json"}
    places["ws"].mkdir()
    places["runtime"].mkdir()
    for file in (places["runtime"] / "kernel-1.json", places["direct"]):
        file.write_text(json.dumps({"key": KEY}))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(places["runtime"]))
    monkeypatch.setattr(sys, "argv", [*sys.argv, "-f", str(places["direct"])])
    yield places
    places["direct"].unlink()


def bash(command: str, workspace: Path) -> str:
    seen = run_tool(ToolCall("bash", {"command": command}), workspace_tools(workspace))
    return seen.content


def test_a_workspace_in_tmp_beside_the_kernel_s_files(sandboxed: None, fresh_probe: None,
                                                      kernel_in_tmp: dict[str, Path]) -> None:
    ws, runtime, direct = kernel_in_tmp["ws"], kernel_in_tmp["runtime"], kernel_in_tmp["direct"]
    assert sandbox.problem() is None
    seen = bash(f"pwd; echo écrit > f.txt; cat f.txt; cat {runtime}/kernel-1.json {direct};"
                " ls -A /tmp > tmp.txt", ws)
    assert seen.splitlines()[:2] == [str(ws), "écrit"], seen
    assert (ws / "f.txt").read_text() == "écrit\n"
    assert KEY not in seen and "No such file" in seen
    # /tmp is an empty folder inside, but for the way to the workspace, and to the harness's
    # own Python when it lives under /tmp (a clone there, as CI may make: python stays usable).
    tmp = Path(os.path.realpath("/tmp"))
    python = {Path(os.path.realpath(p)) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    ways = {p.relative_to(tmp).parts[0] for p in python if p.is_relative_to(tmp) and p != tmp}
    assert set((ws / "tmp.txt").read_text().split()) == {ws.parent.name} | ways


def test_a_detached_process_cannot_read_a_key_outside(sandboxed: None, fresh_probe: None,
                                                      kernel_in_tmp: dict[str, Path]) -> None:
    # `setsid -w`: the detached process in a session of its own, waited for.
    ws, runtime, direct = kernel_in_tmp["ws"], kernel_in_tmp["runtime"], kernel_in_tmp["direct"]
    seen = bash(f"setsid -w sh -c 'cat {direct} {runtime}/kernel-1.json > vu.txt 2>&1';"
                " cat vu.txt; echo fin", ws)
    assert "fin" in seen and "No such file" in seen, seen
    assert KEY not in seen and KEY not in (ws / "vu.txt").read_text()


def test_a_kernel_file_in_the_workspace_itself_is_covered(sandboxed: None, fresh_probe: None,
                                                          tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    ws = Path(os.path.realpath(tmp_path))
    (ws / "kernel-9.json").write_text(json.dumps({"key": KEY}))
    monkeypatch.setattr(sys, "argv", [*sys.argv, "-f", str(ws / "kernel-9.json")])
    seen = bash("cat kernel-9.json; echo écrit > f.txt && echo fin", ws)
    assert KEY not in seen and "fin" in seen, seen
    assert (ws / "kernel-9.json").read_text() == json.dumps({"key": KEY})


# Debian's `nobody`, a file (containers), the root, a system folder (Debian's `bin`), unset.
HOMES = ["/nonexistent", "/dev/null", "/etc/passwd", "/", "/bin", "/usr/sbin", None]


@pytest.mark.parametrize("home", HOMES)
def test_the_sandbox_starts_whatever_home_is(sandboxed: None, fresh_probe: None, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             home: str | None) -> None:
    assert home is None or home == "/nonexistent" or os.path.exists(home)
    if home is None:
        monkeypatch.delenv("HOME")
    else:
        monkeypatch.setenv("HOME", home)
    assert sandbox.problem() is None
    assert bash("echo écrit > f.txt && cat f.txt && ls /bin/bash", tmp_path).startswith(
        "écrit\n/bin/bash\n")


# --- when bwrap truly cannot start: which mount, which permission -------------------------

SAYS = {
    "bwrap: Can't mkdir /nulle-part: Read-only file system":
        ["n’a pas pu créer le dossier /nulle-part", "lecture seule", "Can't mkdir"],
    "bwrap: Can't chdir to /tmp/espace: No such file or directory":
        ["n’a pas pu entrer dans l’espace de travail /tmp/espace", "(introuvable)"],
    "bwrap: Can't mount tmpfs on /newroot/root: Permission denied":
        ["n’a pas pu cacher /root sous un dossier vide", "permission refusée"],
    "bwrap: No permissions to creating new namespace, likely because the kernel does not "
    "allow non-privileged user namespaces.": ["espaces de noms", "No permissions"],
    "bwrap: setting up uid map: Permission denied": ["espaces de noms", "uid map"],
    "bwrap: un message inconnu": ["échoue ici (code 1)", "un message inconnu"],
    "": ["échoue ici (code 1) sans dire pourquoi"],
}


@pytest.mark.parametrize("stderr", list(SAYS))
def test_when_bwrap_fails_problem_says_why_in_french(fresh_probe: None, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     stderr: str) -> None:
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\nprintf '%s\\n' \"{stderr}\" >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    with pytest.warns(sandbox.SandboxWarning) as said:
        why = sandbox.problem()
    assert why is not None
    for words in SAYS[stderr]:
        assert words in why.replace("\u00a0", " ").replace("\u202f", " "), why
    assert str(said[0].message).startswith("Pas de bac à sable pour bash")


# --- SIGTERM and SIGHUP to the harness end the tool's process group ----------------------

CHILD = """
import sys
from harness_lib.tools import sandbox, shell
sandbox.PROGRAM = sys.argv[1]
shell.run(f"sleep {sys.argv[2]} & wait", sys.argv[3], timeout=60)
"""


def sleeping(token: str) -> list[int]:
    """The `sleep <token>` processes themselves (not bash, bwrap nor the harness)."""
    found = []
    for pid in named(token):
        with suppress(OSError):  # gone meanwhile
            if Path(f"/proc/{pid}/cmdline").read_bytes() == f"sleep\0{token}\0".encode():
                found.append(pid)
    return found


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_that_ends_the_harness_ends_the_tool_s_group(bash_mode: str, tmp_path: Path,
                                                               number: int) -> None:
    token = f"30.{os.getpid()}{number}"  # `sleep 30.<pid><n>`: found by its command line
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    harness = subprocess.Popen([sys.executable, "-c", CHILD, sandbox.PROGRAM, token,
                                str(tmp_path)], env=env)
    try:
        deadline = time.monotonic() + 20  # a bounded wait for the tool to start
        while not sleeping(token) and time.monotonic() < deadline:
            time.sleep(0.02)
        pids = named(token)  # the sleep, bash, bwrap and the harness
        assert sleeping(token), "la commande n’a pas démarré"
        harness.send_signal(number)
        assert harness.wait(timeout=20) == -number  # ended by the signal, as before
        assert survivors(pids, seconds=10) == []
    finally:
        harness.kill()
        for pid in named(token):
            os.kill(pid, signal.SIGKILL)


def test_a_signal_while_the_command_starts_ends_its_group_once_the_group_is_known() -> None:
    # The race seen in CI-like runs: SIGTERM between the handler's install and the Popen's
    # return left the command running after the harness. It now waits for `groups.add`.
    from harness_lib.tools.ending import ended_with_the_harness

    seen: list[int] = []
    before = signal.signal(signal.SIGTERM, lambda number, frame: seen.append(number))
    try:
        with ended_with_the_harness() as groups:
            os.kill(os.getpid(), signal.SIGTERM)  # before any group is known
            assert seen == []  # not yet: the harness's own handler waits for the group
            process = subprocess.Popen(["sleep", "30"], start_new_session=True)
            groups.add(process.pid)
        assert process.wait(timeout=10) == -signal.SIGKILL and seen == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, before)
