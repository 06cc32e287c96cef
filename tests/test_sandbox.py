"""The sandbox holds whatever the spelling: dangerous commands against stand-in targets.

Each spelling of tests/sandbox_corpus.py runs through the project's bash tool
(`run_tool`, as the loop calls it), in a fresh workspace, against targets outside it:
a folder (visible, read-only in the sandbox), a folder in /tmp (hidden), a fake home
folder, a bare git repository, a TCP server on 127.0.0.1, the harness's environment
holding a fake secret, a fake kernel connection file. The test asserts on the
targets' state afterwards, never on the policy's verdict (the policy is not asked).
Skipped where no sandbox can start, with the reason; a failure in CI (conftest.sandboxed).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import pytest
from processes import named, survivors
from sandbox_corpus import corpus

from harness_lib.messages import ToolCall
from harness_lib.models.openrouter import OpenRouterModel
from harness_lib.tools import run_tool, workspace_tools

ROOT = Path(__file__).resolve().parents[1]
SECRET = "sk-canari-" + "7e1f" * 10  # in the harness's environment, as OPENROUTER_API_KEY is
KERNEL_KEY = "cle-du-noyau-" + "a9" * 12  # in the fake kernel connection file
MEMORY_KEY = "sk-or-v1-memoire-" + "c3" * 12  # only in an OpenRouterModel's memory
TOKEN = f"detache-{os.getpid()}"
CANARIES = (SECRET, KERNEL_KEY, MEMORY_KEY)


class Listener:
    """A TCP server on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return  # closed
            self.accepted += 1
            client.close()


@dataclass
class Targets:
    base: Path
    places: dict[str, str]
    template: Path
    listener: Listener

    def snapshot(self) -> dict[str, object]:
        """What damage would change: every file's name, mode and bytes under the targets."""
        seen: dict[str, object] = {"connexions": self.listener.accepted}
        for name in ("out", "hid", "home", "bare", "runtime"):
            top = Path(self.places[name])
            for path in sorted([top, *top.rglob("*")]):
                info = path.lstat()
                data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
                seen[str(path)] = (info.st_mode, data)
        return seen


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def _folder(path: Path) -> str:
    path.mkdir(parents=True)
    (path / "sentinelle.txt").write_text("SENTINELLE\n")
    return str(path)


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Targets]:
    # Outside /tmp and the home folder: the sandbox shows it, read-only.
    base = ROOT / ".cibles-du-bac-a-sable" / str(os.getpid())
    hidden = tmp_path_factory.mktemp("cible-cachee")
    places = {"out": _folder(base / "dehors"), "hid": _folder(hidden / "dehors"),
              "home": _folder(base / "maison"), "runtime": str(base / "runtime"),
              "bare": str(base / "depot.git"), "pid": str(os.getpid()), "token": TOKEN}
    for runtime in (Path(places["runtime"]), base / "maison/.local/share/jupyter/runtime"):
        runtime.mkdir(parents=True)
        (runtime / "kernel-1234.json").write_text(json.dumps({"key": KERNEL_KEY}))
    (base / "maison/.ssh").mkdir()
    (base / "maison/.ssh/id_ed25519").write_text("CLE PRIVEE\n")
    (base / "maison/.bashrc").write_text("# bashrc\n")
    template = hidden / "modele"
    template.mkdir()
    (template / "README.md").write_text("# Projet\n")
    _git("init", "-q", "--bare", "-b", "main", places["bare"], cwd=base)
    _git("init", "-q", "-b", "main", cwd=template)
    _git("add", ".", cwd=template)
    _git("commit", "-q", "-m", "un", cwd=template)
    _git("remote", "add", "origin", places["bare"], cwd=template)
    _git("push", "-q", "origin", "main", cwd=template)
    listener = Listener()
    places["port"] = str(listener.port)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", places["home"])
        patch.setenv("JUPYTER_RUNTIME_DIR", places["runtime"])
        patch.setenv("HARNESS_TEST_SECRET", SECRET)  # scrubbed from bash's own environment
        yield Targets(base, places, template, listener)
    listener.server.close()
    shutil.rmtree(base.parent, ignore_errors=True)


SPELLINGS = corpus()


def test_the_corpus_has_at_least_150_dangerous_spellings() -> None:
    assert len(SPELLINGS) >= 150 and len(set(SPELLINGS)) == len(SPELLINGS)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_no_dangerous_spelling_does_its_damage(targets: Targets, sandboxed: None,
                                               tmp_path: Path, spelling: str) -> None:
    before = targets.snapshot()
    workspace = tmp_path / "ws"
    shutil.copytree(targets.template, workspace, symlinks=True)
    command = spelling.format(**targets.places)
    seen = run_tool(ToolCall("bash", {"command": command}), workspace_tools(workspace),
                    timeout=10)
    assert not seen.timed_out, seen.content
    assert survivors(named(TOKEN)) == []  # no detached process left to act later
    assert targets.snapshot() == before, seen.content
    for path in workspace.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            assert not [c for c in CANARIES if c.encode() in data], (path, seen.content)


def test_the_key_in_a_model_client_s_memory_is_out_of_reach(targets: Targets, sandboxed: None,
                                                            tmp_path: Path) -> None:
    model = OpenRouterModel("m", api_key=MEMORY_KEY,
                            transport=httpx.MockTransport(lambda r: httpx.Response(500)))
    script = (f"import re; maps = open('/proc/{os.getpid()}/maps').read(); "
              f"mem = open('/proc/{os.getpid()}/mem', 'rb'); found = b''\n"
              "for line in maps.splitlines():\n"
              "    if 'rw-p' in line:\n"
              "        a, b = (int(x, 16) for x in line.split()[0].split('-'))\n"
              "        try:\n"
              "            mem.seek(a); chunk = mem.read(b - a)\n"
              "        except OSError:\n"
              "            continue\n"
              "        found += b''.join(re.findall(rb'sk-or-v1-memoire-[0-9a-f]+', chunk))\n"
              "open('butin', 'wb').write(found)\n")
    (tmp_path / "vol.py").write_text(script)
    seen = run_tool(ToolCall("bash", {"command": "python vol.py"}), workspace_tools(tmp_path))
    assert seen.is_error  # /proc/<harness> does not exist in the sandbox's PID namespace
    assert not (tmp_path / "butin").exists() or MEMORY_KEY.encode() not in (
        tmp_path / "butin").read_bytes()
    model.close()


def test_the_sandbox_keeps_the_network_only_when_the_policy_says_so(
        targets: Targets, sandboxed: None, tmp_path: Path) -> None:
    command = f"echo x > /dev/tcp/127.0.0.1/{targets.listener.port}"
    before = targets.listener.accepted
    tools = workspace_tools(tmp_path)
    closed = run_tool(ToolCall("bash", {"command": command}), tools)
    assert closed.is_error and targets.listener.accepted == before
    opened = run_tool(ToolCall("bash", {"command": command}), tools, network=True)
    assert not opened.is_error, opened.content
    deadline = time.monotonic() + 5  # the server's thread counts it: a bounded wait
    while targets.listener.accepted == before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert targets.listener.accepted == before + 1


@pytest.mark.parametrize("network", [False, True])
def test_the_loop_gives_bash_the_network_only_with_policy_network(
        targets: Targets, sandboxed: None, tmp_path: Path, network: bool) -> None:
    from harness_lib import MockModel, run
    from harness_lib.policy import DEFAULT_POLICY

    before = targets.listener.accepted
    connect = f"import socket; socket.create_connection(('127.0.0.1', {targets.listener.port}))"
    done = run(f"Lance `python -c \"{connect}\"`", MockModel(), workspace_tools(tmp_path),
               policy=replace(DEFAULT_POLICY, network=network))
    assert done.reason == ("answer" if network else "failures"), done.message
    deadline = time.monotonic() + 5  # the server's thread counts it: a bounded wait
    while network and targets.listener.accepted == before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert targets.listener.accepted == before + network


def test_what_stays_usable_inside(sandboxed: None, tmp_path: Path) -> None:
    tools = workspace_tools(tmp_path)
    command = ("echo écrit > fichier && cat fichier"
               " && python -c \"print(__import__('sys').prefix)\""
               " && mktemp >/dev/null && git --version >/dev/null && echo fin")
    seen = run_tool(ToolCall("bash", {"command": command}), tools)
    assert not seen.is_error, seen.content
    assert seen.content.splitlines()[:2] == ["écrit", sys.prefix]
    assert (tmp_path / "fichier").read_text() == "écrit\n"


# --- where no sandbox can start: said once, and real-mode bash asks a human ---------------

BASH = ToolCall("bash", {"command": "ls"})


def test_no_sandbox_is_said_once_in_french(unconfined: None) -> None:
    from harness_lib.tools import sandbox

    sandbox._probe.cache_clear()
    with pytest.warns(sandbox.SandboxWarning) as said:
        first, second = sandbox.problem(), sandbox.problem()
    assert first == second and first is not None and "introuvable" in first
    assert len(said) == 1 and str(said[0].message).startswith("Pas de bac à sable pour bash")


def test_without_a_sandbox_bash_asks_a_human_unless_the_learner_opts_out(unconfined: None
                                                                         ) -> None:
    from harness_lib.policy import DEFAULT_POLICY, STRICT_POLICY, check_permission

    asked = check_permission(BASH, DEFAULT_POLICY)
    assert asked.verdict == "ask" and "pas de bac à sable" in asked.reason
    assert check_permission(BASH, STRICT_POLICY).verdict == "ask"
    assert check_permission(BASH, replace(DEFAULT_POLICY, unconfined="allow")).verdict == "allow"
    denied = check_permission(BASH, replace(DEFAULT_POLICY, unconfined="deny"))
    assert denied.verdict == "deny" and "unconfined" in denied.reason
    with pytest.raises(ValueError, match="unconfined vaut 'oui'"):
        replace(DEFAULT_POLICY, unconfined="oui")  # type: ignore[arg-type]


def test_with_a_sandbox_bash_is_allowed_as_the_policy_says(sandboxed: None) -> None:
    from harness_lib.policy import DEFAULT_POLICY, check_permission

    assert check_permission(BASH, DEFAULT_POLICY).verdict == "allow"


def test_without_a_sandbox_the_mock_asks_like_any_model_unless_the_policy_says(
        unconfined: None) -> None:
    # No model-type test in the loop: the mock's commands wait for a yes as a real model's do,
    # and a caller that trusts the mission says so through the same Policy anyone passes.
    from harness_lib import DEFAULT_POLICY, MockModel, run
    from harness_lib.course.missions.tasks import example_workspace

    task, tools = "Corrige format_price dans price.py", workspace_tools
    asked = run(task, MockModel(), tools(example_workspace("prix")))
    assert asked.reason == "human" and "bash" in asked.message
    trusted = replace(DEFAULT_POLICY, unconfined="allow")
    done = run(task, MockModel(), tools(example_workspace("prix")), policy=trusted)
    assert done.reason == "answer" and "5 tests réussis" in done.message


def test_a_real_model_without_a_sandbox_waits_for_a_human(unconfined: None) -> None:
    from harness_lib import DEFAULT_POLICY, MockModel, ReplayModel, run
    from harness_lib.course.missions.tasks import example_workspace

    mock = run("Corrige format_price dans price.py", MockModel(),
               workspace_tools(example_workspace("prix")),
               policy=replace(DEFAULT_POLICY, unconfined="allow"))
    replayed = run("Corrige format_price dans price.py", ReplayModel.from_trace(mock.trace),
                   workspace_tools(example_workspace("prix")))
    assert replayed.reason == "human" and "bash" in replayed.message
