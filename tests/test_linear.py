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


# The player's state: « Que sait le modèle ? » names slices of the run's messages, each
# message written once (drawing/message_json.py), so the state grows with the run.


class Reader:
    """A model that reads a 100 kB file at every turn and never answers."""

    name, price = "lecteur", None

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages, tools, timeout=0):
        from harness_lib.messages import assistant, tool_call
        from harness_lib.models.model import Completion

        self.calls += 1
        call = tool_call(f"call_{self.calls}", "read_file", {"path": f"f{self.calls % 3}.txt"})
        return Completion(assistant(tool_calls=[call]), "tool_calls")


def state_bytes(turns: int, root) -> int:
    """The bytes of a player's widget state once every step is prepared (what a notebook
    executed by nbclient saves), for a run of `turns` turns reading 100 kB files."""
    import json

    from harness_lib import Limits, run, workspace_tools
    from harness_lib.course.player.player import Player

    for i in range(3):
        lines = "".join(f"ligne {j} du fichier {i} : du texte\n" for j in range(3000))
        (root / f"f{i}.txt").write_text(lines[:100_000], encoding="utf-8")
    done = run("Lis les fichiers", Reader(), workspace_tools(root),
               limits=Limits(max_turns=turns))
    p = Player(done.trace)
    for k in range(p.total + 1):  # every step prepared, as a learner who played it all
        p.go(k)
    assert all(p._text.knowns) and len(p._text.messages) == len(done.messages)
    return sum(len(json.dumps(w.get_state(), default=str)) for w in (p._text, p._controls))


def test_the_players_state_grows_with_the_run_not_its_square(tmp_path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    fifteen, thirty = state_bytes(15, tmp_path / "a"), state_bytes(30, tmp_path / "b")
    # Twice the turns: about twice the state (four times when each step held messages[]).
    assert thirty < 2.5 * fifteen, (fifteen, thirty)


def test_a_long_text_is_folded_whole_a_click_away() -> None:
    import html

    from harness_lib.course.drawing.message_json import LONG, SHOWN, fill, message_html, slice_html

    text = "début " + "x" * LONG + " fin<script>"
    shown = fill(slice_html(0, 1), [message_html({"role": "tool", "content": text})])
    folded = shown.split("<details")[0]
    assert "début" in folded and "fin" not in folded and len(folded) < SHOWN + 300
    assert html.escape(text) in shown and "<script>" not in shown  # whole, escaped
    assert f"texte complet ({fr(len(text))} caractères)" in shown
