"""What a learner did is kept in progression.json and shown again (issue 34): questions,
predictions, ✏️ targets, « jouez le rôle du harness », 08's grade; « Recommencer »; a broken
file said in French, the widget still working, the file untouched; the course map."""

from __future__ import annotations

import html
import inspect
import json
import re
import runpy
from pathlib import Path

from harness_lib import minimal_loop
from harness_lib.course import (
    exporter_progression,
    grade,
    harness_exercise,
    progression,
    question,
    recommencer,
    solution,
    stop_targets,
    without,
)
from harness_lib.course.progress import read_progress


def shown(widget_html: str) -> str:
    """What a learner reads of a widget's HTML (tags out, spaces plain)."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", widget_html))
    return re.sub(r"\s+", " ", text.replace("\u202f", " ").replace("\xa0", " ")).strip()


def test_a_wrong_then_right_answer_is_shown_again_when_the_cell_runs_again(fresh_progress):
    asked = question("04-facture")
    asked.widget.value = "36 000"
    assert asked.check() is False
    again = question("04-facture")  # the cell run again
    assert again.widget.value == "36 000"
    assert "Votre réponse enregistrée" in shown(again.widget.feedback)
    assert "✘" in again.widget.feedback and again.tried  # the try is counted
    again.widget.value = "234 000"
    assert again.check() is True
    third = question("04-facture")
    assert third.widget.value == "234 000" and third.solved and "✔" in third.widget.feedback
    item = read_progress(fresh_progress).items["04-facture"]
    assert (item.kind, item.notebook, item.answer) == ("question", "04", "234 000")
    assert item.correct is True
    assert item.verdict.startswith("✔ Oui")


def test_a_choice_and_a_prediction_come_back(fresh_progress):
    choice = question("01-qui-execute")
    choice.widget.value = 1
    choice.check()
    guess = question("01-etape-5")  # an open question: written, then revealed
    guess.widget.value = "le harness lit le fichier"
    guess.reveal()
    assert question("01-qui-execute").widget.value == 1
    back = question("01-etape-5")
    assert back.widget.value == "le harness lit le fichier"
    assert "le harness lit le fichier" in shown(back.widget.feedback)
    assert read_progress(fresh_progress).items["01-etape-5"].kind == "prediction"


def test_recommencer_forgets_one_answer_or_a_notebook(fresh_progress, capsys):
    asked = question("04-facture")
    asked.widget.value = "36 000"
    asked.check()
    asked.restart()  # the « Recommencer » button
    assert asked.widget.value is None and asked.widget.feedback == "" and not asked.tried
    assert "04-facture" not in read_progress(fresh_progress).items
    assert question("04-facture").widget.feedback == ""
    for name in ("04-facture", "04-appels"):
        q = question(name)
        q.widget.value = 0 if name == "04-appels" else "1"
        q.check()
    recommencer("04")
    assert "2 réponses de 04 oubliées" in capsys.readouterr().out.replace("\u202f", " ")
    assert read_progress(fresh_progress).items == {}


def test_a_broken_file_is_said_and_never_overwritten(fresh_progress, capsys):
    fresh_progress.write_text("{ cassé", encoding="utf-8")
    asked = question("04-facture")
    said = shown(asked.widget.feedback)
    assert "Réponses précédentes non relues" in said and "progression.json" in said
    asked.widget.value = "234 000"
    assert asked.check() is True  # the question still works
    said = shown(asked.widget.feedback)
    assert said.startswith("✔") and "Réponse non enregistrée" in said and "recommencer()" in said
    assert fresh_progress.read_text(encoding="utf-8") == "{ cassé"
    assert "Votre fichier est laissé tel quel" in str(progression("04")).replace("\u202f", " ")
    recommencer()  # sets the broken file aside, renamed: nothing is lost
    kept = [p for p in fresh_progress.parent.iterdir() if "mise-de-cote" in p.name]
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == "{ cassé"
    assert "mise de côté" in capsys.readouterr().out and not fresh_progress.exists()


def test_targets_are_ticked_again(fresh_progress):
    goals = stop_targets()
    assert goals.check("budget") and goals.check("max_turns")
    again = stop_targets()
    assert again.done == {0, 2} and "déjà atteintes" in again.text()
    item = read_progress(fresh_progress).items["05-cibles"]
    assert (item.kind, item.score, item.out_of, item.correct) == ("exercise", 2, 4, False)


def test_playing_the_harness_is_kept(fresh_progress):
    from harness_lib.course.exercises.tool_message import SOLUTION

    played = harness_exercise()
    played.text.value = json.dumps(SOLUTION)
    played.check()
    again = harness_exercise()
    assert again.text.value == json.dumps(SOLUTION) and again.solved
    assert read_progress(fresh_progress).items["03-message-outil"].correct is True


def learner_loop(tmp_path: Path, broken: bool = False):
    """`ma_boucle` as a learner's cell defines it (module __main__), from the corrigé."""
    source = inspect.getsource(minimal_loop).replace("from .", "from harness_lib.")
    source = source.replace("def boucle(", "def ma_boucle(")
    if broken:
        source = source.replace("messages.append(tool_result", "(tool_result")  # RULE 2 gone
    cell = tmp_path / "cellule.py"
    cell.write_text(source, encoding="utf-8")
    return runpy.run_path(str(cell), run_name="__main__")["ma_boucle"]


def test_the_grade_of_the_learner_s_own_loop_is_kept_not_a_demonstration(tmp_path,
                                                                        fresh_progress):
    mine = learner_loop(tmp_path)
    assert grade(mine).ok
    item = read_progress(fresh_progress).items["08-grade"]
    assert (item.kind, item.correct, item.score, item.out_of) == ("grade", True, 5, 5)
    assert not grade(without("RULE 2", mine)).ok  # 08's demonstrations: not the learner's
    assert read_progress(fresh_progress).items["08-grade"] == item


def test_the_map_shows_what_is_done_and_left(tmp_path, fresh_progress):
    for name, answer in (("04-facture", "36 000"), ("04-appels", solution("04-appels"))):
        q = question(name)
        q.widget.value = answer
        q.check()
    grade(learner_loop(tmp_path))
    text = str(progression()).replace("\u202f", " ").replace("\xa0", " ")
    four = next(line for line in text.splitlines() if line.startswith("04 "))
    assert four == ("04 La boucle complète : questions justes : 1 sur 3 ; reste : "
                    "1 question à revoir, 1 question.")
    assert "08 Écrire la boucle : exercices réussis : 1 sur 1 ; dernière correction : 5 / 5" \
        in text and "tout est fait ✔" in text
    table = progression()._repr_html_()
    assert "<caption>" in table and "scope='row'" in table and "lang='fr'" in table


def test_the_exported_file_matches_what_was_done(tmp_path, fresh_progress, capsys):
    q = question("04-facture")
    q.widget.value = "234 000"
    q.check()
    grade(learner_loop(tmp_path, broken=True))
    exporter_progression("Ada Lovelace")
    said = capsys.readouterr().out
    name = re.search(r"«\s*(\S+?\.json)\s*»", said).group(1)
    back = read_progress(name)
    assert Path(name).name.startswith("progression-ada-lovelace-")
    assert back.learner == "Ada Lovelace"
    assert back.items["04-facture"].answer == "234 000" and back.items["04-facture"].correct
    graded = back.items["08-grade"]
    assert graded.correct is False and graded.score < 5 and graded.verdict.endswith("réussies.")
    assert back.items == read_progress(fresh_progress).items


def test_targets_and_the_grader_work_on_a_broken_file_and_say_so(tmp_path, fresh_progress):
    fresh_progress.write_text("[]", encoding="utf-8")  # JSON, but not a progress file
    goals = stop_targets()
    assert "Réponses précédentes non relues" in goals.text()
    assert goals.check("budget")  # ticked all the same
    assert "Réponse non enregistrée" in goals.text()
    report = grade(learner_loop(tmp_path))
    assert report.ok and any("Correction non enregistrée" in note for note in report.notes)
    assert "Correction non enregistrée" in report.text()
    assert fresh_progress.read_text(encoding="utf-8") == "[]"
