"""codeview.py: the harness's code shown with its marked places, found by content."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_lib import loop
from harness_lib.course.lessons.codeview import (
    find_marks,
    locate,
    show_source,
    side_by_side,
    side_by_side_html,
)

MARKS = ("CALL", "RULE 1", "RULE 2", "EXIT")


def test_the_four_places_of_loop_py_are_found_with_their_statement() -> None:
    view = show_source(loop, MARKS, function="run")
    lines = view.lines
    assert [m.label for m in view.marks] == list(MARKS)
    call = view.mark("CALL")
    assert "model.complete(messages" in lines[call.last - 1] and call.last == call.first + 1
    assert "RULE 1" in lines[view.mark("RULE 1").first - 1]
    # The chapter's two pushes, in run() itself: messages.push(turn.message), then the result.
    assert lines[view.mark("RULE 1").last - 1].strip() == "messages.append(reply.message)"
    assert lines[view.mark("RULE 2").last - 1].strip() == \
        "messages.append(tool_result(call.id, seen.content))"
    exit_ = view.mark("EXIT")
    assert lines[exit_.last - 1].strip() == "return finish(rec, reply)"  # the if and its body
    assert lines[exit_.first].strip() == "if not reply.tool_calls:"
    assert view.first < call.first < exit_.first < view.last


def test_html_numbers_lines_and_labels_the_marks() -> None:
    view = show_source(loop, {"EXIT": "la sortie <ici>"}, function="run")
    n = view.mark("EXIT").first
    assert f">{n}</span>" in view.html and "◀ EXIT" in view.html
    assert "la sortie &lt;ici&gt;" in view.html
    assert view._repr_html_() == view.html
    assert "def run(" not in view.html  # keywords are coloured: the text is split in spans
    assert ">def</span> run(" in view.html


def test_a_missing_mark_is_an_error_not_a_silent_display() -> None:
    with pytest.raises(ValueError, match="RULE 3"):
        show_source(loop, ("RULE 1", "RULE 3"))


def test_a_mark_outside_the_function_shown_is_an_error() -> None:
    with pytest.raises(ValueError, match="hors de la fonction act"):
        show_source(loop, ("RULE 1",), function="act")


def test_labels_match_whole_marks_only() -> None:
    code = "x = 1\n# RULE 10: autre\ny = 2\n# RULE 1: celle-ci\nz = (3,\n     4)\n"
    (mark,) = find_marks(code, ["RULE 1"])
    assert (mark.first, mark.last) == (4, 6)


def test_text_that_is_not_python_still_works(tmp_path: Path) -> None:
    path = tmp_path / "boucle.ts"
    path.write_text("// x\nmessages.push(turn.message); # RULE 1\nmessages.push(r);\n")
    view = show_source(path, ["RULE 1"])
    assert (view.mark("RULE 1").first, view.mark("RULE 1").last) == (2, 3)
    assert "messages.push(turn.message);" in view.html


def test_locate_wants_exactly_one_line() -> None:
    source = "a = 1\nb = a\n"
    assert locate(source, "b =") == 2
    with pytest.raises(ValueError, match="2 fois"):
        locate(source, "a")
    with pytest.raises(ValueError, match="0 fois"):
        locate(source, "zzz")
    assert (locate(source, "a", 1), locate(source, "a", -1)) == (1, 2)
    with pytest.raises(ValueError, match="que 2 fois"):
        locate(source, "a", 3)


def test_side_by_side_points_at_the_real_lines() -> None:
    pairs = side_by_side(loop, [("demander la prochaine action", "model.complete("),
                                ("(rien)", None), ("arrêter", ("rec.stop(", -1))])
    source = Path(loop.__file__).read_text(encoding="utf-8").splitlines()
    assert "model.complete(" in source[pairs[0][1] - 1]
    assert pairs[1] == ("(rien)", None, "")
    assert pairs[2][1] == max(i for i, line in enumerate(source, 1) if "rec.stop(" in line)
    assert "model.complete(" in side_by_side_html(pairs)
