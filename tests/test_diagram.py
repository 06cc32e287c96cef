"""The course's diagrams: the chapter's three, the parser, the writers, traces as diagrams."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness_lib.course.drawing.diagram import (
    ROLES,
    Diagram,
    DiagramError,
    Entry,
    Participant,
    Step,
    ledger_at,
    peak,
    total_at,
    totals_at,
    transcript,
)
from harness_lib.course.drawing.mermaid import (
    CHAPTER,
    chapter_diagram,
    chapter_source,
    escape,
    parse,
    to_mermaid,
    unescape,
)
from harness_lib.course.drawing.trace_diagram import TOOL_LOOP, from_trace
from harness_lib.tokens import ledger, message_tokens, tools_tokens
from harness_lib.trace import Event, Trace

ARROW_LINE = re.compile(r"^\s*[^\s%]+?(-->>|->>|-->|->)")
OPENERS = ("loop", "rect", "alt", "opt", "par", "critical", "break", "box")


def totals(d: Diagram) -> list[int]:
    return [total_at(d, k) for k in range(len(d.steps) + 1)]


def same_diagram(a: Diagram, b: Diagram) -> None:
    """Everything but the source text and the trace messages survives a round trip."""
    assert b.steps == tuple(replace(s, messages=None) for s in a.steps)
    assert (b.participants, b.initial, b.budget) == (a.participants, a.initial, a.budget)
    assert (b.title, b.description) == (a.title, a.description)
    assert totals(b) == totals(a)


# The chapter's three diagrams, as the chapter prints them.


@pytest.mark.parametrize("name", CHAPTER)
def test_chapter_diagrams_are_copied_byte_for_byte(name: str, chapter: str) -> None:
    assert chapter_source(name) in chapter  # `chapter`: the text itself (tests/conftest.py)


def test_deux_tours() -> None:
    d = chapter_diagram("deux_tours")
    assert [(p.id, p.label) for p in d.participants] == [
        ("U", "Personne"), ("H", "Harness"), ("M", "Modèle"), ("T", "read_file")]
    assert d.initial == (Entry("system", 1200, "Prompt système"),
                         Entry("tools", 150, "Définition de read_file"))
    assert len(d.steps) == 9 and d.title == "Deux tours de function calling"
    assert [[(e.role, e.tokens) for e in s.entries] for s in d.steps] == [
        [("user", 15)], [], [("assistant", 25)], [], [], [("tool", 800)], [], [("assistant", 180)],
        []]
    assert totals(d) == [1350, 1365, 1365, 1390, 1390, 1390, 2190, 2190, 2370, 2370]
    assert totals_at(d, 9) == {"system": 1200, "tools": 150, "user": 15, "assistant": 205,
                               "tool": 800}
    assert [s.turn for s in d.steps] == [0, 1, 1, 1, 1, 1, 2, 2, 2]
    assert (d.steps[3].source, d.steps[3].target) == ("H", "H")  # the permission check
    assert [s.arrow for s in d.steps[:3]] == ["->>", "->>", "-->>"]
    assert sum(bool(s.note) for s in d.steps) == 7 and d.budget is None


def test_erreur_outil() -> None:
    d = chapter_diagram("erreur_outil")
    assert [p.label for p in d.participants] == ["Harness", "Modèle", "Outils"]
    # The user message is written before the first arrow: it is starting context.
    assert [e.role for e in d.initial] == ["system", "tools", "user"]
    assert len(d.steps) == 14
    assert totals(d) == [1515, 1515, 1540, 1540, 1552, 1552, 1572, 1572, 1632, 1632, 1657, 1657,
                         2457, 2457, 2637]
    assert d.steps[3].text == "Erreur : README.md introuvable"
    assert [s.turn for s in d.steps] == [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4]


def test_boucle_complete() -> None:
    d = chapter_diagram("boucle_complete")
    assert len(d.steps) == 16
    inside = [s.index for s in d.steps if s.loop == "Tant que le modèle demande un outil"]
    assert inside == list(range(2, 14))
    assert [s.loop for s in d.steps if s.index not in inside] == [None] * 4
    assert [s.turn for s in d.steps] == [0] + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 3
    assert totals(d)[-1] == peak(d) == 3295
    assert d.steps[4].note == "Les résultats d’outils pèsent le plus lourd dans le contexte."


@pytest.mark.parametrize("name", CHAPTER)
def test_chapter_round_trip_at_every_step(name: str) -> None:
    d = chapter_diagram(name)
    same_diagram(d, parse(to_mermaid(d)))
    for k in range(len(d.steps) + 1):
        text = to_mermaid(d, upto=k)
        assert_valid_shape(text, k)
        assert parse(text).steps == d.steps[:k]
    assert to_mermaid(d, highlight=False).count("rect ") == 0


def assert_valid_shape(text: str, arrows: int) -> None:
    """Blocks balanced (never closed before opened), exactly `arrows` arrows, one highlight."""
    depth, seen = 0, 0
    for line in text.splitlines():
        word = line.split(maxsplit=1)[0] if line.strip() else ""
        depth += (word in OPENERS) - (word == "end")
        assert depth >= 0, text
        seen += bool(ARROW_LINE.match(line)) and not line.strip().startswith("%%")
    assert (depth, seen) == (0, arrows), text
    assert text.count("rect rgba(255, 200, 0, 0.25)") == (arrows > 0)


def test_cut_inside_a_loop_closes_the_loop_and_highlights_inside_it() -> None:
    text = to_mermaid(chapter_diagram("boucle_complete"), upto=3)
    assert text.endswith("  loop Tant que le modèle demande un outil\n    H->>M: messages[]\n"
                         "    %% note: Premier tour. Le modèle ne connaît que la mission et la"
                         " liste des outils.\n    rect rgba(255, 200, 0, 0.25)\n"
                         '      M-->>H: tool_call read_file("price.js")\n'
                         '      %% ctx: assistant 25 read_file("price.js")\n    end\n  end\n')


def test_compaction_keeps_only_system_and_tools() -> None:
    d = parse("sequenceDiagram\n%% budget: 2000\n%% ctx: system 100 S\n%% ctx: tools 50 T\n"
              "H->>M: a\n%% ctx: user 500 U\nM-->>H: b\n%% ctx: compact 80 Résumé\n"
              "M-->>H: c\n%% ctx: assistant 10 A")
    assert [e.role for e in ledger_at(d, 3)] == ["system", "tools", "compact", "assistant"]
    assert totals(d) == [150, 650, 230, 240] and peak(d) == 650 and d.budget == 2000
    same_diagram(d, parse(to_mermaid(d)))


def counted_from_the_start(d: Diagram, k: int) -> list[Entry]:
    """The ledger counted from step 0, as ledger_at did before it went on from its last one."""
    context: list[Entry] = []
    for entry in [*d.initial, *(e for step in d.steps[:k] for e in step.entries)]:
        if entry.role == "compact":
            context = [e for e in context if e.role in ("system", "tools")]
        context.append(entry)
    return context


@settings(max_examples=60, deadline=None)
@given(asked=st.lists(st.tuples(st.booleans(), st.integers(0, 6)), min_size=1, max_size=30))
def test_the_ledger_is_the_same_in_any_order_of_steps(asked: list[tuple[bool, int]]) -> None:
    """ledger_at goes on from the step asked last: any order of steps, on two diagrams in
    turn (one with a compaction, one whose starting context holds one), counts the same."""
    compacted = parse("sequenceDiagram\n%% ctx: system 100 S\n%% ctx: tools 50 T\n"
                      "H->>M: a\n%% ctx: user 500 U\nM-->>H: b\n%% ctx: compact 80 R\n"
                      "M-->>H: c\n%% ctx: assistant 10 A\nH->>M: d\n%% ctx: user 7 D\n"
                      "M-->>H: e\n%% ctx: assistant 3 E\nH->>M: f\nM-->>H: g\n"
                      "%% ctx: assistant 1 G")
    started = replace(compacted, initial=(Entry("user", 9, "u"), Entry("compact", 4, "r")))
    for second, k in asked:
        d = started if second else compacted
        got = ledger_at(d, k)
        assert got == counted_from_the_start(d, k)
        got.append(Entry("user", 1, "changed by the caller"))  # the caller's copy only
    assert ledger_at(compacted, 6) == counted_from_the_start(compacted, 6)


# Labels: the Mermaid traps, escaped and unescaped in one pass.


@pytest.mark.parametrize(("label", "escaped"), [
    ("a;b", "a#59;b"),
    ("#1", "#35;1"),
    ("déjà #59; écrit", "déjà #35;59#59; écrit"),  # chained .replace() would break this one
    ("<b>gras</b>", "#60;b#62;gras#60;/b#62;"),
    ("deux\nlignes\r\nici", "deux<br>lignes<br>ici"),
    ("bip\x07\x00 tab\tici", "bip tab ici"),
    ('%%{init: {"theme": "dark"}}%%', '#37;#37;{init: {"theme": "dark"}}#37;#37;'),
])
def test_escape_and_unescape(label: str, escaped: str) -> None:
    assert escape(label) == escaped
    assert unescape(escaped) == label.replace("\r\n", "\n").replace("\x07\x00", "").replace(
        "\t", " ")


def test_a_directive_in_a_label_cannot_restyle_the_diagram() -> None:
    # A file's content or a model's reply may hold `%%{init: …}%%`: Mermaid would apply it to
    # the whole diagram, wherever it stands. Escaped, it is drawn as text; parse gives it back.
    trap = 'voici %%{init: {"theme": "dark"}}%% la suite'
    diagram = parse(f"sequenceDiagram\n  participant H as Harness\n  H->>H: {escape(trap)}\n")
    text = to_mermaid(diagram)
    assert "%%{" not in text and "}%%" not in text
    assert diagram.steps[0].text == trap


DIRECTIVE = '%%{init: {"theme": "dark", "themeCSS": "body { display: none }"}}%%'


def test_directives_in_a_readme_a_mission_and_a_reply_never_reach_mermaid() -> None:
    """A README, a mission and the model's reply (which quotes the README) that hold a
    directive, one of them long enough to be cut by a label's limit: no `%%{` in any Mermaid
    text the course writes (a directive restyles the player, an unclosed one swallows the
    rest of the diagram), and every arrow survives, in the player and in the static copy."""
    import html as html_module

    from harness_lib import MockModel, run, workspace_tools
    from harness_lib.course.drawing.hub import hub_mermaid
    from harness_lib.course.missions.tasks import README_TASK, example_workspace
    from harness_lib.course.player.state import state
    from harness_lib.course.player.static import static_html

    root = example_workspace("mini")
    readme = f"{'x' * 60} {DIRECTIVE}\n{DIRECTIVE}\n" + (root / "README.md").read_text()
    (root / "README.md").write_text(readme, encoding="utf-8")
    done = run(f"{README_TASK} {DIRECTIVE}", MockModel(), workspace_tools(root))
    replies = [e.text for e in done.trace.events if e.kind in ("answer", "tool_result")]
    assert any(DIRECTIVE in text for text in replies)  # the data holds the directive
    d = from_trace(done.trace)
    whole = to_mermaid(d)
    texts = [whole, *(to_mermaid(d, upto=k, window=7, label_limit=20, rows=2)
                      for k in range(len(d.steps) + 1)),
             *(hub_mermaid(d, k) for k in range(len(d.steps) + 1))]
    assert not [t for t in texts if "%%{" in t or "}%%" in t]
    assert "%%{" not in state(d, len(d.steps)).mermaid.split("\n", 1)[1]  # but our own look
    drawn = [line for line in whole.splitlines() if ARROW_LINE.match(line)]
    assert len(parse(whole).steps) == len(d.steps) == len(drawn)
    static = re.findall(r'<pre class="harness-mermaid" hidden="hidden">(.*?)</pre>', static_html(d),
                        re.DOTALL)
    assert len(parse(html_module.unescape(static[0])).steps) == len(d.steps)
    assert parse(whole).title == d.title and "%%{init" in d.title  # said, as text, and cut


def test_long_labels_are_shortened() -> None:
    assert escape("x" * 80) == "x" * 80
    assert escape("x" * 500) == "x" * 79 + "…"
    assert unescape("#999999999; #abc; #0;") == "#999999999; #abc; #0;"  # not characters


def chars() -> st.SearchStrategy[str]:
    tricky = st.sampled_from(list(";#<>\"'%&:{}()[]\\éàçÉ🙂👩‍💻\n\r\t\x00\x85\u2028") + [
        "#59;", "#35;", "<br>", "%%", "-->>", "end", "loop"])
    return st.one_of(st.characters(codec="utf-8"), tricky)


labels = st.lists(chars(), max_size=40).map("".join) | st.text(max_size=200)


def cleaned(text: str) -> str:
    """The label made clean (see clean()), so that no example is wasted by a filter."""
    return re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", "", text)[:80].strip()


def clean(text: str, newlines: bool = False) -> bool:
    """A label no round trip alters: trimmed, short, no control character (but \\n if allowed)."""
    body = text.replace("\n", "") if newlines else text
    return (text == text.strip() and len(text) <= 80 and "\r" not in text
            and not re.search(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", body))


@st.composite
def diagrams(draw: st.DrawFn, text: st.SearchStrategy[str] = labels) -> Diagram:
    ids = ["U", "H", "M", "T", "é2"]
    talkers = st.sampled_from(["H", "M"]) | st.sampled_from(ids)  # the model, often
    kinds = st.sampled_from(["participant", "actor"])
    # An empty label is written as a bare `participant U`: Mermaid then shows the id.
    participants = tuple(Participant(i, draw(text) or i, draw(kinds)) for i in ids)
    entries = st.builds(Entry, st.sampled_from(ROLES), st.integers(0, 10**6), text)
    loops = st.sampled_from([None, None, "Tant que le modèle demande un outil"]) | text
    steps, turn = [], 0
    for index in range(1, draw(st.integers(0, 8)) + 1):
        source, target = draw(talkers), draw(talkers)
        turn += target == "M" and source != "M"
        arrow = draw(st.sampled_from(["->>", "-->>", "->", "-->"]))
        added = tuple(draw(st.lists(entries, max_size=3)))
        note = "\n".join(draw(st.lists(text, max_size=2)))
        steps.append(Step(index, source, target, arrow, draw(text), added, note, draw(loops), turn))
    return Diagram(draw(text), draw(text), participants, tuple(draw(st.lists(entries, max_size=3))),
                   tuple(steps), draw(st.none() | st.integers(0, 10**6)))


@settings(max_examples=300)
@given(diagrams(labels.map(cleaned)))
def test_round_trip_restores_every_label_that_needs_no_shortening(d: Diagram) -> None:
    same_diagram(d, parse(to_mermaid(d)))


@settings(max_examples=300)
@given(diagrams(labels.filter(lambda t: clean(t, newlines=True) and t.strip("\n") == t)))
def test_round_trip_restores_newlines_in_arrow_labels(d: Diagram) -> None:
    d = replace(d, title="", description="", participants=(), initial=(), steps=tuple(
        replace(s, entries=(), note="", loop=None) for s in d.steps))
    assert [s.text for s in parse(to_mermaid(d)).steps] == [s.text for s in d.steps]


@settings(max_examples=300)
@given(diagrams())
def test_any_label_gives_safe_mermaid_lines(d: Diagram) -> None:
    text = to_mermaid(d)
    assert "%%{" not in text  # no directive from data, in labels, `%%` lines or accTitle
    for line in text.split("\n"):
        assert line.splitlines() in ([line], []), "one line stays one line"
        if not line.strip().startswith(("%%", "accTitle:", "accDescr:")):
            assert not re.search(r"[;#]", re.sub(r"#[0-9]+;", "", line)), line
    again = parse(text)
    assert totals(again) == totals(d) and len(again.steps) == len(d.steps)
    assert all(len(unescape(s.text)) <= 80 for s in again.steps)
    assert parse(to_mermaid(again)).steps == again.steps  # a second trip changes nothing
    for k in range(len(d.steps) + 1):
        assert_valid_shape(to_mermaid(d, upto=k), k)


# Parser errors: a French message that names the line.


@pytest.mark.parametrize(("text", "line", "words"), [
    ("sequenceDiagram\n  H->>M: a\n  %% ctx: usr 15 x", 3, "rôle inconnu « usr »"),
    ("sequenceDiagram\n  H->>M: a\n  %% ctx: user quinze x", 3, "« quinze » n’est pas un nombre"),
    ("sequenceDiagram\n  %% ctx: user", 2, "ctx incomplète"),
    ("sequenceDiagram\n  %% budget: beaucoup", 2, "nombre de tokens"),
    ("sequenceDiagram\n  loop Tant que\n    H->>M: a\n", 2, "jamais fermé"),
    ("sequenceDiagram\n  H->>M: a\n  end", 3, "sans bloc ouvert"),
    ("sequenceDiagram\n  %% note: trop tôt", 2, "doit suivre une flèche"),
    ("sequenceDiagram\n  H=>M: a", 2, "ligne non reconnue"),
    ("graph TD\n  A-->B", 1, "sequenceDiagram"),
    ("", 1, "sequenceDiagram"),
    ("sequenceDiagram\nloop a\nloop b\nend\nend", 3, "boucle dans une boucle"),
])
def test_parser_errors_name_the_line(text: str, line: int, words: str) -> None:
    with pytest.raises(DiagramError) as caught:
        parse(text)
    assert caught.value.line == line and str(caught.value).startswith(f"ligne {line} : ")
    assert words in str(caught.value)


def test_turns_count_the_arrows_sent_to_the_model() -> None:
    d = parse("sequenceDiagram\n participant X as Modèle\n H->>X: a\n X->>X: réfléchit\n"
              " X-->>H: b\n H->>X: c")
    assert [s.turn for s in d.steps] == [1, 1, 1, 2]  # a self-message is not a new call


def test_parser_accepts_what_mermaid_accepts() -> None:
    d = parse("%% a comment\nsequenceDiagram\n  autonumber\n  Note over A: hello\n"
              "  A->>+B: undeclared participants\n  actor B as Bob\n  alt ok\n  B-->>-A: x\n"
              "  else ko\n  B-xA: perdu\n  end")
    assert [(p.id, p.label, p.kind) for p in d.participants] == [
        ("A", "A", "participant"), ("B", "Bob", "actor")]
    assert [s.text for s in d.steps] == ["undeclared participants", "x", "perdu"]
    with pytest.raises(DiagramError):
        parse(None)  # type: ignore[arg-type]
    with pytest.raises(DiagramError):
        chapter_source("trois_tours")
    with pytest.raises(DiagramError):
        to_mermaid(d, upto=4)


fragments = st.sampled_from([
    "sequenceDiagram", "participant M as Modèle", "actor U", "H->>M: x", "M-->>H: a#59;b",
    "%% ctx: user 15 a", "%% ctx: compact 9 r", "%% ctx: bad 1 x", "%% ctx: user x y",
    "%% ctx:", "%% note: n", "%% budget: 100", "%% budget: -1", "loop L", "rect rgb(0,0,0)",
    "end", "accTitle: t", "accDescr: d", "autonumber", "Note over H: x", "H->>", "#59;", "",
])


@settings(max_examples=500)
@given(st.lists(fragments | st.text(max_size=30), max_size=25))
def test_parser_never_fails_otherwise(lines: list[str]) -> None:
    text = "\n".join(lines)
    try:
        d = parse(text)
    except DiagramError as error:
        assert error.line is not None and 1 <= error.line <= len(text.split("\n")) + 1
        assert str(error).startswith(f"ligne {error.line} : ")
    else:
        assert peak(d) == max(totals(d)) and min(totals(d)) >= 0


# A real run (a trace built by hand here) as a diagram.

SYSTEM = {"role": "system", "content": "Tu es un agent. Tu peux utiliser des outils."}
SCHEMAS = [{"type": "function", "function": {"name": "read_file", "description": "Lit un fichier",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]
CALL = {"id": "call_1", "type": "function",
        "function": {"name": "read_file", "arguments": '{"path": "README.md"}'}}
README = "# Mini harness\nUne boucle et un outil."


def make_trace(result: str = README, error: bool = False) -> Trace:
    trace = Trace(system=SYSTEM, tools_tokens=tools_tokens(SCHEMAS), tools=SCHEMAS)
    for kind, turn, text, message, data in [
        ("task", 0, "Mission : Lis README.md", {"role": "user", "content": "Lis README.md"}, {}),
        ("request", 1, "Appel 1 : messages[] + outils", None, {"turn": 1}),
        ("reply", 1, 'tool_call read_file({"path": "README.md"})',
         {"role": "assistant", "content": None, "tool_calls": [CALL]},
         {"usage": {"prompt_tokens": 120, "completion_tokens": 12}}),
        ("permission", 1, "Contrôle de permission : autorisé", None,
         {"verdict": "allow", "reason": "lecture autorisée", "id": "call_1"}),
        ("tool_call", 1, 'read_file({"path": "README.md"})', None, {"tool": "read_file"}),
        ("tool_result", 1, result, {"role": "tool", "tool_call_id": "call_1", "content": result},
         {"tool": "read_file", "id": "call_1", "error": error}),
        ("request", 2, "Appel 2 : messages[] + outils", None, {"turn": 2}),
        ("reply", 2, "Réponse finale", {"role": "assistant", "content": "Un harness minimal."}, {}),
        ("answer", 2, "Un harness minimal.", None, {}),
    ]:
        trace.add(Event(kind, turn, text, message, data))
        trace.events[-1].ledger = ledger(trace.messages, SCHEMAS)
    return trace


def test_from_trace_follows_the_events_and_their_messages() -> None:
    trace = make_trace()
    d = from_trace(trace)
    assert [(p.id, p.label) for p in d.participants] == [
        ("U", "Personne"), ("H", "Harness"), ("M", "Modèle"), ("T", "read_file")]
    assert [f"{s.source}{s.arrow}{s.target}" for s in d.steps] == [
        "U->>H", "H->>M", "M-->>H", "H->>H", "H->>T", "T-->>H", "H->>M", "M-->>H", "H-->>U"]
    assert d.initial == (Entry("system", message_tokens(SYSTEM), "Prompt système"),
                         Entry("tools", tools_tokens(SCHEMAS), "Définitions de read_file"))
    for k, (step, event) in enumerate(zip(d.steps, trace.events, strict=True), start=1):
        assert step.messages == tuple(trace.messages_at(k - 1))
        assert totals_at(d, k) == event.ledger  # the same count as the run's own ledger
        assert step.note and step.turn == event.turn
    assert d.steps[2].entries[0].label == 'tool_call call_1 : read_file("README.md")'
    assert d.steps[5].text == "résultat de call_1 : # Mini harness Une boucle et un outil."
    assert "120 tokens en entrée" in d.steps[2].note
    assert [s.loop == TOOL_LOOP for s in d.steps] == [False] + [True] * 5 + [False] * 3
    same_diagram(d, parse(to_mermaid(d)))


def test_from_trace_with_an_error_and_a_huge_result() -> None:
    d = from_trace(make_trace("Erreur : README.md introuvable", error=True))
    assert "erreur" in d.steps[5].note.lower()
    huge = from_trace(make_trace("x" * 5000))
    assert len(huge.steps[5].text) == 80 and len(huge.steps[5].entries[0].label) == 80
    assert huge.steps[5].entries[0].tokens == message_tokens(huge.steps[5].messages[-1])
    same_diagram(huge, parse(to_mermaid(huge)))
    two_tools = make_trace()
    two_tools.add(Event("tool_call", 2, "bash(ls)", None, {"tool": "bash"}))
    assert from_trace(two_tools).participants[-1].label == "Outils"
    assert from_trace(Trace()).steps == ()


# The transcript, for screen readers.


def test_transcript_says_every_step_with_its_context() -> None:
    lines = transcript(chapter_diagram("deux_tours")).splitlines()
    steps = [line for line in lines if line.startswith("Étape ")]
    assert len(steps) == 9
    assert steps[2] == ('Étape 3/9 — Modèle → Harness : tool_call call_1 : read_file("README.md") '
                        "(contexte : 1\u202f390 tokens)")
    assert lines[lines.index(steps[2]) + 2].strip().startswith("Écrire read_file(...)")
    loop = transcript(chapter_diagram("boucle_complete"))
    assert loop.count("Début de la boucle") == loop.count("Fin de la boucle") == 1


def test_from_trace_of_a_real_run_counts_like_the_loop() -> None:
    from harness_lib import MockModel, run, workspace_tools
    from harness_lib.course.missions.tasks import example_workspace

    done = run("Lis README.md et résume le projet", MockModel(),
               workspace_tools(example_workspace("mini")))
    d = from_trace(done.trace)
    assert [totals_at(d, k) for k in range(1, len(d.steps) + 1)] == [
        e.ledger for e in done.trace.events]
    assert d.steps[-1].messages == tuple(done.messages)
    same_diagram(d, parse(to_mermaid(d)))


def test_arrow_labels_start_with_a_line_that_says_something():
    events = [Event("task", 0, "Lance les tests", message={"role": "user", "content": "x"}),
              Event("tool_result", 1, ".....\n------\nRan 5 tests in 0.001s\n\nOK")]
    steps = from_trace(Trace(events=events)).steps
    assert steps[1].text.startswith("Ran 5 tests") and "OK" in steps[1].text
