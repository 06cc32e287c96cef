"""Exercises: the harness's tool message checked field by field, and the question widgets."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness_lib.course.exercises.french import typography
from harness_lib.course.exercises.questions import QUESTIONS
from harness_lib.course.exercises.widgets import (
    SKELETON,
    SOLUTION,
    Checked,
    Feedback,
    Numeric,
    Prediction,
    Question,
    ShortText,
    check_answer,
    check_tool_message,
    exercise,
    harness_exercise,
    solution,
)
from harness_lib.course.exercises.widgets import question as question_by_id

FIELDS = ["role", "tool_call_id", "content", "invention", "champs"]
CHAPTER = ('{ "role": "tool", "tool_call_id": "call_1", '
           '"content": "Erreur : README.md introuvable" }')


def failing(candidate: object) -> dict[str, str]:
    return {f.field: f.text for f in check_tool_message(candidate) if not f.ok}


@pytest.mark.parametrize("candidate", [SOLUTION, json.dumps(SOLUTION), CHAPTER,
                                       json.dumps(SOLUTION, indent=2, ensure_ascii=False),
                                       {**SOLUTION, "content": "Erreur : README.md n’existe pas"}])
def test_the_model_solution_passes_every_check(candidate: object) -> None:
    feedback = check_tool_message(candidate)
    assert [f.field for f in feedback] == FIELDS
    assert all(f.ok for f in feedback), feedback


@pytest.mark.parametrize(("change", "field", "words"), [
    ({"role": "assistant"}, "role", ['"assistant"', "modèle", '"tool"']),
    ({"role": "user"}, "role", ['"user"', "personne", '"tool"']),
    ({"role": None}, "role", ["null", '"tool"']),
    ({"tool_call_id": "call_2"}, "tool_call_id", ['"call_2"', '"call_1"']),
    ({"tool_call_id": "Call_1 "}, "tool_call_id", ['"Call_1 "', "presque", "exactement"]),
    ({"tool_call_id": 1}, "tool_call_id", ["vaut 1", '"call_1"']),
    ({"content": None}, "content", ["null", "texte"]),
    ({"content": {"error": "absent"}}, "content", ['{"error": "absent"}', "texte"]),
    ({"content": "Erreur : fichier introuvable"}, "content", ["README.md"]),
    ({"content": "README.md"}, "content", ["mot d’erreur"]),
    ({"content": "Erreur : README.md introuvable. " + "Le projet est un harness. " * 8},
     "invention", ["contenu inventé", "long texte"]),
    ({"content": "Erreur : README.md introuvable\n# Mini harness"}, "invention",
     ["contenu inventé", "titre markdown"]),
    ({"tool_calls": []}, "champs", ["tool_calls", "assistant"]),
    ({"is_error": True}, "champs", ["is_error", "role, tool_call_id et content"]),
])
def test_each_mistake_gets_its_own_precise_feedback(change: dict[str, Any], field: str,
                                                    words: list[str]) -> None:
    wrong = failing({**SOLUTION, **change})
    assert list(wrong) == [field]
    assert all(word in wrong[field] for word in words), wrong[field]


def test_missing_fields_are_named() -> None:
    assert "Il manque tool_call_id" in failing({"role": "tool", "content": "Erreur : README.md "
                                                "introuvable"})["tool_call_id"]
    wrong = failing({"role": "tool", "tool_call_id": "call_1"})
    assert list(wrong) == ["content"] and "manque" in wrong["content"]
    assert "vaut null" in failing({"tool_call_id": "call_1", "content": "Erreur : README.md "
                                   "absent"})["role"]


def test_the_real_file_content_is_flagged_as_invented() -> None:
    wrong = failing({**SOLUTION, "content": "# Mini harness\nUne boucle et un outil."})
    assert set(wrong) == {"content", "invention"}
    assert wrong["invention"].startswith("Le modèle ne doit pas recevoir un contenu inventé")


def test_an_assistant_style_answer_fails_several_checks() -> None:
    wrong = failing({"role": "assistant", "content": "Le projet est un harness minimal."})
    assert set(wrong) == {"role", "tool_call_id", "content"}


@pytest.mark.parametrize(("text", "words"), [
    ("{'role': 'tool'}", ["ligne 1, colonne 2", "guillemets doubles"]),
    ('{"role": "tool" "tool_call_id": "call_1"}', ["colonne 17", "virgule"]),
    ('{\n  "role": "tool",\n  "content": None\n}', ["ligne 3", "None"]),
    ('{"role": "tool",}', ["ligne 1", "guillemets doubles"]),
    ('{“role”: "tool"}', ["guillemets “ ”"]),
    ('{"content": "Erreur\nici"}', ["retour à la ligne", "\\n"]),
    ('{"role": "tool"} }', ["en trop"]),
    ('{"role": "tool', ["jamais fermée"]),
    ("   ", ["vide"]),
])
def test_bad_json_gets_line_column_and_cause_in_french(text: str, words: list[str]) -> None:
    feedback = check_tool_message(text)
    assert [(f.field, f.ok) for f in feedback] == [("json", False)]
    assert all(word in feedback[0].text for word in words), feedback[0].text


@pytest.mark.parametrize(("candidate", "words"), [
    ([SOLUTION], ["crochets"]), (None, ["null"]), (42, ["nombre"]),
    ('"Erreur : README.md introuvable"', ["un texte"]), (object(), ["objet Python object"]),
])
def test_not_a_message_at_all(candidate: object, words: list[str]) -> None:
    feedback = check_tool_message(candidate)
    assert [f.field for f in feedback] == ["message"] and not feedback[0].ok
    assert all(word in feedback[0].text for word in words)


@settings(max_examples=300)
@given(st.text() | st.recursive(st.none() | st.integers() | st.text(max_size=30),
                                lambda x: st.lists(x, max_size=3) | st.dictionaries(
                                    st.sampled_from(["role", "tool_call_id", "content", "id"]),
                                    x, max_size=4)))
def test_check_never_raises(candidate: object) -> None:
    feedback = check_tool_message(candidate)
    assert feedback and all(isinstance(f, Feedback) and f.text for f in feedback)
    as_json = check_tool_message(json.dumps(candidate))  # the same, typed in the textarea
    assert [f.ok for f in as_json] == [f.ok for f in feedback] or isinstance(candidate, str)


# --- Widgets ---


def question() -> Question:
    return Question("<b>Que sait le modèle avant le résultat ?</b>",
                    ["Le contenu de README.md", "Seulement sa propre demande d’outil",
                     "Tout le dossier de travail"],
                    correct=1, feedback=["Le fichier n’a pas encore été lu.",
                                         "Il a demandé read_file, rien de plus.",
                                         "Rien du dossier n’entre sans un outil."])


def click(q: Checked | Prediction, event: str, value: object = None) -> str:
    """What the page sends on a click (question.js): the event and the answer given;
    the feedback the kernel writes back."""
    q.widget._handle_custom_msg({"event": event, "value": value}, [])
    return q.widget.feedback


def answer(q: Checked, value: object) -> str:
    return click(q, "check", value)


def test_question_asks_for_a_choice_first() -> None:
    q = question()
    assert "Choisissez" in click(q, "check") and q.attempts == 0


def test_a_wrong_answer_shows_its_own_feedback_only_and_leaves_a_second_try() -> None:
    q = question()
    shown = answer(q, 0)
    assert not q.solved and not q.revealed and "✘" in shown
    assert "pas encore été lu" in shown and "Essayez encore" in shown
    # neither the right choice nor its feedback, nor another option's feedback
    assert "Seulement sa propre demande" not in shown and "read_file" not in shown
    assert "Rien du dossier" not in shown


def test_the_same_wrong_answer_twice_costs_no_try() -> None:
    q = question()
    answer(q, 0)
    shown = answer(q, 0)
    assert "déjà essayé" in shown and not q.revealed and q.attempts == 1


def test_the_second_wrong_answer_reveals_the_right_one() -> None:
    q = question()
    answer(q, 0)
    shown = answer(q, 2)
    assert q.revealed and not q.solved
    assert "Rien du dossier" in shown and "pas encore été lu" not in shown
    assert "Seulement sa propre demande" in shown and "read_file" in shown


def test_a_right_answer_after_a_wrong_one_is_solved() -> None:
    q = question()
    answer(q, 2)
    shown = answer(q, 1)
    assert q.solved and shown.startswith("<p>✔") and "read_file" in shown
    assert q.attempts == 2


def test_voir_la_reponse_reveals_at_any_time() -> None:
    q = question()
    assert "Seulement sa propre demande" in click(q, "show") and q.revealed
    assert q.widget.value is None


def test_check_answer_grades_without_touching_the_widget() -> None:
    q = question()
    assert q.check_answer(1) and not q.check_answer(0) and not q.check_answer(None)
    assert q.widget.feedback == "" and q.attempts == 0 and q.solution == 1


def test_each_question_is_independent() -> None:
    first, second = question(), question()
    answer(first, 1)
    assert first.solved and first.widget.value == 1
    assert second.widget.feedback == "" and second.widget.value is None
    assert first.widget is not second.widget


def test_question_needs_one_feedback_per_choice() -> None:
    with pytest.raises(ValueError):
        Question("?", ["a", "b"], correct=0, feedback=["seulement un"])


def test_question_displays_a_widget_with_a_text_fallback() -> None:
    bundle = question()._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "Seulement sa propre demande" in bundle["text/plain"]
    assert "<b>" not in bundle["text/plain"]


BILL = Numeric("Combien de tokens facturés ?", 234_000, unit="tokens",
               mistakes={432_000: "Comme si chaque appel envoyait le dernier contexte."},
               too_low="Additionnez les douze envois.", explanation="3 000 × 78.")


def test_numeric_feedback_then_second_try_then_answer() -> None:
    q = exercise(BILL)
    shown = answer(q, "432 000")
    assert "dernier contexte" in shown and "234" not in shown and not q.revealed
    assert "déjà essayé" in answer(q, "432000")  # the same number, typed differently
    shown = answer(q, "100 000")
    assert "Trop bas" in shown and "Additionnez" in shown
    assert q.revealed and "La réponse\u00a0: 234\u202f000 tokens. 3\u202f000 × 78." in shown


def test_numeric_unreadable_input_costs_no_try() -> None:
    q = exercise(BILL)
    shown = answer(q, "deux cent mille")
    assert "n’est pas un nombre" in shown and q.attempts == 0 and not q.revealed
    assert answer(q, "234 000 tokens").startswith("<p>✔") and q.solved


def test_short_text_accepts_variants_and_explains_known_mistakes() -> None:
    q = exercise(ShortText("Quel champ ?", ["tool_call_id"], feedback="Il relie.",
                           mistakes={"id": "id est le champ de la demande."}))
    assert "champ de la demande" in answer(q, " ID ")
    assert "déjà essayé" in answer(q, "id")
    assert answer(q, "« Tool_Call_ID »").startswith("<p>✔") and q.solved


def test_widgets_show_french_typography() -> None:
    q = exercise(ShortText("Quel champ ?", ["tool_call_id"]))
    assert "«\u00a0tool_call_id\u00a0»" in click(q, "show")
    assert q.widget.prompt == "Quel champ\u202f?" and q.widget.kind == "text"
    assert typography("L'API refuse 12 000 'call_9'") == "L’API refuse 12\u202f000 'call_9'"


def test_the_course_questions_are_built_by_id() -> None:
    widget = question_by_id("07-missing-call")
    assert isinstance(widget, Checked) and widget.solution == 1
    open_question = question_by_id("05-vingt-tours")
    assert isinstance(open_question, Prediction)
    assert open_question.widget.show_label == "Voir la réponse modèle"
    assert (open_question.widget.kind, open_question.widget.check_label) == ("open", "")
    with pytest.raises(KeyError, match="question inconnue"):
        question_by_id("99-nulle-part")


def test_prediction_reveals_the_answer_with_the_learners_guess_escaped() -> None:
    p = Prediction("Que sait le modèle ?", "<p>Seulement sa demande : call_1.</p>")
    assert p.widget.feedback == ""
    shown = click(p, "show", "<b>rien</b>")
    assert "&lt;b&gt;rien&lt;/b&gt;" in shown and "call_1" in shown
    assert p.widget.value == "<b>rien</b>", "the learner's text stays in the field"
    empty = Prediction("?", "<p>réponse</p>")
    shown = click(empty, "show", "")
    assert "Rien d’écrit" in shown and "réponse" in shown


def test_harness_exercise_from_skeleton_to_solution() -> None:
    ex = harness_exercise()
    assert ex.text.value == SKELETON
    ex.button.click()
    assert "✘" in ex.feedback.value and not ex.solved
    ex.text.value = json.dumps(SOLUTION, ensure_ascii=False)
    ex.button.click()
    assert ex.solved and "✘" not in ex.feedback.value
    assert ex.feedback.value.count("✔") == 5 and "Bravo" in ex.feedback.value


@pytest.mark.parametrize("text", ["{{{", "", "null", "[]", '{"role": 1e999}', "[" * 5000])
def test_harness_exercise_never_raises(text: str) -> None:
    ex = harness_exercise()
    ex.text.value = text
    ex.button.click()
    assert "✘" in ex.feedback.value


def test_harness_exercise_shows_a_solution_after_three_failures_or_on_demand() -> None:
    ex, other = harness_exercise(), harness_exercise()
    for _ in range(3):
        assert "Une solution" not in ex.feedback.value
        ex.button.click()
    assert "Une solution" in ex.feedback.value and "introuvable" in ex.feedback.value
    assert other.feedback.value == "" and other.attempts == 0
    other.show.click()
    assert "Une solution" in other.feedback.value and other.attempts == 0


def test_a_notebook_checks_an_answer_by_id_without_building_a_widget() -> None:
    from ipywidgets.widgets.widget import _instances  # every widget model of the kernel

    before = len(_instances)
    assert check_answer("04-facture", "234 000") and not check_answer("04-facture", 36_000)
    assert not check_answer("05-vingt-tours", "anything")  # an open question has no right answer
    assert solution("05-vingt-tours") == QUESTIONS["05-vingt-tours"].model_answer
    assert solution("04-appels") == QUESTIONS["04-appels"].solution
    assert len(_instances) == before, "no widget model, so no kernel message"
    with pytest.raises(KeyError, match="question inconnue"):
        check_answer("04-nulle-part", 1)


def test_a_question_is_one_widget_model_and_ignores_odd_messages() -> None:
    from ipywidgets.widgets.widget import _instances  # every widget model of the kernel

    before = len(_instances)
    q = question_by_id("04-facture")
    assert len(_instances) - before == 2, "the question and its layout"
    for odd in (None, "check", {"event": "ailleurs", "value": 1}, {"value": "234 000"}):
        q.widget._handle_custom_msg(odd, [])  # a message the page never sends: no effect
    assert q.widget.feedback == "" and q.attempts == 0 and q.widget.value is None
    assert "nombre" in click(q, "check", ["234 000"]) and q.widget.value is None
    assert click(q, "check", "234 000").startswith("<p>✔") and q.solved
    choice = question_by_id("07-normal")
    assert "Choisissez" in click(choice, "check", True) and choice.attempts == 0


class Hostile:
    """An answer that refuses to be read: its str(), repr(), == and hash raise."""

    def _no(self, *_args: object) -> object:
        raise RuntimeError("illisible")

    __str__ = __repr__ = __eq__ = __hash__ = _no


KINDS = ["01-qui-execute", "01-second-appel", "02-champ-id"]  # a choice, a number, a text


@pytest.mark.parametrize("name", KINDS)
def test_check_before_any_answer_asks_for_one(name: str) -> None:
    q = question_by_id(name)
    assert q.check() is None and q.attempts == 0
    assert any(w in q.widget.feedback for w in ("Choisissez", "Écrivez"))


@pytest.mark.parametrize("name", KINDS)
@pytest.mark.parametrize("answer", [10**400, "1e400", 3, 2.5, [1], {"a": 1}, True, Hostile()])
def test_check_answer_never_raises(name: str, answer: Any) -> None:
    assert check_answer(name, answer) is False


@pytest.mark.parametrize("name", KINDS)
@pytest.mark.parametrize("message", [
    [1], {"event": ["check"]}, {"event": {"a": 1}}, {"event": "check", "value": [1]},
    {"event": "check", "value": {"a": 1}}, {"event": "check", "value": 10**400},
    {"event": "check", "value": 3}, "check", None])
def test_any_message_from_the_page_gets_a_french_answer(name: str, message: Any) -> None:
    q = question_by_id(name)
    q._clicked(q.widget, message, [])
    q.widget.value = 10**400 if name != "01-qui-execute" else 7
    q.check()  # what the page could have left in the value, graded without an exception
    assert "Error" not in q.widget.feedback and q.widget.feedback
