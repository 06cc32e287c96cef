"""The final assessment (notebook 09): its score out of 20 and its « Bilan », answered all
right, all wrong and half right, without widgets and through them; its questions cover
every section of the chapter, are new, and agree with what the harness does."""

from __future__ import annotations

import difflib
import html
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from harness_lib.course.exercises.answers import MultipleChoice, Numeric, Spec
from harness_lib.course.exercises.final_questions import ASSESSED, FINAL, S
from harness_lib.course.exercises.questions import QUESTIONS
from harness_lib.course.missions.scenarios import replay
from harness_lib.course.teaching.assessment import Evaluation, score

RIGHT = {item.id: FINAL[item.id].solution for item in ASSESSED}


def wrong(spec: Spec) -> Any:
    """A wrong answer to `spec`: a wrong choice, or a known mistake."""
    if isinstance(spec, MultipleChoice):
        return (spec.correct + 1) % len(spec.choices)
    assert isinstance(spec, Numeric)
    return next(iter(spec.mistakes))


WRONG = {item.id: wrong(FINAL[item.id]) for item in ASSESSED}


def plain(text: str) -> str:
    return text.replace("\u00a0", " ").replace("\u202f", " ")


def test_all_right_is_twenty_out_of_twenty_and_nothing_to_revisit() -> None:
    result = score(RIGHT)
    assert (result.points, result.out_of) == (20, 20)
    assert [plain(line) for line in result.lines()] == [
        "Score : 20/20 (15 bonnes réponses sur 15 questions).",
        "Bilan : rien à revoir, chaque section du chapitre est acquise."]


def test_all_wrong_is_zero_and_the_bilan_names_every_notebook() -> None:
    result = score(WRONG)
    assert result.points == 0
    lines = [plain(line) for line in result.lines()]
    assert lines[0] == "Score : 0/20 (0 bonne réponse sur 15 questions)."
    notebooks = sorted({item.notebook for item in ASSESSED})
    assert [re.search(r"revoyez (\S+),", line)[1] for line in lines[1:]] == notebooks
    assert lines[2] == ("Bilan : revoyez 02_deux_regles.ipynb, pour un résultat par demande ; "
                        "l’ordre des messages que l’API accepte ; le message assistant gardé tel "
                        "quel (questions 3, 4 et 5).")
    assert "sans réponse" not in " ".join(lines)


def test_half_right_is_ten_and_the_bilan_points_to_the_second_half() -> None:
    answers, points = {}, 0
    for item in ASSESSED:  # right until 10 points, then wrong
        good = points + item.points <= 10
        answers[item.id] = RIGHT[item.id] if good else WRONG[item.id]
        points += item.points if good else 0
    result = score(answers)
    assert result.points == 10
    missed = {r.item.notebook for r in result.missed()}  # 09-facture (2 points) would make 11
    assert missed == {"04_boucle_complete.ipynb", "05_conditions_arret.ipynb",
                      "06_react.ipynb", "07_dans_le_code.ipynb", "08_ecrire_la_boucle.ipynb"}
    lines = [plain(line) for line in result.lines()]
    assert lines[0] == "Score : 10/20 (8 bonnes réponses sur 15 questions)."
    assert lines[1] == ("Bilan : revoyez 04_boucle_complete.ipynb, pour la facture d’un contexte "
                        "qui grandit (question 8).")
    assert not any("01_deux_tours" in line or "03_erreur" in line for line in lines)


def test_unanswered_questions_count_as_missed_and_are_said_so() -> None:
    result = score({"09-memoire": RIGHT["09-memoire"], "09-contexte": WRONG["09-contexte"]})
    lines = [plain(line) for line in result.lines()]
    assert result.points == 1 and lines[0] == "Score : 1/20 (1 bonne réponse sur 15 questions)."
    assert lines[1].endswith("(question 2).")  # answered, wrong: no « sans réponse »
    assert lines[2].endswith("(questions 3, 4 et 5 ; sans réponse).")


def test_the_markdown_links_each_notebook_to_revisit() -> None:
    shown = score(WRONG)._repr_markdown_()
    assert "[06_react.ipynb](06_react.ipynb)" in shown


def test_through_the_widgets_only_the_first_answer_counts() -> None:
    evaluation = Evaluation()
    for item in ASSESSED:
        evaluation.question(item.id)
    first, again, shown = (evaluation.asked[n] for n in ("09-memoire", "09-contexte", "09-ordre"))
    first.widget.value = RIGHT["09-memoire"]
    first.check()
    again.widget.value = WRONG["09-contexte"]
    again.check()
    again.widget.value = "1 552"  # right at the second try: too late
    again.check()
    shown.reveal()  # the answer shown before any answer: missed, even if then given
    shown.widget.value = RIGHT["09-ordre"]
    shown.check()
    result = evaluation.bilan()
    assert [r.ok for r in result.results[:4]] == [True, False, None, None]
    assert result.points == 1


def test_the_assessment_covers_every_section_with_twenty_points() -> None:
    assert Counter(item.section for item in ASSESSED).keys() == set(S)
    assert sum(item.points for item in ASSESSED) == 20 and len(ASSESSED) == 15
    assert [item.id for item in ASSESSED] == list(FINAL)
    assert all(QUESTIONS[name] is FINAL[name] for name in FINAL)  # in the course's bank


def test_the_right_choice_is_not_always_in_the_same_place() -> None:
    places = Counter(spec.correct for spec in FINAL.values() if isinstance(spec, MultipleChoice))
    assert max(places.values()) <= 0.4 * sum(places.values()), places


def _words(spec: Spec) -> list[str]:
    return re.findall(r"\w+", html.unescape(re.sub(r"<[^>]+>", "", str(spec.prompt))).lower())


@pytest.mark.parametrize("name", list(FINAL))
def test_no_question_copies_an_earlier_one(name: str) -> None:
    """Word for word, no prompt is more than half an earlier one's (07's five questions,
    one prompt and five answers by design, share 80 %)."""
    mine = _words(FINAL[name])
    for other, spec in QUESTIONS.items():
        if other.startswith("09-"):
            continue
        ratio = difflib.SequenceMatcher(None, mine, _words(spec)).ratio()
        assert ratio < 0.55, f"{name} ressemble à {other} ({ratio:.0%})"
        if isinstance(spec, MultipleChoice) and isinstance(FINAL[name], MultipleChoice):
            assert set(spec.choices) != set(FINAL[name].choices), f"{name} : choix de {other}"


def test_the_answers_agree_with_the_harness() -> None:
    """An error is a tool result (09-resultats-tool); without RULE 1 the API refuses the
    second call, messages[] holding system, user, tool (09-ligne-manquante)."""
    recovered = replay("tool-error").run.messages
    assert sum(m["role"] == "tool" for m in recovered) == RIGHT["09-resultats-tool"]
    missing = replay("missing-call")
    assert missing.error is not None and "must be a response to a preceeding message" in \
        str(missing.error)


def test_first_answers_are_kept_as_given_and_come_back_after_a_restart(
        fresh_progress: Path) -> None:
    from harness_lib.course.progress import read_progress

    evaluation = Evaluation()
    for item in ASSESSED:
        shown = evaluation.question(item.id)
        shown.widget.value = RIGHT[item.id] if item.id != "09-facture" else "12 000"
        shown.check()
    again = evaluation.asked["09-facture"]
    again.widget.value = "20 000"  # right at the second try: not kept, not counted
    again.check()
    evaluation.asked["09-ordre"].reveal()  # after an answer: the first answer stays
    result = evaluation.bilan()
    assert result.points == 18 and plain(result.lines()[-1]) == \
        f"Score enregistré dans votre progression ({fresh_progress})."
    kept = read_progress(fresh_progress).items
    assert (kept["09-score"].kind, kept["09-score"].score, kept["09-score"].out_of) == \
        ("assessment", 18, 20)
    assert kept["09-facture"].kind == "assessment" and kept["09-facture"].correct is False
    assert kept["09-facture"].answer == "12 000" and kept["09-ordre"].correct is True
    restarted = Evaluation()  # a new kernel: the first answers are shown again, and count
    for item in ASSESSED:
        restarted.question(item.id)
    assert restarted.asked["09-facture"].widget.value == "12 000"
    assert restarted.bilan().points == 18


def test_an_answer_shown_before_any_is_kept_as_missed() -> None:
    evaluation = Evaluation()
    shown = evaluation.question("09-ordre")
    shown.reveal()
    shown.widget.value = RIGHT["09-ordre"]
    shown.check()
    assert evaluation.bilan().results[3].ok is None
    again = Evaluation()
    assert again.question("09-ordre").shown_first and again.bilan().results[3].ok is None


def test_a_progress_file_that_cannot_be_read_is_said_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "progression.json"
    path.write_text("{ pas du JSON", encoding="utf-8")
    result = Evaluation().bilan(path)
    assert plain(result.lines()[-1]).startswith("Score non enregistré dans votre progression : ")
    assert str(path) in result.lines()[-1] and path.read_text(encoding="utf-8") == "{ pas du JSON"


def test_the_message_questions_agree_with_the_api_checks() -> None:
    """09-ordre: only the right order passes the API's checks (the mock's, the provider's
    texts); 09-deux-demandes: a request left without its result is what is refused."""
    from harness_lib import assistant, system, tool_call, tool_result, user
    from harness_lib.mock import check_conversation

    def ask(call_id: str) -> dict:
        return assistant(None, [tool_call(call_id, "read_file", {"path": "README.md"})])

    head = [system("s"), user("Lis README.md")]
    orders = [[tool_result("call_1", "x"), ask("call_1")],
              [ask("call_1"), tool_result("call_1", "x")],
              [ask("call_1"), user("encore"), tool_result("call_1", "x")],
              [ask("call_1"), tool_result("call_2", "x")]]
    accepted = [not check_conversation(head + order) for order in orders]
    assert accepted == [i == FINAL["09-ordre"].correct for i in range(4)]
    both = assistant(None, [tool_call("call_a", "read_file", {"path": "a"}),
                            tool_call("call_b", "list_files", {"path": "."})])
    problems = check_conversation(head + [both, tool_result("call_a", "x")])
    assert len(problems) == 1 and "did not have response messages: call_b" in problems[0].message


def test_a_loop_without_its_exit_calls_again_until_its_limit() -> None:
    """09-sans-sortie: no refusal, the model called again after its answer, up to max_tours;
    09-messages-arret: with two requests a turn and a limit of 4, messages[] holds 14."""
    from harness_lib import Limits, MockModel, run, tool_call
    from harness_lib.course.missions.own_loop import without
    from harness_lib.course.missions.tasks import README_TASK, example_workspace
    from harness_lib.minimal_loop import boucle
    from harness_lib.models import Completion
    from harness_lib.tools import workspace_tools

    tools = workspace_tools(example_workspace("mini"))
    calls = []

    class Counted(MockModel):
        def complete(self, *args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            return super().complete(*args, **kwargs)

    messages = without("EXIT")(README_TASK, Counted(), tools, 4)
    assert len(calls) == 4 and [m["role"] for m in messages][-3:] == ["assistant"] * 3

    class TwoEachTurn:
        name, price = "deux-par-tour", None

        def complete(self, messages: list, tools: list, timeout: float = 0) -> Completion:
            n = len(messages)
            asked = [tool_call(f"call_{n}_a", "list_files", {"path": "."}),
                     tool_call(f"call_{n}_b", "read_file", {"path": "README.md"})]
            return Completion({"role": "assistant", "content": None, "tool_calls": asked})

    assert len(boucle(README_TASK, TwoEachTurn(), tools, 4)) == RIGHT["09-messages-arret"]
    stopped = run(README_TASK, TwoEachTurn(), tools, limits=Limits(max_turns=4))
    assert stopped.reason == "max_turns" and len(stopped.messages) == RIGHT["09-messages-arret"]
