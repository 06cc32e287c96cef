"""The player: what each step shows (pure state), its widgets, live mode, static fallback."""

from __future__ import annotations

import html
import json
import re

import ipywidgets as w
import pytest

from harness_lib.course import player as player_module
from harness_lib.course.charts import ADDED_STYLE
from harness_lib.course.diagram import from_trace, totals_at
from harness_lib.course.mermaid import CHAPTER, HIGHLIGHT, chapter_diagram, parse
from harness_lib.course.player import START_NOTE, Player, run_live, state
from harness_lib.course.scenarios import README_TASK, WAIT_TASK, example_workspace
from harness_lib.limits import Limits
from harness_lib.loop import SYSTEM_PROMPT, run
from harness_lib.messages import system
from harness_lib.models.mock import MockModel
from harness_lib.tokens import tools_tokens
from harness_lib.tools import workspace_tools
from harness_lib.trace import Trace

ARROW_LINE = re.compile(r"^\s*[^\s%:]+?\s*(?:-->>|->>|-->|->)\s*[^\s:]+\s*:", re.MULTILINE)


def arrows(mermaid: str) -> int:
    return len(ARROW_LINE.findall(mermaid))


def mock_run(task: str = README_TASK, workspace: str = "mini", **kwargs):
    return run(task, MockModel(), workspace_tools(example_workspace(workspace)), **kwargs)


def live_player(tools) -> Player:
    schemas = [t.schema() for t in tools]
    return Player(Trace(system=system(SYSTEM_PROMPT), tools_tokens=tools_tokens(schemas),
                        tools=schemas))


def find(widget: w.Widget, kind: type) -> list:
    """Every widget of a given type in the tree under `widget`."""
    found = [widget] if isinstance(widget, kind) else []
    for child in getattr(widget, "children", ()):
        found += find(child, kind)
    return found


@pytest.mark.parametrize("name", CHAPTER)
def test_each_step_of_the_chapter_diagrams(name: str) -> None:
    diagram = chapter_diagram(name)
    for k in range(len(diagram.steps) + 1):
        s = state(diagram, k)
        assert arrows(s.mermaid) == k
        assert (f"rect {HIGHLIGHT}" in s.mermaid) == (k > 0)
        assert s.totals == totals_at(diagram, k)
        assert s.note == (diagram.steps[k - 1].note if k else START_NOTE)
        assert s.step_label == f"étape {k} / {len(diagram.steps)}"
        assert s.bar_html.count(ADDED_STYLE) == len(s.added)
        assert s.messages is None  # hand-written: the context is described, not recorded
    # Step 0 is still a valid diagram: the participants, and nothing else.
    start = state(diagram, 0).mermaid
    assert start.startswith("sequenceDiagram") and "participant H as Harness" in start


def test_context_bar_of_deux_tours_shows_the_tool_result_arriving() -> None:
    s = state(chapter_diagram("deux_tours"), 6)  # T-->>H: Contenu du fichier
    assert [e.role for e in s.added] == ["tool"]
    assert "tool 800" in s.bar_html and "2\u202f190" in s.bar_html  # 1200+150+15+25+800
    assert state(chapter_diagram("deux_tours"), 5).added == ()


def test_turns_of_the_complete_loop() -> None:
    diagram = chapter_diagram("boucle_complete")
    labels = [state(diagram, k).turn_label for k in range(1, 17)]
    assert labels == ["", *["tour 1 / 4"] * 4, *["tour 2 / 4"] * 4, *["tour 3 / 4"] * 4,
                      "", "", ""]  # the last call and the answer are outside the loop
    assert [state(diagram, k).turn for k in (1, 2, 6, 10, 14)] == [0, 1, 2, 3, 4]


def test_budget_marker_and_compaction_as_a_replacement() -> None:
    diagram = parse("""sequenceDiagram
  participant H as Harness
  participant M as Modèle
  %% budget: 4000
  %% ctx: system 1000 Prompt
  H->>M: messages[]
  %% ctx: tool 2000 Gros fichier
  H->>H: Compaction
  %% ctx: compact 300 Résumé""")
    before, after = state(diagram, 1), state(diagram, 2)
    assert "left:100.000%" in before.bar_html  # scale = max(peak 3000, budget 4000)
    assert [e.role for e in after.context] == ["system", "compact"]
    assert after.totals == {"system": 1000, "compact": 300}
    assert after.bar_html.count(ADDED_STYLE) == 1 and "Gros fichier" not in after.bar_html
    assert "Compaction : 2\u202f000 tokens" in after.bar_html
    assert "Compaction" not in before.bar_html


def test_a_mock_run_shows_the_exact_messages_at_each_step() -> None:
    trace = mock_run().trace
    diagram = from_trace(trace)
    for k in range(len(trace.events) + 1):
        assert state(diagram, k).messages == trace.messages_at(k - 1)
    last = state(diagram, len(trace.events))
    assert last.turn_label == f"tour {last.turns} / {last.turns}" and last.turns == 2
    assert state(diagram, 1).turn_label == ""  # the mission arrives before any model call
    assert state(diagram, 2).turn_label == "tour 1 / 2"
    p = Player(trace)
    p.go(2)  # after the first request: the system prompt and the mission, as JSON
    (known, _) = find(p.widget, w.Accordion)
    assert html.escape(json.dumps(trace.messages_at(1), ensure_ascii=False, indent=2)) \
        in known.children[0].value


def test_live_mode_grows_and_says_what_it_waits_for() -> None:
    tools = workspace_tools(example_workspace("mini"))
    p = live_player(tools)
    seen: list[tuple[str, int, int, str]] = []
    redraws: list[object] = []
    p._out.observe(redraws.append, names="outputs")

    def listen(event) -> None:
        p.on_event(event)
        seen.append((event.kind, p.total, p.step, p.status))

    result = run(README_TASK, MockModel(), tools, on_event=listen)
    assert [total for _, total, _, _ in seen] == list(range(1, len(seen) + 1))
    assert all(step == total for _, total, step, _ in seen)  # always on the newest step
    assert len(redraws) == len(seen)  # one redraw per event: the diagram does not flicker
    statuses = {kind: status for kind, _, _, status in seen}
    assert statuses["request"] == "⏳ en attente du modèle…"
    assert statuses["tool_call"] == "⚙ outil en cours…"
    assert p.status == "terminé : answer"
    assert "terminé : answer" in p._status.value  # shown, not only stored
    assert p.state().messages == result.messages
    assert p.state(0).totals == totals_at(from_trace(result.trace), 0)  # same starting context


class Handle:
    """Stands for IPython's DisplayHandle: records what was displayed and updated."""

    def __init__(self, shown: list[object]) -> None:
        self.shown = shown

    def update(self, obj: object) -> None:
        self.shown.append(("update", obj._repr_mimebundle_()["text/markdown"]))


def test_run_live_displays_a_player_and_returns_the_run(monkeypatch) -> None:
    shown: list[object] = []

    def display(obj: object, display_id: bool = False) -> Handle:
        shown.append(obj)
        return Handle(shown)

    monkeypatch.setattr("IPython.display.display", display)
    events: list[str] = []
    result = run_live(WAIT_TASK, MockModel(), workspace_tools(example_workspace("attente")),
                      limits=Limits(max_turns=2), on_event=lambda e: events.append(e.kind))
    p, (updated, static) = shown
    assert result.reason == "max_turns" and p.status == "terminé : max_turns"
    assert p.total == len(result.trace.events) == len(events)
    assert p.state().messages == result.messages
    # the static copy (HTML exports, viewers without a kernel) shows the whole run
    assert updated == "update" and arrows(static) == p.total


def test_players_never_share_state() -> None:
    first, second = Player("deux_tours"), Player("deux_tours")
    first.go(5)
    assert (first.step, second.step) == (5, 0)
    assert first._out.outputs != second._out.outputs
    assert first.widget is not second.widget and first._out is not second._out
    trace = mock_run().trace
    a, b, n = Player(trace), Player(trace), len(trace.events)
    a.on_event(trace.events[0])
    assert (a.total, b.total, len(trace.events)) == (n + 1, n, n)


def test_widgets_move_the_diagram() -> None:
    p = Player("erreur_outil", interval=0.5)
    (play,), (slider,) = find(p.widget, w.Play), find(p.widget, w.IntSlider)
    previous, following = find(p.widget, w.Button)
    assert play.interval == 500 and play.max == slider.max == p.total == 14
    slider.value = 7
    (output,) = p._out.outputs
    assert output["data"]["text/vnd.mermaid"] == state(p.diagram, 7).mermaid
    assert output["data"]["text/markdown"].startswith("```mermaid\n")
    assert arrows(output["data"]["text/markdown"]) == 7
    assert p._bar.value == state(p.diagram, 7).bar_html
    following.click()
    following.click()
    previous.click()
    assert p.step == 8 and p.state().step_label == "étape 8 / 14"
    p.go(99)
    assert p.step == 14 and "Réponse finale" in p._out.outputs[0]["data"]["text/plain"]
    assert "Que sait le modèle ?" in str(find(p.widget, w.Accordion)[0].titles)


def test_static_fallback_for_exports() -> None:
    p = Player("boucle_complete")
    bundle = p._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    markdown = bundle["text/markdown"]
    assert markdown.startswith("```mermaid\nsequenceDiagram") and arrows(markdown) == 16
    assert HIGHLIGHT not in markdown  # the whole diagram, nothing highlighted
    assert "<details><summary>Version texte</summary>" in markdown
    assert "Étape 16/16" in markdown and "Étape 16/16" in bundle["text/plain"]


def test_a_label_with_backticks_gets_a_longer_fence() -> None:
    p = Player("sequenceDiagram\n  H->>M: ```code```")
    assert p._repr_mimebundle_()["text/markdown"].startswith("````mermaid\n")


def test_on_event_needs_a_trace() -> None:
    trace = mock_run().trace
    with pytest.raises(TypeError, match="trace"):
        Player("deux_tours").on_event(trace.events[0])


def test_no_module_level_widgets() -> None:
    assert not [v for v in vars(player_module).values() if isinstance(v, w.Widget)]
