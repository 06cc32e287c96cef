"""The learner's progress file (harness_lib/course/progress/, spec: progress-format v1):
what is recorded is read back the same, a broken file is said in French (file and field)
and never overwritten, an export is a faithful copy, and no API key is ever written."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness_lib.course.progress import (
    ENV_PATH,
    FORMAT,
    KINDS,
    Item,
    Progress,
    ProgressError,
    export_progress,
    forget,
    progress_path,
    read_progress,
    record,
    set_aside,
    write_progress,
)
from harness_lib.errors import HarnessError

AT = "2026-12-02T10:15:00+00:00"


def good_file() -> dict:
    return {"format": FORMAT, "version": 1, "learner": "", "updated": AT,
            "items": {"04-facture": {"kind": "question", "notebook": "04", "answer": "36 000",
                                     "correct": False, "verdict": "Non.", "score": None,
                                     "out_of": None, "at": AT}}}


def test_a_recorded_answer_is_read_back_as_it_was(tmp_path: Path):
    path = tmp_path / "progression.json"
    record("01-qui", Item("question", "01", answer=1, correct=True, verdict="Oui."), path)
    record("08-grade", Item("grade", "08", correct=False, verdict="3 missions sur 5",
                            score=3, out_of=5), path)
    progress = read_progress(path)
    assert set(progress.items) == {"01-qui", "08-grade"}
    assert progress.items["01-qui"] == Item("question", "01", 1, True, "Oui.", None, None,
                                            progress.items["01-qui"].at)
    graded = progress.items["08-grade"]
    assert graded.score == 3 and progress.updated == graded.at
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == FORMAT and data["version"] == 1


def test_recording_again_replaces_the_earlier_answer(tmp_path: Path):
    path = tmp_path / "progression.json"
    record("04-facture", Item("question", "04", answer="36 000", correct=False), path)
    record("04-facture", Item("question", "04", answer="234 000", correct=True), path)
    assert read_progress(path).items["04-facture"].answer == "234 000"


def test_a_missing_file_is_an_error_unless_allowed(tmp_path: Path):
    with pytest.raises(ProgressError, match="introuvable"):
        read_progress(tmp_path / "progression.json")
    assert read_progress(tmp_path / "progression.json", missing_ok=True) == Progress()


BROKEN = [
    ("{ pas du json", "n’est pas un fichier JSON lisible"),
    ("[]", "doit être un objet JSON"),
    (json.dumps({**good_file(), "format": "autre"}), "« format »"),
    (json.dumps({**good_file(), "version": 2}), "« version » doit être 1"),
    (json.dumps({**good_file(), "version": True}), "« version »"),
    (json.dumps({**good_file(), "updated": "hier"}), "« updated » doit être une date"),
    (json.dumps({**good_file(), "items": []}), "« items » doit être un objet"),
    (json.dumps({**good_file(), "learner": "x" * 81}), "« learner » dépasse 80"),
]


def item_changed(**fields: object) -> str:
    data = good_file()
    data["items"]["04-facture"].update(fields)
    return json.dumps(data)


BROKEN += [
    (item_changed(correct="oui"), "« items.04-facture.correct » doit être true, false ou null "
                                  "(reçu : une chaîne (str))"),
    (item_changed(kind="quiz"), "« items.04-facture.kind » doit être l’un de : question"),
    (item_changed(notebook="4"), "« items.04-facture.notebook »"),
    (item_changed(score="3"), "« items.04-facture.score » doit être un nombre"),
    (item_changed(score=True), "« items.04-facture.score »"),
    (item_changed(at=None), "« items.04-facture.at »"),
]


@pytest.mark.parametrize(("text", "said"), BROKEN)
def test_a_broken_file_is_said_in_french_with_its_name_and_field(tmp_path: Path, text, said):
    path = tmp_path / "progression.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProgressError) as caught:
        read_progress(path)
    assert said in str(caught.value) and str(path) in str(caught.value)
    assert isinstance(caught.value, HarnessError)
    # The learner's file is never overwritten: recording refuses, the bytes stay.
    with pytest.raises(ProgressError):
        record("01-qui", Item("question", "01", answer=0, correct=True), path)
    assert path.read_text(encoding="utf-8") == text


def test_unknown_keys_are_ignored(tmp_path: Path):
    data = good_file()
    data["plus_tard"] = 1
    data["items"]["04-facture"]["indice"] = "vu"
    path = tmp_path / "progression.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert read_progress(path).items["04-facture"].verdict == "Non."


def test_a_fifo_or_a_huge_file_is_refused_without_waiting(tmp_path: Path):
    fifo = tmp_path / "progression.json"
    os.mkfifo(fifo)
    with pytest.raises(ProgressError, match="tube nommé"):
        read_progress(fifo)
    big = tmp_path / "gros.json"
    big.write_bytes(b" " * 2_000_001)
    with pytest.raises(ProgressError, match="trop gros"):
        read_progress(big)


def test_a_write_that_cannot_happen_is_a_french_error(tmp_path: Path):
    with pytest.raises(ProgressError, match="progression non enregistrée"):
        write_progress(tmp_path / "absent" / "progression.json", Progress(updated=AT))


def test_no_api_key_is_ever_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    key = "sk-or-v1-0123456789abcdef"
    monkeypatch.setenv("OPENROUTER_API_KEY", key)
    path = tmp_path / "progression.json"
    record("02-prediction", Item("prediction", "02", answer=f"ma clé est {key}",
                                 verdict=f"vu {key}"), path)
    exported = export_progress(path, learner=f"Ada {key}", day=date(2026, 12, 2))
    for written in (path, exported):
        text = written.read_text(encoding="utf-8")
        assert key not in text and "***" in text


def test_forget_starts_some_items_over(tmp_path: Path):
    path = tmp_path / "progression.json"
    for name in ("01-a", "01-b", "02-c"):
        record(name, Item("question", name[:2], answer=0, correct=True), path)
    assert set(forget(["01-a", "01-b"], path).items) == {"02-c"}
    assert set(read_progress(path).items) == {"02-c"}


def test_set_aside_keeps_a_broken_file_under_another_name(tmp_path: Path):
    path = tmp_path / "progression.json"
    path.write_text("abîmé", encoding="utf-8")
    kept = set_aside(path)
    assert kept is not None and kept.read_text(encoding="utf-8") == "abîmé"
    assert "mise-de-cote" in kept.name and not path.exists()
    assert set_aside(path) is None
    record("01-qui", Item("question", "01", answer=1, correct=True), path)  # a fresh start
    assert list(read_progress(path).items) == ["01-qui"]


def test_the_export_is_read_back_as_what_was_done(tmp_path: Path):
    path = tmp_path / "progression.json"
    record("04-facture", Item("question", "04", answer="36 000", correct=False,
                              verdict="Non : 234 000."), path)
    record("08-grade", Item("grade", "08", correct=True, verdict="5 missions sur 5",
                            score=5, out_of=5), path)
    out = tmp_path / "rendu"
    out.mkdir()
    exported = export_progress(path, learner="  Ada Lovelace ", folder=out, day=date(2026, 12, 2))
    assert exported == out / "progression-ada-lovelace-2026-12-02.json"
    back = read_progress(exported)
    assert back.learner == "Ada Lovelace" and back.items == read_progress(path).items
    anonymous = export_progress(path, day=date(2026, 12, 3))
    assert anonymous.name == "progression-anonyme-2026-12-03.json"


def test_the_file_s_place_can_be_set_by_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path):
    monkeypatch.delenv(ENV_PATH, raising=False)
    assert progress_path() == Path("progression.json")
    monkeypatch.setenv(ENV_PATH, str(tmp_path / "p.json"))
    assert progress_path() == tmp_path / "p.json"


JSON_ANSWER = st.none() | st.integers(-10**6, 10**6) | st.text(max_size=50) \
    | st.floats(allow_nan=False, allow_infinity=False)
NOTEBOOKS = st.sampled_from(["00", "08", "annexe"])
ITEMS = st.builds(Item, kind=st.sampled_from(KINDS), notebook=NOTEBOOKS,
                  answer=JSON_ANSWER, correct=st.none() | st.booleans(),
                  verdict=st.text(max_size=40), score=st.none() | st.integers(0, 20),
                  out_of=st.none() | st.integers(1, 20), at=st.just(AT))


@given(st.dictionaries(st.text(min_size=1, max_size=12), ITEMS, max_size=5))
def test_any_progress_written_is_read_back_equal(tmp_path_factory, items):
    path = tmp_path_factory.mktemp("p") / "progression.json"
    progress = Progress(learner="Ada", updated=AT, items=items)
    write_progress(path, progress)
    assert read_progress(path) == progress


def _record_at_once(path: str, name: str, start) -> None:  # in a process of its own
    start.wait()
    record(name, Item("question", "02", answer=name, correct=True, verdict="Oui."), path)


def test_two_kernels_recording_at_once_lose_nothing(tmp_path: Path):
    """Two notebooks open (two kernels) record at the same moment: each reads the file, adds
    its answer and writes it back; without a lock, the last write drops the others' answers."""
    import multiprocessing

    path = tmp_path / "progression.json"
    context = multiprocessing.get_context("fork")
    names = [f"02-q{k}" for k in range(12)]
    for attempt in range(3):  # a race: several rounds of twelve writers released together
        start = context.Barrier(len(names))
        workers = [context.Process(target=_record_at_once, args=(str(path), f"{n}-{attempt}",
                                                                  start)) for n in names]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        assert [w.exitcode for w in workers] == [0] * len(names)
    kept = read_progress(path).items
    assert sorted(kept) == sorted(f"{n}-{a}" for n in names for a in range(3))
    assert [p.name for p in tmp_path.iterdir()] == ["progression.json"]  # no lock file left


def test_where_no_lock_can_be_taken_the_answer_is_still_kept(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch):
    """The browser's kernel (Pyodide) has an fcntl module without flock; Windows has none."""
    import sys
    import types

    path = tmp_path / "progression.json"
    for fcntl in (types.ModuleType("fcntl"), None):  # Pyodide's, then none at all
        monkeypatch.setitem(sys.modules, "fcntl", fcntl)
        name = "02-pyodide" if fcntl is not None else "02-windows"
        record(name, Item("question", "02", answer="x", correct=True, verdict="Oui."), path)
    assert sorted(read_progress(path).items) == ["02-pyodide", "02-windows"]
