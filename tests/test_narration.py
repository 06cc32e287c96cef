"""What each step says: the author's note, or a sentence written for its step; a run's status.

The whole course is read here as a teacher would: every note of every player the
notebooks build (tests/course_players.py) is distinct from its label, names each
participant as a word, and speaks French.
"""

from __future__ import annotations

import re
import typing

import pytest
from course_players import PLAYERS

from harness_lib.course.drawing.diagram import Diagram
from harness_lib.course.drawing.mermaid import CHAPTER, chapter_diagram, parse
from harness_lib.course.drawing.run_notes import STOP_REASONS
from harness_lib.course.drawing.trace_diagram import from_trace
from harness_lib.course.missions.scenarios import INCIDENTS, replay
from harness_lib.course.player.narration import START_NOTE, status, step_note
from harness_lib.course.player.state import state
from harness_lib.text import one_line
from harness_lib.trace import Event, StopReason

# A participant's box name used as a word in a sentence: « Personne » reads as "nobody".
BARE_NAME = re.compile(r"\b(Personne|Harness|Modèle|Outils)\b|(?<![\w.’'-])[UHMTA](?![\w.’'-])")
# The harness's codes that a learner must not read untranslated (outside a quote).
CODES = re.compile(r"\b(allow|deny|api_error|max_turns|dead_end|answer)\b")


def _built() -> dict[str, Diagram]:
    return {title: build() for title, build in PLAYERS.items()}


@pytest.fixture(scope="module")
def course() -> dict[str, Diagram]:
    return _built()


def test_every_note_of_the_course_is_written_for_its_step(course: dict[str, Diagram]) -> None:
    problems = []
    for title, diagram in course.items():
        for k in range(1, len(diagram.steps) + 1):
            step, note = diagram.steps[k - 1], state(diagram, k).note
            label = one_line(step.text)
            said = re.sub(r"« [^»]*»", "«  »", note)  # quoted text is someone's own words
            if one_line(note) == label or not note.strip():
                problems.append(f"{title}, étape {k} : la note répète le libellé")
            if match := BARE_NAME.search(said):
                problems.append(f"{title}, étape {k} : « {match[0]} » nommé sans article : {note}")
            if "(s)" in note or ".." in note.replace("...", "") or " à le " in note:
                problems.append(f"{title}, étape {k} : français fautif : {note}")
    assert not problems, "\n".join(problems)


def test_the_course_speaks_no_code_where_a_learner_reads(course: dict[str, Diagram]) -> None:
    for title, diagram in course.items():
        for k in range(1, len(diagram.steps) + 1):
            said = re.sub(r"« [^»]*»|\([^)]*\)|RULE \d|tool_calls", "", state(diagram, k).note)
            assert not CODES.search(said), (title, k, said)


@pytest.mark.parametrize("name", CHAPTER)
def test_no_step_of_the_chapter_is_silent(name: str) -> None:
    diagram = chapter_diagram(name)
    notes = [step_note(diagram, k) for k in range(len(diagram.steps) + 1)]
    assert notes[0] == START_NOTE and all(note.strip() for note in notes)
    for step, note in zip(diagram.steps, notes[1:], strict=True):
        assert note == step.note or not step.note


@pytest.mark.parametrize("name", sorted(INCIDENTS))
def test_no_step_of_a_run_is_silent(name: str) -> None:
    diagram = from_trace(replay(name).run.trace)
    assert all(step_note(diagram, k).strip() for k in range(len(diagram.steps) + 1))


def test_the_prediction_step_of_notebook_01_explains_the_tool_call() -> None:
    # 01 asks « what does the model know » before the tool result: that step speaks, and
    # does not answer the question (when the model will see the result).
    note = step_note(chapter_diagram("deux_tours"), 5)
    assert "read_file" in note and "n’intervient pas" in note
    assert "prochain appel" not in note and "connaîtra" not in note


def test_what_a_sentence_says_for_each_kind_of_arrow() -> None:
    diagram = parse("""sequenceDiagram
  participant U as Personne
  participant H as Harness
  participant M as Modèle
  participant T as Outils
  U->>H: Bonjour
  %% ctx: user 8 Bonjour
  H->>M: messages[]
  M-->>H: Salut
  H->>H: Vérifie
  H->>T: read_file("a")
  T-->>H: 3 lignes
  %% ctx: tool 9 a
  H-->>U: Salut""")
    notes = [step_note(diagram, k) for k in range(1, 8)]
    assert notes[0] == ("La personne confie la demande au harness, qui l’ajoute à messages[] "
                        "(role user, 8 tokens). Le modèle ne l’a pas encore vue.")
    assert notes[1].startswith("Appel 1 : le harness envoie au modèle messages[] (la mission)")
    assert notes[2].startswith("Le modèle répond sans demander d’outil : c’est sa réponse finale")
    assert notes[3] == ("Le harness agit seul, sans appeler le modèle : « Vérifie ». "
                        "messages[] ne change pas.")
    assert notes[4].startswith('Le harness exécute read_file("a").')
    assert notes[5].startswith("L’outil read_file rend son résultat au harness") \
        and "(role tool, 9 tokens)" in notes[5]
    assert notes[6].startswith("Le harness rend la réponse finale à la personne.")


def test_the_refusal_is_the_apis_with_its_text_whole_and_in_french() -> None:
    for name in ("missing-call", "missing-result"):
        incident = replay(name)
        diagram = from_trace(incident.run.trace)
        last = diagram.steps[-1]
        assert (last.source, last.arrow, last.target) == ("A", "--x", "H")
        assert diagram.steps[-2].target == "A"  # the request reached the API, not the model
        assert "API" in [p.label for p in diagram.participants]
        note = state(diagram, len(diagram.steps)).note
        assert incident.error is not None and incident.error.message in note
        assert incident.error.explication in note and "avant qu’un modèle" in note


def test_a_result_whose_request_was_never_added_says_so() -> None:
    diagram = from_trace(replay("missing-call").run.trace)
    result = next(s for s in diagram.steps if s.text.startswith("résultat de call_1"))
    assert "le même tool_call_id que la demande" not in result.note
    assert "aucun message assistant de messages[] ne porte la demande call_1" in result.note


def test_the_fixed_pipeline_sends_no_tools_and_explains_the_request_it_writes() -> None:
    diagram = PLAYERS["06 : la machine à états (fixed_pipeline)"]()
    request = next(s for s in diagram.steps if s.target == "M")
    assert "sans outils" in request.text and "sans aucune définition d’outil" in request.note
    assert "définition des outils" not in request.note
    written = next(s for s in diagram.steps if s.target == "T")
    assert "au nom du modèle" in written.note and "le modèle n’a rien demandé" in written.note


def test_call_ids_are_on_the_tool_call_and_tool_result_arrows() -> None:
    diagram = from_trace(replay("normal").run.trace)
    texts = [s.text for s in diagram.steps]
    assert 'tool_call call_1 : read_file("README.md")' in texts
    assert any(t.startswith("résultat de call_1 : ") for t in texts)


def test_status_of_each_event_is_french() -> None:
    assert status(Event("request", 1, "Appel 1")) == "⏳ en attente du modèle…"
    assert status(Event("tool_call", 1, "x")) == "⚙ outil en cours…"
    assert status(Event("answer", 2, "fin")) == "terminé : réponse finale"
    budget = Event("stop", 2, "Arrêt", data={"reason": "budget"})
    assert status(budget) == "terminé : budget atteint"
    assert status(Event("stop", 2, "Arrêt", data={"reason": "api_error"})) == \
        "terminé : refus de l’API"


def test_every_stop_reason_has_its_french() -> None:
    assert set(typing.get_args(StopReason)) <= set(STOP_REASONS)
    assert all(re.search(r"[a-z]_[a-z]", text) is None for text in STOP_REASONS.values())


def test_what_messages_held_is_counted_as_a_recount_would_say() -> None:
    """Held counts each message once (a long run stays linear): at every step of a run, its
    counts are those of the whole list counted again, and it knows every call id asked."""
    from collections import Counter

    from harness_lib import MockModel, run, workspace_tools
    from harness_lib.course.drawing.held import Held
    from harness_lib.course.missions.tasks import README_TASK, example_workspace

    trace = run(README_TASK, MockModel(), workspace_tools(example_workspace("mini"))).trace
    held, seen = Held(), [trace.system]
    held.add(trace.system)
    for event in trace.events:
        if event.message is not None:
            held.add(event.message)
            seen.append(event.message)
        roles = Counter(m.get("role") for m in seen)
        calls = [c for m in seen for c in m.get("tool_calls") or []]
        assert (len(held), held.roles["tool"], held.calls) == (len(seen), roles["tool"], len(calls))
        assert all(held.asked(c["id"]) for c in calls) and not held.asked("call_inconnu")
