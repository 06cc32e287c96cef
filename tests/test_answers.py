"""Checked answers without widgets (answers.py) and French text both ways (french.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness_lib.course.exercises.answers import MultipleChoice, Numeric, Open, ShortText
from harness_lib.course.exercises.french import normalise, parse_number, typography
from harness_lib.text import french_number

NNBSP, NBSP = "\u202f", "\u00a0"


@pytest.mark.parametrize(("typed", "value"), [
    ("36 000", 36000), ("36000", 36000), (f"36{NNBSP}000", 36000), (f"36{NBSP}000", 36000),
    ("36'000", 36000), ("36_000", 36000), ("0,5", 0.5), ("0.5", 0.5), (",5", 0.5),
    ("1 234,56", 1234.56), ("1.234,56", 1234.56), ("1,234.56", 1234.56),
    ("1.234.567", 1234567), ("1,234,567", 1234567), ("-3", -3), ("−3", -3), ("+4", 4),
    ("  234 000 tokens ", 234000), ("≈ 12 appels", 12), ("15.", 15), (4, 4), (0.25, 0.25),
])
def test_numbers_as_learners_type_them(typed: str | float, value: float) -> None:
    assert parse_number(typed) == value


@pytest.mark.parametrize("typed", ["", "   ", "deux", "tokens", "3-4", "1,2,3.4.5", "--1"])
def test_what_is_not_a_number_is_said_in_french(typed: str) -> None:
    with pytest.raises(ValueError, match="n’est pas un nombre : écrivez par exemple 36 000"):
        parse_number(typed)


@settings(max_examples=300)
@given(st.integers(-10**12, 10**12) | st.decimals(-10**6, 10**6, places=4).map(float))
def test_the_course_reads_back_what_it_writes(value: float) -> None:
    assert parse_number(french_number(value)) == pytest.approx(value)


@settings(max_examples=300)
@given(st.text())
def test_parsing_raises_nothing_but_a_french_value_error(typed: str) -> None:
    try:
        parse_number(typed)
    except ValueError as err:
        assert "n’est pas un nombre" in str(err)


def test_french_number_writes_the_french_way() -> None:
    assert french_number(234_000) == f"234{NNBSP}000"
    assert (french_number(0.0351), french_number(-1.5), french_number(7)) == ("0,0351", "-1,5", "7")


@pytest.mark.parametrize(("typed", "meant"), [
    ("Tool", "tool"), ("  « tool »  ", "tool"), ('"tool"', "tool"),
    ("`tool_call_id`.", "tool_call_id"),
    ("Modèle   SIMULÉ", "modele simule"), ("l’outil", "l'outil"), (f"a{NBSP}b", "a b"),
])
def test_normalise_ignores_case_accents_spaces_and_quotes(typed: str, meant: str) -> None:
    assert normalise(typed) == meant


def test_typography_spaces_french_punctuation_but_not_code() -> None:
    text = "Vrai ? Oui ; « <code>a : b ?</code> » : fin !"
    expected = (f"Vrai{NNBSP}? Oui{NNBSP}; «{NBSP}<code>a : b ?</code>{NBSP}»{NBSP}: "
                f"fin{NNBSP}!")
    assert typography(text) == expected
    assert typography(expected) == expected  # applying it twice changes nothing
    assert typography("<pre>x : y</pre>") == "<pre>x : y</pre>"


# --- the kinds of questions

BILL = Numeric("Combien ?", 234_000, unit="tokens",
               mistakes={432_000: "Chaque appel n’envoie pas le dernier contexte."},
               too_low="Additionnez les douze.", too_high="Les premiers envoient moins.",
               explanation="3 000 × 78.")


@pytest.mark.parametrize(("typed", "ok", "words"), [
    ("234 000", True, ["Oui", f"234{NNBSP}000 tokens", "3 000 × 78"]),
    ("432 000", False, ["dernier contexte"]),
    ("200 000", False, ["Trop bas.", "Additionnez"]),
    ("300 000", False, ["Trop haut.", "moins"]),
    ("234,000", False, ["Trop bas.", "la virgule marque les décimales", "se lit 234"]),
    ("beaucoup", None, ["n’est pas un nombre"]),
])
def test_numeric_grades_with_what_the_answer_reveals(typed: str, ok: bool | None,
                                                     words: list[str]) -> None:
    verdict = BILL.grade(typed)
    assert verdict.ok is ok
    assert all(word in verdict.text for word in words), verdict.text


def test_numeric_tolerance_and_direction() -> None:
    half = Numeric("La moitié ?", 0.5, tolerance=0.01, direction=False)
    assert half.grade("0,505").ok and half.grade(".5").ok and not half.grade("0,52").ok
    assert half.grade("0,6").text == "Ce n’est pas ce nombre."
    assert half.reveal() == "La réponse : 0,5."


def test_a_wrong_answer_key_cannot_be_built() -> None:
    with pytest.raises(ValueError, match="erreur connue est dans la tolérance"):
        Numeric("?", 10, tolerance=1, mistakes={10.5: "non"})
    with pytest.raises(ValueError, match="clé de réponse fausse"):
        ShortText("Quel rôle ?", [""])
    with pytest.raises(ValueError, match="un feedback par choix"):
        MultipleChoice("?", ["a", "b"], 2, ["x", "y"])


def test_multiple_choice_gives_the_chosen_options_feedback_only() -> None:
    q = MultipleChoice("Qui lit ?", ["Le modèle", "Le harness"], 1, ["Il demande.", "Oui."])
    assert q.grade(0).ok is False and q.grade(0).text == "Il demande."
    assert q.grade(1).ok and q.grade(1).text == "Oui."
    assert q.grade(None).ok is None and q.grade(5).ok is None
    assert q.reveal() == "La bonne réponse : « Le harness »."  # no « Oui » after a wrong try


def test_short_text_variants_mistakes_and_escaping() -> None:
    q = ShortText("Quel champ ?", ["tool_call_id", "tool call id"], feedback="Il relie.",
                  mistakes={"ID": "Le champ de la demande."})
    assert q.grade("Tool Call ID").ok and q.grade("« tool_call_id »").ok
    assert q.grade(" id ").text == "Le champ de la demande."
    unknown = q.grade("<b>x</b>")
    assert unknown.ok is False and "&lt;b&gt;x&lt;/b&gt;" in unknown.text
    assert q.grade("  ").ok is None
    assert q.solution == "tool_call_id" and "tool_call_id" in q.reveal()


def test_an_open_question_has_a_model_answer_and_no_grade() -> None:
    q = Open("Que faites-vous ?", "<p>Relever la limite.</p>")
    assert q.solution == "<p>Relever la limite.</p>" and not hasattr(q, "grade")


class Hostile:
    """An answer that refuses to be read: its str() and == raise."""

    def _no(self, *_args: object) -> object:
        raise RuntimeError("illisible")

    __str__ = __repr__ = __eq__ = _no


@pytest.mark.parametrize("typed", [10**400, -10**400, "1e400", float("nan"), float("inf")])
def test_a_number_too_large_to_compare_is_said_in_french(typed: object) -> None:
    with pytest.raises(ValueError, match="n’est pas un nombre"):
        parse_number(typed)  # type: ignore[arg-type]
    verdict = Numeric("Combien ?", 3).grade(typed)  # type: ignore[arg-type]
    assert verdict.ok is None and "n’est pas un nombre" in verdict.text


def test_no_answer_yet_asks_for_one_and_odd_types_are_read_as_text() -> None:
    number, text = Numeric("Combien ?", 3), ShortText("Quel rôle ?", ("tool",))
    choice = MultipleChoice("Qui ?", ("a", "b"), 1, ("Non.", "Oui."))
    assert number.grade(None).ok is None and "Écrivez un nombre" in number.grade(None).text
    assert text.grade(None).ok is None and "Écrivez une réponse" in text.grade(None).text
    assert text.grade(42).ok is False and "«\u00a042\u00a0»" in text.grade(42).text  # as text
    assert text.grade(["tool"]).ok is False and number.grade({"a": "b"}).ok is None
    assert choice.grade(True).ok is None  # True is no choice, though it is 1 to Python
    assert "un objet Hostile" in text.grade(Hostile()).text
    assert number.grade(Hostile()).ok is None
