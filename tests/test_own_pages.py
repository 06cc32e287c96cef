"""The course's HTML outputs that carry their own colours carry their own white page too: a
dark Lab theme would put their green, red and grey on #111 (docs/accessibility.md). Each
text colour on that page at 4.5:1 at least (WCAG 2.2 AA), computed here with WCAG's formula.
"""

from __future__ import annotations

import pytest
from wcag import contrast, text_colours

from harness_lib.course import grade
from harness_lib.course.exercises.targets import Target, Targets
from harness_lib.course.missions.own_loop import reference_loop, without
from harness_lib.course.playground import replies

WHITE = "#ffffff"


def test_the_contrast_is_wcag_s() -> None:
    assert contrast("#000000", WHITE) == pytest.approx(21.0)
    assert round(contrast("#767676", WHITE), 2) == 4.54  # WebAIM's figure for that grey
    assert contrast("#ef6c00", WHITE) < 4.5  # the orange send() used for « Pas de réponse »


def test_the_grader_s_report_is_readable_whatever_lab_s_theme() -> None:
    page = grade(reference_loop)._repr_html_() + grade(without("RULE 2"))._repr_html_()
    assert page.count('class="harness-grader" style="background:#fff;') == 2
    colours = text_colours(page)
    assert {"#2e7d32", "#c62828", "#6a737d", "#212529"} <= colours  # ✔, ✘, ○ and the text
    assert all(contrast(c, WHITE) >= 4.5 for c in colours), colours


@pytest.mark.parametrize("kind", sorted(replies.COLORS))
def test_each_box_of_send_is_readable_whatever_lab_s_theme(kind: str) -> None:
    box = replies._box(kind, "Titre", "<p>texte</p>")
    assert box.startswith(f'<div style="{replies.PAGE};') and replies.PAGE.startswith(
        "background:#fff;")
    assert all(contrast(c, WHITE) >= 4.5 for c in text_colours(box)), text_colours(box)


def test_the_targets_are_readable_whatever_lab_s_theme() -> None:
    goals = Targets([Target("atteinte", lambda r: r == 1), Target("pas encore", lambda r: False)])
    goals.check(1)
    page = goals.html()
    assert 'class="harness-targets" style="background:#fff;' in page
    assert text_colours(page) >= {"#2e7d32", "#555555"}  # reached, not yet
    assert all(contrast(c, WHITE) >= 4.5 for c in text_colours(page)), text_colours(page)
