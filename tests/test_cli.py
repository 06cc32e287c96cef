"""`python -m harness_lib`: the demos, run --mock --debug, and the key never printed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from harness_lib.__main__ import main

KEY = "sk-or-v1-" + "0123456789abcdef" * 4


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harness_lib", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    "name, expected",
    [
        ("normal", "Résumé"),
        ("missing-call", "preceeding message with 'tool_calls'"),
        ("missing-result", "did not have response messages: call_1"),
        ("tool-error", "Erreur : README.md introuvable"),
        ("max-turns", "Arrêt propre: maximum de 15 tours dépassé."),
    ],
)
def test_demo(name, expected, capsys):
    assert main(["demo", name]) == 0
    out = capsys.readouterr().out
    assert expected in out and "Message manquant" in out


def test_missing_demo_names_who_should_have_added_it(capsys):
    main(["demo", "missing-result"])
    out = capsys.readouterr().out
    assert (
        "le message tool qui répond à call_1" in out and "juste après avoir exécuté l'outil" in out
    )


def test_run_mock_debug_readme(tmp_path):
    done = cli(
        "run",
        "--mock",
        "--debug",
        "Lis README.md et résume le projet",
        env={"OPENROUTER_API_KEY": KEY},
    )
    assert done.returncode == 0, done.stderr
    assert "── Requête 1" in done.stdout and "── Requête 2" in done.stdout
    assert "read_file(path: string)" in done.stdout
    assert "[3] tool (call_1)" in done.stdout and "Mini harness" in done.stdout
    assert KEY not in done.stdout + done.stderr


def test_run_mock_debug_price():
    done = cli("run", "--mock", "--debug", "Corrige formatPrice pour les montants négatifs")
    assert done.returncode == 0, done.stderr
    assert "edit_file" in done.stdout and "Tests : OK" in done.stdout


def test_run_max_turns_option():
    done = cli("run", "--mock", "--max-turns", "2", "Attends que fini.txt apparaisse")
    assert done.returncode == 1 and "maximum de 2 tours" in done.stdout


def test_real_model_without_key_says_how_to_get_one():
    env = {k: v for k, v in os.environ.items() if k != "OPENROUTER_API_KEY"}
    done = subprocess.run(
        [sys.executable, "-m", "harness_lib", "run", "Bonjour"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and "OPENROUTER_API_KEY" in done.stderr and "--mock" in done.stderr
    assert "Traceback" not in done.stderr
