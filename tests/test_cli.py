"""`python -m harness_lib`: the demos, run --mock --debug, and the key never printed."""

from __future__ import annotations

import html
import os
import socket
import subprocess
import sys

import pytest
from cli_run import cli
from fake_ink import FakeInk, decode

from harness_lib.__main__ import main
from harness_lib.course.drawing.export import diagram_text
from harness_lib.course.drawing.mermaid import chapter_diagram, parse
from harness_lib.course.missions.scenarios import replay
from harness_lib.mock.missions import FIXED

KEY = "sk-or-v1-" + "0123456789abcdef" * 4


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
        "le message tool qui répond à call_1" in out and "juste après avoir exécuté l’outil" in out
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
    assert "edit_file" in done.stdout and "Tests : 5 tests réussis" in done.stdout
    # The example's copy it printed is still there once the command has ended: to look at.
    folder = done.stdout.split("Espace de travail : ", 1)[1].splitlines()[0]
    with open(os.path.join(folder, "price.py"), encoding="utf-8") as fixed:
        assert FIXED in fixed.read()


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


# `diagram`: the Mermaid text offline; an image through a (fake) mermaid.ink server.


def test_diagram_prints_the_chapter_text():
    done = cli("diagram", "deux_tours")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("sequenceDiagram") and "  autonumber\n" in done.stdout
    assert parse(done.stdout).steps == chapter_diagram("deux_tours").steps


def test_diagram_step_keeps_the_first_arrows(capsys):
    assert main(["diagram", "deux_tours", "--step", "3"]) == 0
    out = capsys.readouterr().out
    assert len(parse(out).steps) == 3 and out.count("->") == 3 and "rect rgba" in out


def test_diagram_of_a_saved_trace(tmp_path):
    trace = replay("tool-error").run.trace
    trace.save(tmp_path / "run.jsonl")
    done = cli("diagram", str(tmp_path / "run.jsonl"), "--out", str(tmp_path / "run.mmd"))
    assert done.returncode == 0, done.stderr
    assert len(parse((tmp_path / "run.mmd").read_text(encoding="utf-8")).steps) == len(
        trace.events
    )


@pytest.mark.parametrize("args", [("trois_tours",), ("deux_tours", "--step", "99")])
def test_diagram_errors_are_french_without_traceback(args):
    done = cli("diagram", *args)
    assert done.returncode == 2 and done.stderr.startswith("Erreur : ")
    assert ("ni un diagramme du chapitre" in done.stderr or "hors du diagramme" in done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_diagram_svg_through_the_server_of_the_environment(tmp_path):
    with FakeInk() as ink:
        done = cli("diagram", "erreur_outil", "--step", "2", "--out", str(tmp_path / "e.svg"),
                   env={"MERMAID_INK_SERVER": ink.url, "NO_PROXY": "127.0.0.1"})
    assert done.returncode == 0, done.stderr
    assert "e.svg" in done.stdout and ink.texts[0] == diagram_text("erreur_outil", 2)
    svg = (tmp_path / "e.svg").read_text(encoding="utf-8")
    assert html.escape(decode(ink.paths[0].split("/")[2])) in svg  # the server's drawing, kept


def test_diagram_image_offline_is_a_french_error(tmp_path):
    with socket.socket() as sock:  # a free port: nobody listens there
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    done = cli("diagram", "deux_tours", "--out", str(tmp_path / "d.png"),
               env={"MERMAID_INK_SERVER": url, "NO_PROXY": "127.0.0.1"})
    assert done.returncode == 2 and "Impossible de joindre le serveur Mermaid" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "d.png").exists()


# Bad input: a French message and exit code 2, never a traceback (argparse's own texts too).

BAD_INPUT = {
    "no-command": ((), "arguments obligatoires manquants : COMMANDE"),
    "unknown-command": (("lance",), "choix invalide : 'lance'"),
    "no-mission": (("run", "--mock"), "arguments obligatoires manquants : MISSION"),
    "max-turns-0": (("run", "--mock", "--max-turns", "0", "x"), "un entier ≥ 1 est attendu"),
    "max-turns--1": (("run", "--mock", "--max-turns=-1", "x"), "pas « -1 »"),
    "max-turns-abc": (("run", "--mock", "--max-turns", "abc", "x"), "pas « abc »"),
    "max-turns-missing": (("run", "--mock", "x", "--max-turns"), "une valeur est attendue"),
    "unknown-option": (("run", "--mock", "--vite", "x"), "arguments inconnus : --vite"),
    "empty-mission": (("run", "--mock", "  "), "La mission est vide"),
    "missing-workspace": (("run", "--mock", "--workspace", "/nulle/part", "x"), "n’existe pas"),
    "file-as-workspace": (("run", "--mock", "--workspace", __file__, "x"),
                          "n’est pas un dossier"),
    "unknown-demo": (("demo", "panne"), "choix invalide : 'panne'"),
    "step-0": (("diagram", "deux_tours", "--step", "0"), "un entier ≥ 1 est attendu"),
    "out-in-missing-folder": (("diagram", "deux_tours", "--out", "/nulle/part/d.mmd"),
                              "le dossier /nulle/part n’existe pas"),
    "empty-workspace": (("run", "--mock", "--workspace", "", "x"), "--workspace est vide"),
    "blank-workspace": (("run", "--mock", "--workspace", "  ", "x"), "--workspace est vide"),
    "empty-trace": (("run", "--mock", "--trace", "", "x"), "--trace est vide"),
    "gif-out": (("diagram", "deux_tours", "--out", "x.gif"),
                "extension « .gif » non prise en charge (possibles : .mmd, .svg, .png)"),
    "no-suffix-out": (("diagram", "deux_tours", "--out", "diagramme"),
                      "il manque l’extension"),
}


@pytest.mark.parametrize("args, words", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_is_a_french_message_and_exit_code_2(args, words):
    done = cli(*args)
    assert done.returncode == 2 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "error:" not in done.stderr
    assert "erreur" in done.stderr.lower()


TRACE_LINES = {
    "not-json": "pas du json",
    "not-an-object": "[1, 2]",
    "unknown-field": '{"kind": "task", "turn": 0, "text": "x", "couleur": "rouge"}',
    "missing-text": '{"kind": "task", "turn": 0}',
    "wrong-type": '{"kind": "task", "turn": "zéro", "text": "x"}',
    "unknown-kind": '{"kind": "danse", "turn": 0, "text": "x"}',
}


@pytest.mark.parametrize("line", TRACE_LINES.values(), ids=TRACE_LINES.keys())
def test_a_malformed_trace_line_is_named_in_french(tmp_path, line):
    header = '{"system": null, "tools_tokens": 0, "tools": []}'
    (tmp_path / "t.jsonl").write_text(f"{header}\n{line}\n", encoding="utf-8")
    done = cli("diagram", str(tmp_path / "t.jsonl"))
    assert done.returncode == 2 and "ligne 2 : " in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_help_is_in_french():
    done = cli("run", "--help")
    assert done.returncode == 0 and done.stdout.startswith("utilisation : ")
    assert "afficher cette aide et quitter" in done.stdout and "show this help" not in done.stdout
# `run --trace`: the run saved, to replay it in the player; never the key.


def test_run_trace_saves_a_replayable_run_without_the_key(tmp_path):
    from harness_lib.course.lessons.saved_trace import open_trace

    target = tmp_path / "ma_trace.jsonl"
    done = cli("run", "--mock", "Lis README.md et résume le projet", "--trace", str(target),
               env={"OPENROUTER_API_KEY": KEY})
    assert done.returncode == 0, done.stderr
    assert f"Trace enregistrée : {target}" in done.stdout
    trace = open_trace(target)
    assert [e.kind for e in trace.events][-1] == "answer"
    assert trace.messages[-1]["content"].startswith("Résumé")
    assert KEY not in target.read_text(encoding="utf-8")


def test_run_trace_into_a_missing_folder_stops_before_the_mission(tmp_path):
    done = cli("run", "--mock", "Bonjour", "--trace", str(tmp_path / "absent" / "t.jsonl"))
    assert done.returncode == 2 and done.stderr.startswith("Erreur : --trace")
    assert "n’existe pas" in done.stderr and "Espace de travail" not in done.stdout


# `run --trace-otel`: the run as OTLP/JSON GenAI spans (harness_lib/otel/), beside --trace.


def test_run_trace_otel_writes_spans_that_decode_and_load_back_to_the_same_steps(tmp_path):
    import json

    from otlp_json import decode

    from harness_lib.otel import load_otlp
    from harness_lib.trace import Trace

    trace, otel = tmp_path / "t.jsonl", tmp_path / "t.json"
    done = cli("run", "--mock", "Lis README.md et résume le projet", "--trace", str(trace),
               "--trace-otel", str(otel), env={"OPENROUTER_API_KEY": KEY})
    assert done.returncode == 0, done.stderr
    assert f"Trace OpenTelemetry enregistrée : {otel}" in done.stdout
    text = otel.read_text(encoding="utf-8")
    assert KEY not in text
    decoded = decode(json.loads(text))  # json_format.Parse into ExportTraceServiceRequest
    assert [s.name for s in decoded] == ["invoke_agent harness_lib", "chat mock",
                                         "execute_tool read_file", "chat mock"]
    provider = {a.key: a.value.string_value for a in decoded[1].attributes}
    assert provider["gen_ai.provider.name"] == "mock"
    saved, back = Trace.load(trace), load_otlp(otel)

    def steps(t):
        return [(e.kind, e.turn, e.data.get("tool"), e.data.get("id")) for e in t.events]

    assert steps(back) == steps(saved) and steps(saved)[-1][0] == "answer"
    assert [e.ledger for e in back.events] == [e.ledger for e in saved.events]


def test_trace_otel_without_its_packages_is_refused_before_the_run(tmp_path):
    # A folder that hides the installed opentelemetry (a package without `proto`), first
    # on the path: as where the `otel` extra is not installed.
    (tmp_path / "opentelemetry").mkdir()
    (tmp_path / "opentelemetry" / "__init__.py").write_text("")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = cli("run", "--mock", "Bonjour", "--trace-otel", str(tmp_path / "t.json"),
               env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{repo}"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "L’export OpenTelemetry demande les paquets opentelemetry-proto et protobuf" \
        in done.stderr and 'pip install "harness_lib[otel]"' in done.stderr
    assert "Espace de travail" not in done.stdout and not (tmp_path / "t.json").exists()


@pytest.mark.parametrize("name", ["t.jsonl", "t"])
def test_trace_otel_wants_a_json_file(tmp_path, name):
    done = cli("run", "--mock", "Bonjour", "--trace-otel", str(tmp_path / name))
    assert done.returncode == 2 and "(possibles : .json)" in done.stderr
    assert "Espace de travail" not in done.stdout
