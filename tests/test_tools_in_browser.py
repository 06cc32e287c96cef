"""The bash tool's browser path (harness_lib/tools/browser.py), run here in CPython: it is
plain Python, the same code Pyodide runs in the site (tests/test_site.py runs it there)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from harness_lib import Limits, MockModel, run, workspace_tools
from harness_lib.course import PRICE_TASK, example_workspace
from harness_lib.errors import ToolError, ToolTimeout
from harness_lib.messages import ToolCall
from harness_lib.tools import browser, run_tool


def test_the_shops_tests_run_in_process_and_see_the_fix() -> None:
    folder = example_workspace("prix")
    with pytest.raises(ToolError) as failed:
        browser.run("python test_price.py", folder, timeout=10)
    assert "2 tests en échec sur 5" in str(failed.value)
    assert str(failed.value).endswith("[code de sortie : 1]")
    price = folder / "price.py"
    price.write_text(price.read_text().replace("divmod(cents, 100)", "divmod(abs(cents), 100)")
                     .replace('return f"{euros}', 'return ("-" if cents < 0 else "") + f"{euros}'))
    # price.py was imported by the first run: read again, not taken from sys.modules
    assert browser.run("python test_price.py", folder, timeout=10).startswith("5 tests réussis")
    assert "price" not in sys.modules and os.getcwd() != str(folder)


def test_the_price_mission_runs_through_the_browser_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "emscripten")  # what tool.py's hook reads
    monkeypatch.setattr("harness_lib.tools.shell.run", None)  # would fail if it were used
    done = run(PRICE_TASK, MockModel(), workspace_tools(example_workspace("prix")))
    assert done.reason == "answer" and "5 tests réussis" in done.message


def test_time_is_up_between_two_lines_of_python_and_in_sleep(tmp_path: Path) -> None:
    for command in ("python -c 'i = 0\nwhile True:\n    i += 1'", "sleep 5"):
        start = time.monotonic()
        with pytest.raises(ToolTimeout, match="délai de 0,2 s dépassé, commande arrêtée"):
            browser.run(command, tmp_path, timeout=0.2)
        assert time.monotonic() - start < 3
    # a script that catches Exception does not swallow the deadline
    loop = "python -c 'while True:\n    try:\n        pass\n    except Exception:\n        pass'"
    with pytest.raises(ToolTimeout):
        browser.run(loop, tmp_path, timeout=0.2)
    assert sys.gettrace() is None or "browser" not in repr(sys.gettrace())


def test_a_sleep_cut_at_the_deadline_is_a_timeout_even_on_a_coarse_clock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A browser's clock may read just short of the deadline after sleeping up to it (CI,
    the site's 05): `sleep 60` under a 0.01 s limit is still cut, never « done »."""
    now = [100.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds - 1e-6  # woken a hair early, as a jittered clock reads it

    monkeypatch.setattr(browser.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(browser.time, "sleep", sleep)
    with pytest.raises(ToolTimeout):
        browser.run("sleep 60", tmp_path, timeout=0.01)
    assert "code de sortie\xa0: 0" in browser.run("sleep 0.001", tmp_path, timeout=5)


def test_the_loop_stops_on_the_tools_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "emscripten")
    done = run("Lance `sleep 5`", MockModel(), workspace_tools(example_workspace("mini")),
               limits=Limits(tool_timeout=0.01))
    assert done.reason == "timeout" and done.messages[-1]["content"].startswith("Erreur : délai")


def test_secrets_are_hidden_from_echo_and_from_scripts(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    monkeypatch.setenv("DEMO_API_KEY", "sk-or-v1-fausse")
    monkeypatch.setenv("DEMO_COULEUR", "bleu")
    seen = browser.run("echo clé=${DEMO_API_KEY:-absente} couleur=$DEMO_COULEUR", tmp_path, 5)
    assert seen.startswith("clé=absente couleur=bleu\n")
    script = "python -c 'import os; print(os.environ.get(\"DEMO_API_KEY\"))'"
    assert browser.run(script, tmp_path, 5).startswith("None\n")
    assert os.environ["DEMO_API_KEY"] == "sk-or-v1-fausse", "the kernel's environment is back"
    assert browser.run("echo '$DEMO_COULEUR'", tmp_path, 5).startswith("$DEMO_COULEUR\n")


@pytest.mark.parametrize("command, code, said", [
    ("sh absent.sh", 127, "sh : dans le navigateur, il n’y a pas de bash"),
    ("ls | wc -l", 127, "ni |, ;, &&, > ni <"),
    ("echo a > b.txt", 127, "une commande simple à la fois"),
    ("python absent.py", 2, "impossible d’ouvrir le fichier absent.py"),
    ("python -c 'raise ValueError(42)'", 1, "ValueError: 42"),
    ("python -c 'import sys; sys.exit(3)'", 3, ""),
    ("echo 'pas fermé", 2, "bash : No closing quotation"),
    ("sleep une", 1, "une durée en secondes attendue"),
    ("cat absent.txt", 1, "cat : absent.txt :"),
])
def test_what_the_browser_leaves_out_is_said(tmp_path: Path, command: str, code: int,
                                             said: str) -> None:
    with pytest.raises(ToolError) as failed:
        browser.run(command, tmp_path, timeout=5)
    assert said in str(failed.value) and f"[code de sortie : {code}]" in str(failed.value)
    assert not (tmp_path / "b.txt").exists()


def test_output_is_capped_like_bash(tmp_path: Path) -> None:
    said = browser.run("python -c 'print(\"x\" * 100_000)'", tmp_path, timeout=10)
    assert "[tronqué" in said and len(said.encode()) < 25_000


def test_run_tool_turns_it_into_observations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "emscripten")
    tools = workspace_tools(example_workspace("mini"))
    seen = run_tool(ToolCall("bash", {"command": "ls"}), tools)
    assert not seen.is_error and "README.md" in seen.content
    refused = run_tool(ToolCall("bash", {"command": "git status"}), tools)
    assert refused.is_error and "git : dans le navigateur" in refused.content


def test_in_the_browser_the_tab_is_the_sandbox_so_bash_is_not_held_for_a_yes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Pyodide starts no process and sees only the page's files: no question before bash there.
    from harness_lib.policy import DEFAULT_POLICY, check_permission
    from harness_lib.tools import sandbox

    monkeypatch.setattr(sys, "platform", "emscripten")
    assert sandbox.problem() is None
    call = ToolCall("bash", {"command": "python test_price.py"}, id="c1")
    assert check_permission(call, DEFAULT_POLICY).verdict == "allow"
