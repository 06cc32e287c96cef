"""Tools: confinement to the workspace, file tools, bash, and run_tool()."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from processes import named
from processes import survivors as wait_until_dead

from harness_lib.errors import ToolError
from harness_lib.messages import ToolCall, read_call
from harness_lib.tools import Observation, Tool, run_tool, workspace_tools
from harness_lib.tools.shell import BACKGROUND
from harness_lib.tools.workspace import MAX_CHARS, MAX_ENTRIES, Workspace

SECRET = "SENTINELLE-HORS-DU-DOSSIER"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the workspace, with a sentinel file nothing may read or change."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text(SECRET)
    return folder


@pytest.fixture
def root(tmp_path: Path, outside: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "README.md").write_text("# Mini harness\nUne boucle et un outil.\n")
    (folder / "price.py").write_text("def price(x):\n    return x\n")
    (folder / "link.txt").symlink_to(outside / "secret.txt")
    (folder / "linkdir").symlink_to(outside, target_is_directory=True)
    return folder


@pytest.fixture
def tools(root: Path) -> list[Tool]:
    return workspace_tools(root)


def run(tools: list[Tool], name: str, timeout: float = 10.0, **arguments: object) -> Observation:
    call = {"id": "call_1", "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}
    return run_tool(read_call(call), tools, timeout=timeout)


def assert_untouched(outside: Path) -> None:
    assert (outside / "secret.txt").read_text() == SECRET
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


# --- confinement ---------------------------------------------------------------------------

ESCAPES = [
    "../outside/secret.txt",
    "docs/../../outside/secret.txt",
    "~/secret.txt",
    "link.txt",
    "linkdir/secret.txt",
    "secret\0.txt",
    "docs\n/README.md",
    "a" * 5000,
]


@pytest.mark.parametrize("path", ESCAPES)
def test_read_file_refuses_every_escape(tools, outside, monkeypatch, path):
    monkeypatch.setenv("HOME", str(outside))  # if "~" were expanded, it would hit the sentinel
    seen = run(tools, "read_file", path=path)
    assert seen.is_error and seen.content.startswith("Erreur : ")
    assert SECRET not in seen.content


def test_absolute_paths_are_refused_even_inside(tools, root, outside):
    for path in (str(outside / "secret.txt"), str(root / "price.py"), "/etc/passwd"):
        seen = run(tools, "read_file", path=path)
        assert seen.is_error and "chemin absolu" in seen.content


def test_refusals_say_why_in_french(tools):
    assert "sort du dossier de travail" in run(tools, "read_file", path="link.txt").content
    assert "trop long (5 000 caractères" in run(tools, "read_file", path="a" * 5000).content
    assert "NUL" in run(tools, "read_file", path="a\0b").content
    assert "retour à la ligne" in run(tools, "read_file", path="a\nb").content


@pytest.mark.parametrize(("name", "arguments"), [
    ("read_file", {"path": "a\ud800b"}), ("list_files", {"path": "\udfff"}),
    ("edit_file", {"path": "x\ud800", "old": "a", "new": "b"}),
    ("bash", {"command": "echo \ud800"}),
])
def test_a_lone_surrogate_is_named_in_french(tools, name, arguments):
    # Half of a UTF-16 pair: valid in a Python str, refused by every system call.
    seen = run_tool(ToolCall(name, arguments), tools)
    assert seen.is_error and "U+D" in seen.content and "paire UTF-16" in seen.content, seen
    assert "Unicode" not in seen.content and "NUL" not in seen.content


def test_an_unknown_tool_s_huge_name_is_not_echoed_back(tools):
    seen = run_tool(call_with("{}", name="x" * 1_000_000), tools)
    assert seen.content.startswith("Erreur : outil inconnu : xxx") and len(seen.content) < 300
    assert seen.content.endswith("Outils disponibles : read_file, list_files, edit_file, bash")


@pytest.mark.parametrize("path", ESCAPES + ["/tmp/x"])
def test_edit_file_writes_nothing_outside(tools, outside, monkeypatch, path):
    monkeypatch.setenv("HOME", str(outside))
    seen = run(tools, "edit_file", path=path, old=SECRET, new="PIRATÉ")
    assert seen.is_error
    assert_untouched(outside)


@pytest.mark.parametrize("path", ["..", "linkdir", "../outside", "/", "~"])
def test_list_files_stays_inside(tools, path):
    seen = run(tools, "list_files", path=path)
    assert seen.is_error and "secret.txt" not in seen.content


def test_listing_shows_links_without_following_them(tools):
    seen = run(tools, "list_files")
    assert "linkdir" in seen.content.splitlines()
    assert "secret.txt" not in seen.content


def swap_after_resolve(monkeypatch, swap) -> None:
    """Let resolve() check the path, then change the disk before the file is opened."""
    original = Workspace.resolve

    def resolve_then_swap(self: Workspace, path: str) -> Path:
        real = original(self, path)
        swap()
        return real

    monkeypatch.setattr(Workspace, "resolve", resolve_then_swap)


def test_file_swapped_for_a_link_is_caught(tools, root, outside, monkeypatch):
    victim = root / "notes.txt"
    victim.write_text(SECRET.lower())

    def swap() -> None:
        victim.unlink()
        victim.symlink_to(outside / "secret.txt")

    swap_after_resolve(monkeypatch, swap)
    assert SECRET not in run(tools, "read_file", path="notes.txt").content
    victim.unlink()
    victim.write_text(SECRET.lower())
    assert run(tools, "edit_file", path="notes.txt", old=SECRET, new="PIRATÉ").is_error
    assert_untouched(outside)


def test_folder_swapped_for_a_link_is_caught(tools, root, outside, monkeypatch):
    (root / "sub").mkdir()
    (root / "sub" / "secret.txt").write_text("rien")

    def swap() -> None:
        (root / "sub").rename(root / "sub.old")
        (root / "sub").symlink_to(outside, target_is_directory=True)

    swap_after_resolve(monkeypatch, swap)
    seen = run(tools, "edit_file", path="sub/secret.txt", old=SECRET, new="PIRATÉ")
    assert seen.is_error and "sort du dossier de travail" in seen.content
    assert_untouched(outside)


# --- read_file, list_files, edit_file ------------------------------------------------------

def test_missing_file_is_the_course_observation(tools):
    assert run(tools, "read_file", path="README.md") == Observation(
        "Erreur : README.md introuvable", is_error=True)


def test_read_file_returns_the_text(tools):
    seen = run(tools, "read_file", path="docs/README.md")
    assert seen == Observation("# Mini harness\nUne boucle et un outil.\n", is_error=False)


def test_read_file_of_a_folder_points_to_list_files(tools):
    assert "list_files" in run(tools, "read_file", path="docs").content


def test_binary_and_non_utf8_files_are_marked_not_fatal(tools, root):
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" * 500)
    (root / "latin1.txt").write_text("café", encoding="latin-1")
    binary = run(tools, "read_file", path="image.png")
    assert not binary.is_error and binary.content.startswith("[fichier binaire de 8 000 octets")
    assert "\0" not in binary.content and len(binary.content) < 1200
    latin = run(tools, "read_file", path="latin1.txt")
    assert not latin.is_error and latin.content.endswith("caf\N{REPLACEMENT CHARACTER}")
    assert "non UTF-8" in latin.content


def test_big_file_is_capped_with_a_marker(tools, root):
    (root / "big.txt").write_text("x" * (MAX_CHARS + 12_345))
    seen = run(tools, "read_file", path="big.txt")
    assert seen.content.startswith("x" * MAX_CHARS)
    assert seen.content.endswith("… [tronqué : 12 345 caractères de plus]")


def test_huge_file_is_not_read(tools, root):
    with open(root / "huge.log", "wb") as file:
        file.truncate(50_000_000)  # sparse: costs nothing on disk
    seen = run(tools, "read_file", path="huge.log")
    assert seen.is_error and "head" in seen.content


def test_fifo_does_not_block(tools, root):
    os.mkfifo(root / "pipe")
    assert "pas un fichier ordinaire" in run(tools, "read_file", path="pipe").content


def test_list_files_is_sorted_bounded_and_marks_folders(tools, root):
    (root / "src" / "app" / "deep").mkdir(parents=True)
    (root / "src" / "app" / "main.py").write_text("")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("")
    lines = run(tools, "list_files", path=".").content.splitlines()
    assert lines == [".git/", "docs/", "docs/README.md", "link.txt", "linkdir", "price.py",
                     "src/", "src/app/"]
    assert run(tools, "list_files", path="src/app").content == "src/app/deep/\nsrc/app/main.py"
    assert run(tools, "list_files", path="src/app/deep").content == "src/app/deep est vide"
    assert "read_file" in run(tools, "list_files", path="price.py").content


def test_list_files_stops_at_the_limit_with_a_marker(tools, root):
    (root / "many").mkdir()
    for i in range(MAX_ENTRIES + 50):
        (root / "many" / f"f{i:03}.txt").write_text("")
    lines = run(tools, "list_files", path="many").content.splitlines()
    assert len(lines) == MAX_ENTRIES + 1 and lines[0] == "many/f000.txt"
    assert lines[-1].startswith("… [liste tronquée à 200 entrées")


@pytest.mark.parametrize(("old", "count"), [("return y", 0), ("x", 2)])
def test_edit_file_refuses_zero_or_several_occurrences(tools, root, old, count):
    before = (root / "price.py").read_text()
    seen = run(tools, "edit_file", path="price.py", old=old, new="z")
    assert seen.is_error
    assert (f"({count} occurrence)" if count == 0 else f"{count} fois") in seen.content
    assert (root / "price.py").read_text() == before


def test_edit_file_replaces_the_unique_occurrence(tools, root):
    seen = run(tools, "edit_file", path="price.py", old="return x", new="return round(x, 2)")
    assert seen == Observation("Fichier modifié : price.py (1 occurrence remplacée, ligne 2)",
                               is_error=False)
    assert (root / "price.py").read_text() == "def price(x):\n    return round(x, 2)\n"


def test_edit_file_of_missing_empty_or_binary(tools, root):
    assert run(tools, "edit_file", path="nope.py", old="a", new="b").content == (
        "Erreur : nope.py introuvable")
    assert "old est vide" in run(tools, "edit_file", path="price.py", old="", new="b").content
    (root / "data.bin").write_bytes(b"\xff\xfe a")
    assert "UTF-8" in run(tools, "edit_file", path="data.bin", old="a", new="b").content
    assert (root / "data.bin").read_bytes() == b"\xff\xfe a"


# --- bash ----------------------------------------------------------------------------------

def test_bash_reports_output_and_exit_code(tools, root):
    ok = run(tools, "bash", command="pwd; echo erreur >&2")
    assert ok == Observation(f"{root.resolve()}\nerreur\n[code de sortie : 0]", is_error=False)
    failed = run(tools, "bash", command="echo raté; exit 3")
    assert failed.is_error and not failed.timed_out
    assert failed.content == "Erreur : la commande a échoué\nraté\n[code de sortie : 3]"


def test_bash_output_keeps_head_and_tail(tools):
    seen = run(tools, "bash", command="echo DEBUT; yes ligne | head -n 200000; echo FIN")
    assert seen.content.startswith("DEBUT\n") and seen.content.endswith("FIN\n[code de sortie : 0]")
    assert "octets au milieu] …" in seen.content and len(seen.content) < 21_000


def test_bash_does_not_read_the_terminal(tools):
    assert run(tools, "bash", timeout=5, command="cat").content == "[code de sortie : 0]"


SECRETS = {"OPENROUTER_API_KEY": "sk-or-v1-secret", "GITHUB_TOKEN": "ghp-secret",
           "MY_SECRET": "chut", "GH_PAT": "ghp_pat", "GITHUB_PAT_RO": "ghp_ro",
           "AWS_CREDENTIALS": "aws-cred", "DB_PASSWORD": "pwd-1", "SMTP_PASS": "pass-2",
           "MYSQL_PASSWD": "pwd-3", "NPM_AUTH": "npm-auth", "ssh_private": "priv",
           "apikey": "lower-key"}


def test_bash_hides_secrets(tools, monkeypatch):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HARNESS_VISIBLE", "oui")
    monkeypatch.setenv("DATABASE_URL", "postgres://moi:mot-de-passe@db:5432/base")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")  # no password: kept as is
    seen = run(tools, "bash", command="env").content
    assert "HARNESS_VISIBLE=oui" in seen and "HTTPS_PROXY=http://proxy:3128" in seen
    assert "PATH=" in seen and "PWD=" in seen  # PAT is a word of GH_PAT, not of PATH
    assert "DATABASE_URL=postgres://moi:***@db:5432/base" in seen
    assert not [value for value in SECRETS.values() if value in seen]
    assert "mot-de-passe" not in seen


def sleeper(token: str) -> str:
    """A process that sleeps, found afterwards by the token on its command line (its
    PID, inside the sandbox, is one of the sandbox's own)."""
    return f"bash -c 'sleep 300; :' {token}"


def test_bash_timeout_kills_the_whole_process_group(tools, root, bash_mode):
    token = f"dormeur-{os.getpid()}-{time.monotonic_ns()}"
    command = f"{sleeper(token)} & {sleeper(token)} & echo partis > started; wait"
    started = time.monotonic()
    seen = run(tools, "bash", timeout=1.0, command=command)
    assert time.monotonic() - started < 5
    assert seen.timed_out and seen.is_error
    assert seen.content == "Erreur : délai de 1 s dépassé, commande arrêtée"
    assert (root / "started").read_text() == "partis\n"
    assert wait_until_dead(named(token)) == []


def test_bash_leaves_no_background_job_behind(tools, root, bash_mode):
    token = f"orphelin-{os.getpid()}-{time.monotonic_ns()}"
    seen = run(tools, "bash", command=f"{sleeper(token)} >/dev/null 2>&1 & echo $! > pid")
    assert seen.content == f"{BACKGROUND}\n[code de sortie : 0]"
    assert (root / "pid").read_text().strip().isdigit()
    assert wait_until_dead(named(token)) == []


@pytest.mark.parametrize("command", ["sleep 300 & echo prêt", "(sleep 300 &); echo prêt",
                                     "nohup sleep 300 > /dev/null 2>&1 & echo prêt"])
def test_bash_returns_when_the_command_ends_not_when_its_background_job_does(
        tools, command, bash_mode):
    # The job keeps the output pipe open: reading to its end would wait for the timeout,
    # and the observation would then say « délai … dépassé » instead of the exit code.
    seen = run(tools, "bash", timeout=30.0, command=command)
    assert seen.content == f"prêt\n{BACKGROUND}\n[code de sortie : 0]" and not seen.is_error


def test_bash_reports_no_background_job_when_there_was_none(tools, bash_mode):
    assert run(tools, "bash", command="sleep 0.2 & wait; echo fini").content == (
        "fini\n[code de sortie : 0]")


# --- run_tool ------------------------------------------------------------------------------

def call_with(arguments: object, name: str = "read_file") -> ToolCall:
    return read_call({"id": "c", "type": "function",
                      "function": {"name": name, "arguments": arguments}})


def test_run_tool_accepts_a_dict_of_arguments(tools):
    assert not run_tool(call_with({"path": "price.py"}), tools).is_error


@pytest.mark.parametrize(("arguments", "expected"), [
    ('{"path": "price.py"', "Erreur : arguments de read_file : JSON invalide"),
    ("[1, 2]", "Erreur : arguments de read_file : un objet JSON est attendu, reçu une liste"),
    ("{}", "Erreur : read_file : argument manquant : path"),
    ('{"path": 3}', "Erreur : read_file : path doit être de type string, reçu un entier"),
    ('{"path": true}', "Erreur : read_file : path doit être de type string, reçu un booléen"),
    ('{"path": "a", "mode": "w"}', "Erreur : read_file : argument inconnu : mode. Arguments"),
    ("[" * 100_000, "Erreur : arguments de read_file : JSON invalide"),
])
def test_run_tool_explains_bad_arguments(tools, arguments, expected):
    seen = run_tool(call_with(arguments), tools)
    assert seen.is_error and seen.content.startswith(expected)


SCHEMA = {"type": "object", "required": ["mode", "lines"], "additionalProperties": False,
          "properties": {"mode": {"enum": ["court", "long"]},
                         "lines": {"type": ["integer", "null"], "minimum": 1}}}


@pytest.mark.parametrize(("arguments", "expected"), [
    ({"lines": 3}, "argument manquant : mode"),
    ({"mode": "moyen", "lines": 3}, "mode ne respecte pas la règle « enum » du schéma (['court', "),
    ({"mode": "long", "lines": "3"}, "lines doit être de type integer ou null, reçu une chaîne"),
    ({"mode": "long", "lines": 0}, "lines ne respecte pas la règle « minimum » du schéma (1)"),
    ({"mode": "long", "lines": None}, None),
])
def test_arguments_are_checked_against_the_whole_schema(arguments, expected):
    tool = Tool("resume", "Résume.", SCHEMA, lambda mode, lines: f"{mode} {lines}")
    seen = run_tool(ToolCall("resume", arguments), [tool])
    if expected is None:
        assert seen == Observation("long None")
    else:
        assert seen.is_error and seen.content.startswith(f"Erreur : resume : {expected}")


def test_a_tool_with_a_broken_schema_says_so_and_runs_nothing():
    ran = []
    tool = Tool("casse", "Schéma cassé.", {"type": "objet", "properties": {}}, ran.append)
    seen = run_tool(ToolCall("casse", {}), [tool])
    assert seen.content.startswith("Erreur : casse : le schéma de ses arguments est invalide (")
    assert ran == []


def test_run_tool_lists_the_tools_for_an_unknown_one(tools):
    assert run_tool(call_with("{}", name="delete_file"), tools).content == (
        "Erreur : outil inconnu : delete_file. "
        "Outils disponibles : read_file, list_files, edit_file, bash")


@pytest.mark.parametrize("call", [None, "read_file", {}, {"function": None},
                                  {"function": {"name": 3}}, {"function": {"arguments": "{}"}}])
def test_run_tool_never_raises_on_a_malformed_call(tools, call):
    seen = run_tool(read_call(call), tools)
    assert seen.is_error and seen.content.startswith("Erreur : appel mal formé")


def test_run_tool_turns_a_crash_into_an_observation():
    def broken(**_: object) -> str:
        raise RuntimeError("boum")

    tool = Tool("broken", "Plante.", {"type": "object", "properties": {}}, broken)
    assert run_tool(call_with("", name="broken"), [tool]) == Observation(
        "Erreur : broken a échoué : RuntimeError : boum", is_error=True)


def test_only_timed_tools_receive_the_timeout():
    def clock(timeout: float) -> str:
        return f"{timeout:g} s"

    params = {"type": "object", "properties": {}}
    tools = [Tool("clock", "Horloge.", params, clock, timed=True),
             Tool("plain", "Simple.", params, lambda: "ok")]
    assert run_tool(call_with("{}", name="clock"), tools, timeout=2.5).content == "2.5 s"
    assert run_tool(call_with(None, name="plain"), tools, timeout=2.5).content == "ok"


def test_schema_is_a_chat_completions_tool_definition(tools):
    schema = tools[0].schema()
    assert schema["type"] == "function"
    assert schema["function"]["name"] == "read_file"
    assert schema["function"]["parameters"]["required"] == ["path"]
    assert [t.schema()["function"]["parameters"]["required"] for t in tools[1:]] == [
        [], ["path", "old", "new"], ["command"]]
    json.dumps([t.schema() for t in tools])  # sendable as is


def test_the_flags_come_from_the_tool_not_from_the_text(root):
    # A file whose text looks like an error is a success: only a ToolError is a failure.
    (root / "erreur.txt").write_text("Erreur : délai de 3 s dépassé, commande arrêtée")
    seen = run_tool(ToolCall("read_file", {"path": "erreur.txt"}), workspace_tools(root))
    assert seen == Observation("Erreur : délai de 3 s dépassé, commande arrêtée")


def test_tool_functions_raise_tool_errors_that_run_tool_turns_into_observations(tools):
    read_file = tools[0].function
    with pytest.raises(ToolError, match="^README.md introuvable$"):
        read_file(path="README.md")
    with pytest.raises(ToolError, match="^chemin refusé"):
        read_file(path="../outside/secret.txt")


def test_python_in_a_command_is_the_harness_s_own(tmp_path) -> None:
    """`python` in a bash command is the interpreter running the harness: there may be no
    other on PATH (Debian without python-is-python3), or a slow pyenv shim first."""
    from harness_lib.tools.shell import run

    out = run('python -c "import sys; print(sys.executable)"', tmp_path)
    assert out.splitlines()[0] == sys.executable
