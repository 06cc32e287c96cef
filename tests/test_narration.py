"""What each step says: the author's note, or a sentence from its arrow; a run's status."""

from __future__ import annotations

import pytest

from harness_lib.course.drawing.diagram import from_trace
from harness_lib.course.drawing.mermaid import CHAPTER, chapter_diagram, parse
from harness_lib.course.missions.scenarios import INCIDENTS, replay
from harness_lib.course.player.narration import START_NOTE, status, step_note
from harness_lib.trace import Event


@pytest.mark.parametrize("name", CHAPTER)
def test_no_step_of_the_chapter_is_silent(name: str) -> None:
    diagram = chapter_diagram(name)
    notes = [step_note(diagram, k) for k in range(len(diagram.steps) + 1)]
    assert notes[0] == START_NOTE and all(note.strip() for note in notes)
    for step, note in zip(diagram.steps, notes[1:], strict=True):
        assert note == step.note if step.note else step.text in note


@pytest.mark.parametrize("name", sorted(INCIDENTS))
def test_no_step_of_a_run_is_silent(name: str) -> None:
    diagram = from_trace(replay(name).run.trace)
    assert all(step_note(diagram, k).strip() for k in range(len(diagram.steps) + 1))


def test_the_prediction_step_of_notebook_01_explains_the_tool_call() -> None:
    # 01 asks « what does the model know » before the tool result: that step speaks.
    note = step_note(chapter_diagram("deux_tours"), 5)
    assert "read_file" in note and "messages[]" in note


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
  T-->>H: 3 lignes
  H-->>U: Salut""")
    notes = [step_note(diagram, k) for k in range(1, 7)]
    assert notes[0] == ("Personne confie une demande au harness : Bonjour. "
                        "messages[] reçoit : user (8 tokens).")
    assert notes[1].startswith("Harness envoie messages[] au modèle")
    assert notes[2].startswith("Le modèle répond à Harness : Salut")
    assert notes[3] == "Harness agit seul : Vérifie."
    assert notes[4].startswith("L’outil Outils renvoie son résultat")
    assert notes[5] == "Le harness rend la réponse à Personne : Salut."


def test_status_of_each_event() -> None:
    assert status(Event("request", 1, "Appel 1")) == "⏳ en attente du modèle…"
    assert status(Event("tool_call", 1, "x")) == "⚙ outil en cours…"
    assert status(Event("answer", 2, "fin")) == "terminé : réponse finale"
    stopped = Event("stop", 2, "Arrêt", data={"reason": "budget"})
    assert status(stopped) == "terminé : budget atteint"
