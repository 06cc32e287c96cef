"""The player: what each step shows (pure state), its prepared panels, live mode, static copy.

The browser side (keys, « Lecture » while the kernel is busy, the hub switch, what a
learner sees at 1280 and 800 px) is tested in tests/test_browser.py.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace

import ipywidgets as w
import pytest
from course_players import PLAYERS

from harness_lib.course.drawing.charts import ADDED_STYLE
from harness_lib.course.drawing.diagram import Diagram, totals_at
from harness_lib.course.drawing.fit import (
    FIT,
    LABEL,
    WINDOW,
    drawn_arrows,
    drawn_width,
    label_limit,
)
from harness_lib.course.drawing.mermaid import CHAPTER, HIGHLIGHT, chapter_diagram, parse
from harness_lib.course.drawing.message_json import fill
from harness_lib.course.drawing.trace_diagram import from_trace
from harness_lib.course.missions.scenarios import replay
from harness_lib.course.missions.tasks import README_TASK, WAIT_TASK, example_workspace
from harness_lib.course.player import player as player_module
from harness_lib.course.player.known import call_steps, shown_html
from harness_lib.course.player.narration import step_note
from harness_lib.course.player.player import LIGHT, START_NOTE, Player, run_live, state
from harness_lib.course.player.state import diagram_output
from harness_lib.limits import Limits
from harness_lib.loop import run
from harness_lib.messages import SYSTEM_PROMPT, system
from harness_lib.mock.model import MockModel
from harness_lib.tokens import tools_tokens
from harness_lib.tools import workspace_tools
from harness_lib.trace import Trace, waits_after

ARROW_LINE = re.compile(r"^\s*[^\s%:]+?\s*(?:-->>|->>|-->|->)\s*[^\s:]+\s*:", re.MULTILINE)


def arrows(mermaid: str) -> int:
    return len(ARROW_LINE.findall(mermaid))


def mock_run(task: str = README_TASK, workspace: str = "mini", **kwargs):
    return run(task, MockModel(), workspace_tools(example_workspace(workspace)), **kwargs)


def live_player(tools) -> Player:
    schemas = [t.schema() for t in tools]
    return Player(Trace(system=system(SYSTEM_PROMPT), tools_tokens=tools_tokens(schemas),
                        tools=schemas))


def drawn(p: Player, k: int, view: str = "sequence") -> str:
    """The Mermaid text the browser draws at step k (stepper.js: item k of a list)."""
    return (p._text.sequences if view == "sequence" else p._text.hubs)[k]


def prepared(p: Player) -> list[int]:
    lists = zip(p._text.texts, p._text.sequences, p._text.hubs, strict=True)
    return [k for k, (text, *drawings) in enumerate(lists) if text and any(drawings)]


@pytest.mark.parametrize("name", CHAPTER)
def test_each_step_of_the_chapter_diagrams(name: str) -> None:
    diagram = chapter_diagram(name)
    for k in range(len(diagram.steps) + 1):
        s = state(diagram, k)
        assert arrows(s.mermaid) == min(k, WINDOW)  # the last WINDOW arrows, no more
        assert (f"rect {HIGHLIGHT}" in s.mermaid) == (k > 0)
        assert s.totals == totals_at(diagram, k)
        assert s.note.strip(), f"étape {k} sans note"  # every step says something
        if k and diagram.steps[k - 1].note:  # the author's own note wins
            assert s.note.startswith(diagram.steps[k - 1].note)
        assert s.step_label == f"étape {k} sur {len(diagram.steps)}"
        assert s.bar_html.count(ADDED_STYLE) == len(s.added)
        assert s.messages is None  # hand-written: the context is described, not recorded
        assert s.hub.startswith("flowchart LR") and ("class " in s.hub) == (k > 0)
    # Step 0 is still a valid diagram: the participants, and nothing else.
    start = state(diagram, 0).mermaid
    assert "sequenceDiagram" in start and "participant H as Harness" in start
    assert state(diagram, 0).note == START_NOTE


def test_a_long_diagram_shows_a_window_with_the_real_numbers() -> None:
    diagram = chapter_diagram("boucle_complete")  # 16 steps
    s = state(diagram, 13)
    assert arrows(s.mermaid) == WINDOW
    first = 13 - WINDOW + 1
    assert f"autonumber {first}" in s.mermaid
    assert f"⋯ {first - 1} étapes plus haut" in s.mermaid
    # Steps 6 to 13 never involve the person: that lifeline is left out (narrower).
    assert "participant U" not in s.mermaid and "participant T as Outils" in s.mermaid
    assert "participant U as Personne" in state(diagram, 16).mermaid  # H-->>U: back


def test_a_long_label_wraps_before_it_is_cut_and_is_whole_in_the_note() -> None:
    label = "Lis README.md, puis docs/guide.md, puis résume les deux en trois phrases"
    s = state(parse(f"sequenceDiagram\n  U->>H: {label}"), 1)
    assert "U->>H: Lis README.md, puis docs/guide.md, puis<br>résume les deux en trois " \
        "phrases" in s.mermaid and "Libellé complet" not in s.note  # room for two lines
    longer = (label + ", puis une quatrième sur l’ensemble du projet, puis une cinquième "
              "sur ses tests, et enfin une conclusion")
    s = state(parse(f"sequenceDiagram\n  U->>H: {longer}"), 1)
    assert "…" in s.mermaid and longer in s.note  # the drawing cuts it, the note has it whole


@pytest.mark.parametrize("source", [*CHAPTER, "max-turns", "tool-error"])
def test_each_step_gets_the_longest_labels_that_fit(source: str) -> None:
    """label_limit: the widest drawing within FIT px; two characters more would not fit."""
    diagram = chapter_diagram(source) if source in CHAPTER else from_trace(replay(source).run.trace)
    cut = 0
    for k in range(len(diagram.steps) + 1):
        arrows_k, columns = drawn_arrows(diagram, k)
        limit = label_limit(diagram, k)
        assert limit == 12 or drawn_width(arrows_k, columns, limit) <= FIT, k
        assert limit == LABEL or drawn_width(arrows_k, columns, limit + 2) > FIT, k
        assert max((len(a[2]) for a in arrows_k), default=0) > limit or limit == LABEL, k
        cut += limit < LABEL
    if source == "max-turns":  # long labels in a window of 8: some steps must cut them
        assert cut > 0


def test_context_bar_of_deux_tours_shows_the_tool_result_arriving() -> None:
    s = state(chapter_diagram("deux_tours"), 6)  # T-->>H: Contenu du fichier
    assert [e.role for e in s.added] == ["tool"]
    assert "tool 800" in s.bar_html and "2\u202f190" in s.bar_html  # 1200+150+15+25+800
    assert state(chapter_diagram("deux_tours"), 5).added == ()


def test_turns_of_the_complete_loop() -> None:
    diagram = chapter_diagram("boucle_complete")
    labels = [state(diagram, k).turn_label for k in range(1, 17)]
    assert Player(diagram)._controls.captions == ["", *labels]  # shown beside the step
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
    assert "Compaction : 2\u202f000 tokens" in after.bar_html
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
    # after the first request (step 2): the system prompt and the mission, as JSON, once
    # the browser has put the run's messages where the step says (stepper.js)
    assert html.escape(json.dumps(trace.messages_at(1), ensure_ascii=False, indent=2)) \
        in fill(p._text.knowns[2], p._text.messages)
    assert len(p._text.messages) == len(trace.messages_at(len(trace.events) - 1))
    assert all(step_note(diagram, k) for k in range(len(trace.events) + 1))


def test_live_mode_grows_and_says_what_it_waits_for() -> None:
    tools = workspace_tools(example_workspace("mini"))
    p = live_player(tools)
    seen: list[tuple[str, int, int, str]] = []

    def listen(event) -> None:
        p.on_event(event)
        seen.append((event.kind, p.total, p.step, p.status))

    result = run(README_TASK, MockModel(), tools, on_event=listen)
    # Before each wait of the loop (and at its end), every event so far is drawn and
    # shown; the events in between wait for the next drawing, an instant later.
    waits = [n for n, (kind, *_) in enumerate(seen, 1)
             if waits_after(result.trace.events[n - 1]) or kind == "answer"]
    assert [(total, step) for _, total, step, _ in seen] == [
        (max((d for d in waits if d <= n), default=0),) * 2 for n in range(1, len(seen) + 1)]
    assert len(waits) < len(seen) / 2 and waits[-1] == len(seen)
    assert prepared(p) == list(range(len(seen) + 1))
    statuses = {kind: status for kind, _, _, status in seen}
    assert statuses["request"] == "⏳ en attente du modèle…"
    assert statuses["tool_call"] == "⚙ outil en cours…"
    assert p.status == "terminé : réponse finale"
    assert "terminé : réponse finale" in p._text.texts[-1]  # shown, not only stored
    # Replaying an earlier step shows what the run was doing then, not its end.
    request = next(i for i, (kind, *_) in enumerate(seen) if kind == "request") + 1
    assert p.state(request).status == "⏳ en attente du modèle…"
    assert "en attente du modèle" in p._text.texts[request]
    assert p.state().messages == result.messages
    assert p.state(0).totals == totals_at(from_trace(result.trace), 0)  # same starting context
    # Every prepared panel matches the finished run (the bar's scale grew on the way).
    for k in range(p.total + 1):
        assert drawn(p, k) == state(p.diagram, k).mermaid
        assert p._text.texts[k].endswith(state(p.diagram, k).bar_html)


class Handle:
    """Stands for IPython's DisplayHandle: records what was displayed and updated."""

    def __init__(self, shown: list[object]) -> None:
        self.shown = shown

    def update(self, obj: object) -> None:
        self.shown.append(("update", obj.data))


def test_run_live_displays_a_player_and_returns_the_run(monkeypatch) -> None:
    shown: list[object] = []

    def display(obj: object, raw: bool = False, display_id: bool = False) -> Handle:
        shown.append(obj)
        return Handle(shown)

    monkeypatch.setattr("IPython.display.display", display)
    events: list[str] = []
    result = run_live(WAIT_TASK, MockModel(), workspace_tools(example_workspace("attente")),
                      limits=Limits(max_turns=2), on_event=lambda e: events.append(e.kind))
    widget, static, (updated, final) = shown
    assert "application/vnd.jupyter.widget-view+json" in widget
    assert "sequenceDiagram" in static.data and arrows(html.unescape(static.data)) == 0
    assert result.reason == "max_turns" and len(result.trace.events) == len(events)
    # the static copy (HTML exports, viewers without a kernel) shows the whole run
    assert updated == "update" and arrows(html.unescape(final)) == len(events)


def test_players_never_share_state() -> None:
    first, second = Player("deux_tours"), Player("deux_tours")
    first.go(5)
    assert (first.step, second.step) == (5, 0)
    assert first.widget is not second.widget and first._panels is not second._panels
    assert first._text is not second._text and first._text.library is second._text.library
    trace = mock_run().trace
    a, b, n = Player(trace), Player(trace), len(trace.events)
    a.on_event(trace.events[0])
    assert (len(a.trace.events), len(b.trace.events), len(trace.events)) == (n + 1, n, n)


def test_every_step_is_prepared_for_the_browser() -> None:
    p = Player("erreur_outil", interval=0.5)
    assert p._controls.interval == 500 and p._controls.max == p.total == 14
    assert prepared(p) == list(range(15))  # short: all of it, at once
    # ...as lists of one widget: no widget per drawing
    assert len(p._text.sequences) == 15 and p.widget.children == (p._controls, p._text)
    for k in (0, 7, 14):
        assert drawn(p, k) == state(p.diagram, k).mermaid
        assert p._text.texts[k].endswith(state(p.diagram, k).bar_html)
    # The hub drawings are made the first time the learner asks for that view.
    assert p._text.hubs == [""] * 15
    p.view = "hub"
    for k in (0, 7, 14):
        assert drawn(p, k, "hub") == state(p.diagram, k).hub
    # Steps with the same exchange share one hub drawing (the browser caches by text).
    assert len(set(p._text.hubs)) < p.total
    p.next(), p.next(), p.previous()
    assert p.step == 1 and p.state().step_label == "étape 1 sur 14"
    p.go(99)
    assert p.step == 14 and "Réponse finale" in drawn(p, 14)


def test_a_long_run_prepares_a_window_and_more_as_the_learner_moves() -> None:
    trace = mock_run(WAIT_TASK, "attente", limits=Limits(max_turns=15)).trace
    p = Player(trace)
    assert p.total > LIGHT
    assert prepared(p) == list(range(21)) and p._text.texts[30] == ""  # around step 0
    p.go(25)  # the browser moves the step: the kernel prepares further ahead
    assert set(range(5, 46)) <= set(prepared(p))
    p.go(p.total)
    assert p.total in prepared(p) and drawn(p, p.total) == state(p.diagram, p.total).mermaid


def test_a_view_shown_later_gets_every_prepared_step() -> None:
    trace = mock_run(WAIT_TASK, "attente", limits=Limits(max_turns=15)).trace
    p = Player(trace, view="hub")
    for k in range(0, p.total + 1, 10):
        p.go(k)  # every step gets prepared, the hub drawings only
    assert not any(p._text.sequences)
    p.view = "sequence"  # then every prepared step gets its sequence drawing
    assert len(prepared(p)) == p.total + 1 > LIGHT
    assert all(drawn(p, k) == state(p.diagram, k).mermaid for k in (0, LIGHT, p.total))


def test_the_hub_view_and_the_full_diagram() -> None:
    p = Player("boucle_complete", view="hub")
    assert p.view == "hub" and p._controls.view == 1
    assert not any(p._text.sequences)
    assert drawn(p, 16, "hub") == state(p.diagram, 16).hub
    p.view = "sequence"  # the sequence drawings are made when first shown
    assert p._controls.view == 0 and drawn(p, 16) == state(p.diagram, 16).mermaid
    with pytest.raises(ValueError, match="vue inconnue"):
        Player("deux_tours", view="pieuvre")
    with pytest.raises(ValueError, match="vue inconnue"):
        p.view = "pieuvre"
    # The full diagram: only for diagrams longer than the window (the browser draws it
    # when « Diagramme complet » is opened).
    assert Player("sequenceDiagram\n  U->>H: Bonjour")._text.whole == ""
    assert arrows(p._text.whole) == 16 and HIGHLIGHT not in p._text.whole


def test_static_copy_for_exports(monkeypatch) -> None:
    p = Player("boucle_complete")
    shown: list[object] = []
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False: shown.append(obj))
    p._ipython_display_()  # what a cell ending in `p` or `display(p)` shows
    bundle, static = shown
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "Étape 16/16" in bundle["text/plain"]  # the text version, for plain viewers
    copy = html.unescape(static.data)
    assert 'class="harness-static"' in copy and arrows(copy) == 16  # the whole diagram
    assert HIGHLIGHT not in copy  # nothing highlighted
    assert '<pre class="harness-mermaid" hidden="hidden">flowchart LR' in copy  # and the hub view
    assert 'application/x-harness-mermaid">' in static.data  # the library, for exports
    # Undrawn (no script runs), the text version is read instead, open; never Mermaid's text.
    assert "<details open><summary>Version texte</summary>" in copy and "Étape 16/16" in copy
    assert copy.count("<pre") == copy.count("<pre class=\"harness-mermaid\" hidden=\"hidden\">") + 1
    # First, what a notebook reopened without its kernel says (hidden below a live widget).
    assert copy.startswith('<div class="harness-static harness-reopen" lang="fr"')
    assert "relancez les cellules (menu Run › Run All Cells)" in copy


def test_an_html_export_shows_each_players_static_copy(tmp_path) -> None:
    """nbclient saves the widgets' state: the export shows the widget's placeholder,
    and the static copy beside it."""
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    code = ("from harness_lib.course.player.player import Player\n"
            "Player('deux_tours')\n")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code),
                                         nbformat.v4.new_code_cell("Player('erreur_outil')")])
    NotebookClient(nb, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
                   ).execute()
    assert nb.metadata["widgets"]  # the state is saved: nbconvert picks the widget view
    page, _ = HTMLExporter().from_notebook_node(nb)
    copies = page.split('<div class="harness-static" lang="fr">')[1:]
    assert len(copies) == 2
    names = ("Deux tours de function calling", "Un outil qui échoue")
    for copy, name in zip(copies, names, strict=True):
        assert name in copy
        assert '<pre class="harness-mermaid" hidden="hidden">sequenceDiagram' in copy
        assert '<pre class="harness-mermaid" hidden="hidden">flowchart LR' in copy
        assert "Version texte" in copy
    # the bundled Mermaid, once: what draws the copies offline (tests/test_browser.py)
    assert page.count('<script type="application/x-harness-mermaid">') == 1


def test_a_label_with_backticks_gets_a_longer_fence() -> None:
    output = diagram_output("sequenceDiagram\n  H->>M: ```code```")  # bench/browser.py's
    assert output["data"]["text/markdown"].startswith("````mermaid\n")  # for Notebook 7


def test_on_event_needs_a_trace() -> None:
    trace = mock_run().trace
    with pytest.raises(TypeError, match="trace"):
        Player("deux_tours").on_event(trace.events[0])


def test_no_module_level_widgets() -> None:
    assert not [v for v in vars(player_module).values() if isinstance(v, w.Widget)]


def test_the_text_part_is_created_with_every_list_and_the_library() -> None:
    """Every widget is created with its whole state: an update right after a creation
    may be lost (Notebook 7). The library (the bundled Mermaid) is one widget per kernel."""
    from harness_lib.course.player.renderer import MERMAID_VERSION, library, library_bytes

    p = Player("deux_tours")
    lists = (p._text.texts, p._text.knowns, p._text.sequences, p._text.hubs)
    assert [len(x) for x in lists] == [p.total + 1] * 3 + [p.total + 1]
    assert p._text.library is library() and library().version == MERMAID_VERSION
    assert library().source == library_bytes() and library_bytes()[:2] == b"\x1f\x8b"  # gzip


def test_a_live_step_whose_exchange_changes_gets_its_new_hub_drawing() -> None:
    run = mock_run()
    p = Player(replace(run.trace, events=[]))
    p.view = "hub"
    for event in run.trace.events:
        p.on_event(event)
        assert all(p._text.hubs[: p.total + 1])  # every step drawn, as the run grows
    # At the end every step is drawn again: its exchange as the whole run shows it.
    assert p._text.hubs == [state(p.diagram, k).hub for k in range(p.total + 1)]


# « Que sait le modèle ? »: what the model received at its last call, beside messages[] now.


def _views(diagram: Diagram, k: int) -> tuple[str, str]:
    """The two views of step k: (the model's, messages[] now)."""
    shown = shown_html(diagram, k)  # as the browser fills it from the run's messages
    model, now = shown.split('class="harness-now-view"')
    return model, now


def test_before_its_first_call_the_model_knows_nothing_not_even_the_request() -> None:
    demo = PLAYERS["00 : la démo"]()
    model, now = _views(demo, 1)  # the question entered messages[]; no call yet
    assert "Bonjour, qui es-tu" not in model and "ne sait encore rien" in model
    assert "Bonjour, qui es-tu" in now
    model, _ = _views(demo, 2)  # the call: now the model has it
    assert "Bonjour, qui es-tu" in model


@pytest.mark.parametrize("name", [*PLAYERS])
def test_a_tool_result_is_known_only_after_the_call_that_carries_it(name: str) -> None:
    diagram = PLAYERS[name]()
    calls = call_steps(diagram)
    for i, step in enumerate(diagram.steps, start=1):
        if step.source != "T" or not step.entries:
            continue  # only a tool's result that entered messages[]
        after = next((c for c in calls if c > i), None)
        # A run's result is known by its tool_call_id (only a tool message carries one).
        label = html.escape(step.entries[0].label) if step.messages is None else html.escape(
            f'"tool_call_id": "{step.messages[-1]["tool_call_id"]}"')
        for k in range(i, after or len(diagram.steps) + 1):  # from the result to the call
            model, now = _views(diagram, k)
            assert label not in model and label in now, (name, i, k)
        if after is not None:
            model, _ = _views(diagram, after)
            assert label in model, (name, i, after)


def test_in_04_at_step_5_the_result_is_in_messages_but_not_yet_with_the_model() -> None:
    model, now = _views(chapter_diagram("boucle_complete"), 5)
    assert "Contenu de price.js" not in model and "Contenu de price.js" in now
    assert "Contenu de price.js" in _views(chapter_diagram("boucle_complete"), 6)[0]


def test_a_refused_call_never_reached_the_model() -> None:
    diagram = from_trace(replay("missing-result").run.trace)
    model, _ = _views(diagram, len(diagram.steps))
    assert "Appel 1, à l’étape 2" in model and "refusé par l’API" in model
    assert call_steps(diagram) == [2]  # the refused request is not a call the model got


def test_the_course_widgets_turn_on_colabs_widget_manager(monkeypatch) -> None:
    """In Colab (its google.colab.output module loaded), a widget of the course calls
    anywidget's Colab hook, as AnyWidget.__init__ would: Colab then draws the player."""
    import sys
    import types

    import anywidget._util

    calls: list[int] = []
    colab = types.ModuleType("google.colab.output")
    colab.enable_custom_widget_manager = lambda: calls.append(1)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "google.colab.output", colab)
    once = anywidget._util.enable_custom_widget_manager_once  # functools.cache: once a process
    once.cache_clear()
    Player("deux_tours")
    Player("deux_tours")
    once.cache_clear()  # the next test's process state, as before this one
    assert calls == [1]
