"""Per-step functions stay linear: the transcript says each step's context in one pass.

Speed itself is measured in bench/ (5 000- and 20 000-step diagrams); here, the one-pass
totals are checked against the definition, total_at(k), step by step.
"""

from __future__ import annotations

import pytest

from harness_lib.course.drawing.diagram import fr, peak, running_totals, total_at, transcript
from harness_lib.course.drawing.mermaid import CHAPTER, chapter_diagram


@pytest.mark.parametrize("name", CHAPTER)
def test_running_totals_are_total_at_for_every_step(name: str) -> None:
    diagram = chapter_diagram(name)
    totals = running_totals(diagram)
    assert totals == [total_at(diagram, k) for k in range(len(diagram.steps) + 1)]
    assert peak(diagram) == max(totals)


def test_the_transcript_says_each_steps_context() -> None:
    diagram = chapter_diagram("deux_tours")
    steps = [line for line in transcript(diagram).splitlines() if line.startswith("Étape")]
    totals = running_totals(diagram)
    assert len(steps) == len(diagram.steps) == len(totals) - 1
    for k, line in enumerate(steps, start=1):
        assert line.startswith(f"Étape {k}/{len(steps)}")
        assert line.endswith(f"(contexte : {fr(totals[k])} tokens)")
    assert steps[-1].endswith(f"(contexte : {fr(2370)} tokens)")  # the chapter's figure
