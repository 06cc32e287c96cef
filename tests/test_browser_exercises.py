"""The course's checked exercises in a real browser: JupyterLab in headless Chromium.

In each notebook 01-07, one exercise is answered as a learner would: first wrongly
(the feedback of that answer only, the offer of a second try, and no answer shown),
then rightly (success). Other cases ride along: a second wrong answer reveals the
answer, « Voir la réponse » shows it at once, an open question reveals its model
answer next to what the learner wrote. Only the notebook's first code cell (its
imports) and the exercise's cells run, so the module takes about a minute.
Screenshots of each exercise, 1280 and 800 px wide, go to tests/artifacts/.

The Lab (this module's folder in the session's shared Lab), the browser and the notebook
opener are tests/browsing/'s fixtures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from browsing import ARTIFACTS
from browsing.chromium import WIDTHS
from browsing.exercises import CHANGED, answer, cell_index, open_exercise, plain, run_cells
from browsing.notebook import IDLE

from harness_lib.course.exercises.answers import MultipleChoice
from harness_lib.course.exercises.questions import QUESTIONS

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser


@dataclass(frozen=True)
class Case:
    notebook: str
    question: str  # its id in the bank
    wrong: Any  # an option index, or what the learner types
    right: Any
    wrong_feedback: str  # words of the wrong answer's own feedback


CASES = [
    Case("01_deux_tours.ipynb", "01-inconnu-etape-5", 0, 3, "depuis le début"),
    Case("02_deux_regles.ipynb", "02-champ-id", "call_id", "tool_call_id", "Responses API"),
    Case("03_erreur_observation.ipynb", "03-appels", "3", "4", "Comptez encore"),
    Case("04_boucle_complete.ipynb", "04-facture", "432 000", "234 000", "comme si chaque appel"),
    Case("05_conditions_arret.ipynb", "05-messages-max", "30", "32", "ne commence pas par"),
    Case("06_react.ipynb", "06-docs", 1, 2, "tant que le fichier"),
    Case("07_dans_le_code.ipynb", "07-missing-call", 0, 1, "refuse le deuxième appel"),
]


def shoot(notebook: Any, cell: Any, label: str) -> None:
    """The exercise's cell, at each width: look at them."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        notebook.page.set_viewport_size({"width": width, "height": 900})
        cell.scroll_into_view_if_needed()
        cell.screenshot(path=str(ARTIFACTS / f"exercise-{label}-{width}.png"))
    notebook.page.set_viewport_size({"width": WIDTHS[0], "height": 900})


def right_answer_words(name: str) -> list[str]:
    """What would give the answer away in a feedback."""
    spec = QUESTIONS[name]
    if isinstance(spec, MultipleChoice):
        return [plain(spec.choices[spec.correct]).rstrip("."),
                plain(spec.feedback[spec.correct])[:40]]
    return ["La réponse :", "La bonne réponse"]


def kernel_quiet(notebook: Any) -> None:
    """No error from a widget's callback reached the kernel's output."""
    errors = notebook.page.evaluate("() => window.harnessErrors")
    assert errors == [], f"erreurs du noyau : {errors}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.notebook[:2])
def test_an_exercise_answered_wrongly_then_rightly(open_notebook: Any, case: Case) -> None:
    notebook, [cell] = open_exercise(open_notebook, case.notebook, case.question)
    label = f"{case.notebook[:2]}-{case.question}"
    wrong = answer(cell, case.wrong)
    assert wrong.startswith("✘") and "Pas tout à fait" not in wrong, wrong
    assert case.wrong_feedback in wrong, wrong
    assert "Essayez encore" in wrong and "second essai" in wrong, wrong
    for words in right_answer_words(case.question):
        assert words not in wrong, f"la réponse se lit après une erreur : {words!r}"
    shoot(notebook, cell, f"{label}-faux")
    right = answer(cell, case.right)
    assert right.startswith("✔"), right
    assert case.wrong_feedback not in right
    shoot(notebook, cell, f"{label}-juste")
    kernel_quiet(notebook)


def test_two_wrong_answers_or_a_click_show_the_answer(open_notebook: Any) -> None:
    name = "07_dans_le_code.ipynb"
    notebook, [first, second] = open_exercise(open_notebook, name, "07-missing-result",
                                              "07-max-turns")
    spec = QUESTIONS["07-missing-result"]
    assert isinstance(spec, MultipleChoice)
    answer(first, 0)
    again = answer(first, 0)  # the same wrong answer again costs no try
    assert "déjà essayé" in again and "La bonne réponse" not in again
    revealed = answer(first, 1)
    assert revealed.startswith("✘") and "La bonne réponse" in revealed
    assert plain(spec.choices[spec.correct]).rstrip(".") in revealed
    shoot(notebook, first, "07-deux-erreurs")
    second.locator(".harness-show").click()
    shown = second.locator(".harness-feedback")
    sync_api.expect(shown).to_contain_text("La bonne réponse")
    assert "la réponse finale" in plain(shown.inner_text()).lower()
    kernel_quiet(notebook)


def test_an_open_question_reveals_its_model_answer(open_notebook: Any) -> None:
    notebook, [cell] = open_exercise(open_notebook, "05_conditions_arret.ipynb",
                                     "05-vingt-tours")
    cell.locator(".harness-answer textarea").fill("On relève la limite <b>à 20</b>.")
    button = cell.locator(".harness-show")
    sync_api.expect(button).to_have_text("Voir la réponse modèle")
    button.click()
    shown = cell.locator(".harness-feedback")
    sync_api.expect(shown).to_contain_text("Arrêt propre: maximum de 15 tours dépassé.")
    sync_api.expect(shown).to_contain_text("On relève la limite <b>à 20</b>.")  # as typed
    shoot(notebook, cell, "05-vingt-tours")
    kernel_quiet(notebook)


def test_two_questions_on_one_page_are_answered_independently(open_notebook: Any) -> None:
    """Each question has its own radio group and its own ids: choosing in one leaves the
    other's choice alone, « Vérifier » grades each one's own answer, and each group is
    named by its own prompt (aria-labelledby), for a screen reader."""
    name = "06_react.ipynb"
    notebook, [first, second] = open_exercise(open_notebook, name, "06-certitude", "06-nuit")
    first.locator(".harness-answer label").nth(0).click()
    second.locator(".harness-answer label").nth(1).click()
    radios = [cell.locator(".harness-answer input[type=radio]") for cell in (first, second)]
    sync_api.expect(radios[0].nth(0)).to_be_checked()  # still checked after the other click
    sync_api.expect(radios[1].nth(1)).to_be_checked()
    groups = {cell.locator(".harness-answer input").nth(0).get_attribute("name")
              for cell in (first, second)}
    assert len(groups) == 2, groups
    for cell in (first, second):
        labelled = cell.locator(".harness-answer").get_attribute("aria-labelledby")
        prompt = notebook.page.locator(f"#{labelled}")
        assert prompt.count() == 1  # one element on the whole page has that id
        assert plain(prompt.inner_text())[:30] in plain(cell.inner_text())  # its own prompt
    verdicts = []
    for cell in (first, second):
        feedback = cell.locator(".harness-feedback")
        before = feedback.text_content()
        cell.locator(".harness-check").click()
        notebook.page.wait_for_function(CHANGED, arg=[feedback.element_handle(), before])
        notebook.page.wait_for_function(IDLE)
        verdicts.append(plain(feedback.inner_text()))
    for verdict, question, chosen in zip(verdicts, ("06-certitude", "06-nuit"), (0, 1),
                                         strict=True):
        spec = QUESTIONS[question]
        assert isinstance(spec, MultipleChoice)
        assert "Choisissez" not in verdict, verdict  # its answer was still there
        assert verdict.startswith("✔" if chosen == spec.correct else "✘"), verdict
        assert plain(spec.feedback[chosen])[:30] in verdict, verdict
    shoot(notebook, second, "06-deux-questions")
    kernel_quiet(notebook)


def test_the_final_assessment_scores_first_answers_in_lab(open_notebook: Any) -> None:
    """09 in Lab: a right first answer counts, a right second one does not, nor one given
    after « Voir la réponse »; the bilan cell says the score and links the notebooks."""
    name = "09_evaluation.ipynb"
    notebook = open_notebook(f"notebooks/{name}")
    asked = ["09-memoire", "09-contexte", "09-ordre"]
    indexes = [cell_index(name, rf'^evaluation\.question\("{q}"\)') for q in asked]
    run_cells(notebook, cell_index(name, r"harness_lib"), *indexes)
    first, second, third = (notebook.panel.locator(".jp-Cell").nth(i) for i in indexes)
    assert answer(first, 1).startswith("✔")
    assert answer(second, "37").startswith("✘") and answer(second, "1 552").startswith("✔")
    third.locator(".harness-show").click()
    sync_api.expect(third.locator(".harness-feedback")).to_contain_text("La bonne réponse")
    assert answer(third, 1).startswith("✔")
    bilan = cell_index(name, r"^bilan = evaluation\.bilan\(\)")
    run_cells(notebook, bilan)
    output = notebook.panel.locator(".jp-Cell").nth(bilan).locator(".jp-OutputArea-output")
    sync_api.expect(output).to_contain_text("Bilan")
    text = plain(output.inner_text())
    assert "Score : 1/20 (1 bonne réponse sur 15 questions)." in text
    assert "revoyez 01_deux_tours.ipynb, pour le contexte renvoyé en entier (question 2)." in text
    assert "Score enregistré dans votre progression" in text
    assert output.locator('a[href*="02_deux_regles.ipynb"]').count() == 1
    shoot(notebook, notebook.panel.locator(".jp-Cell").nth(bilan), "09-bilan")
