"""The teacher's commands, in real subprocesses: `classe` on a class's progress files (30
generated, two broken) and `lien-hub`'s nbgitpuller link. Speed: bench/classe.py."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from class_files import make_class
from cli_run import cli

from harness_lib.course.progress import read_progress


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("classe")
    make_class(folder, 30, broken=2)
    (folder / "notes.txt").write_text("pas un fichier de progression", encoding="utf-8")
    return folder


def test_the_class_is_read_and_the_broken_files_are_named(room: Path, tmp_path: Path) -> None:
    table = tmp_path / "classe.csv"
    done = cli("classe", str(room), "--csv", str(table))
    assert done.returncode == 1, done.stderr  # two files set aside: said by the exit code too
    errors = done.stderr.splitlines()
    assert len(errors) == 2 and all(line.startswith("Fichier mis de côté") for line in errors)
    assert "progression-eleve-0029-2026-12-02.json" in errors[0] and "JSON" in errors[0]
    assert "progression-eleve-0030-2026-12-02.json" in errors[1]
    assert "items.01-inconnu-etape-5.correct" in errors[1] and "true, false ou null" in errors[1]
    assert "Traceback" not in done.stderr
    out = done.stdout.replace("\u00a0", " ").replace("\u202f", " ")
    assert out.startswith("28 apprenants (2 fichiers illisibles)")
    assert "Par apprenant" in out and "Par question (les plus manquées d’abord)" in out
    assert len(re.findall(r"^Élève \d\d ", out, re.M)) == 28


def test_the_question_table_puts_the_most_missed_first(room: Path) -> None:
    out = cli("classe", str(room)).stdout
    lines = out[out.index("Par question"):].splitlines()[3:]
    rows = [line.split() for line in lines if re.match(r"\d\d-", line)]
    missed = [int(row[-2]) / int(row[2]) for row in rows]
    assert missed == sorted(missed, reverse=True) and missed[0] > 0.5 > missed[-1]
    first = read_progress(room / "progression-eleve-0001-2026-12-02.json")
    assert {row[0] for row in rows} == {n for n, i in first.items.items()
                                        if i.correct is not None}


def test_the_csv_reads_back_as_the_files_say(room: Path, tmp_path: Path) -> None:
    table = tmp_path / "classe.csv"
    cli("classe", str(room), "--csv", str(table))
    assert table.read_bytes().startswith(b"\xef\xbb\xbf")  # a BOM: a spreadsheet reads UTF-8
    with table.open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f, delimiter=";"))
    assert len(rows) == 28 and rows[0]["apprenant"] == "Élève 01"
    for row in rows:
        kept = read_progress(room / row["fichier"])
        assert row["score_09_sur_20"] == f"{kept.items['09-score'].score:g}"
        assert row["note_08"] == f"{kept.items['08-grade'].score:g}"
        for name, item in kept.items.items():
            if item.correct is not None:
                assert row[name] == str(int(item.correct)), (row["fichier"], name)
        assert int(row["justes"]) == sum(row[n] == "1" for n in row if n[:2].isdigit())


def test_bad_input_is_a_french_error_and_nothing_is_read(tmp_path: Path, room: Path) -> None:
    missing = cli("classe", str(tmp_path / "absent"))
    assert missing.returncode == 2 and "n’est pas un dossier" in missing.stderr
    empty = cli("classe", str(tmp_path))
    assert empty.returncode == 2 and "aucun fichier de progression" in empty.stderr
    nowhere = cli("classe", str(room), "--csv", str(tmp_path / "absent" / "c.csv"))
    assert nowhere.returncode == 2 and "n’existe pas" in nowhere.stderr and not nowhere.stdout
    wrong = cli("classe", str(room), "--csv", str(tmp_path / "c.xlsx"))
    assert wrong.returncode == 2 and "extension" in wrong.stderr
    for done in (missing, empty, nowhere, wrong):
        assert "Traceback" not in done.stderr


def test_the_hub_link_is_nbgitpuller_s(tmp_path: Path) -> None:
    done = cli("lien-hub", "https://hub.exemple.fr/")
    assert done.returncode == 0, done.stderr
    link = done.stdout.strip()
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == \
        ("https", "hub.exemple.fr", "/hub/user-redirect/git-pull")
    assert re.fullmatch(r"repo=[^&:/]+&branch=main&urlpath=[^&:/]+", parts.query), parts.query
    query = parse_qs(parts.query)
    assert query == {"repo": ["https://github.com/la-boucle-agentique/la-boucle-agentique"],
                     "branch": ["main"],
                     "urlpath": ["lab/tree/la-boucle-agentique/notebooks/00_bienvenue.ipynb"]}
    # The same repository and branch as README's Binder badge, and the README documents it.
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    badge = re.search(r"mybinder\.org/v2/gh/([\w-]+/[\w-]+)/([\w-]+)\?", readme)
    assert badge and query["repo"] == [f"https://github.com/{badge[1]}"]
    assert query["branch"] == [badge[2]] and "python -m harness_lib lien-hub https://" in readme


def test_the_hub_link_follows_another_repository_and_branch() -> None:
    done = cli("lien-hub", "http://127.0.0.1:8000/jupyter", "--depot",
               "https://gitlab.exemple.fr/cours/boucle.git", "--branche", "cours-2026")
    query = parse_qs(urlsplit(done.stdout.strip()).query)
    assert done.stdout.startswith("http://127.0.0.1:8000/jupyter/hub/user-redirect/git-pull?")
    assert query["branch"] == ["cours-2026"]
    assert query["urlpath"] == ["lab/tree/boucle/notebooks/00_bienvenue.ipynb"]


@pytest.mark.parametrize("hub", ["hub.exemple.fr", "ftp://hub.exemple.fr", "https://",
                                 "https://hub.exemple.fr/?x=1", ""])
def test_a_bad_hub_address_is_a_french_error(hub: str) -> None:
    done = cli("lien-hub", hub)
    assert done.returncode == 2 and "l’adresse du hub doit commencer par https://" in \
        done.stderr.replace("\u00a0", " ") and "Traceback" not in done.stderr


def test_a_learner_s_name_never_becomes_a_spreadsheet_formula(tmp_path: Path) -> None:
    from harness_lib.course.progress import Item, export_progress, record

    path = tmp_path / "progression.json"
    record("04-facture", Item("question", "04", answer="234 000", correct=True), path)
    folder = tmp_path / "rendus"
    folder.mkdir()
    export_progress(path, learner='=HYPERLINK("http://x","y")', folder=folder)
    table = tmp_path / "c.csv"
    assert cli("classe", str(folder), "--csv", str(table)).returncode == 0
    with table.open(encoding="utf-8-sig", newline="") as f:
        row = next(csv.DictReader(f, delimiter=";"))
    assert row["apprenant"] == '\'=HYPERLINK("http://x","y")' and row["04-facture"] == "1"
