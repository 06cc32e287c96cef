"""Be the harness for a whole mission: every step checked, the missing piece named."""

from __future__ import annotations

import itertools

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from traitlets.config import Config

from harness_lib import SYSTEM_PROMPT, ApiError, Completion, HarnessError
from harness_lib.course.exercises.hand_harness import HandHarness, TourError
from harness_lib.course.missions.tasks import README_TASK
from harness_lib.messages import system, tool_result, user
from harness_lib.mock import check_conversation


def start() -> tuple[HandHarness, list, Completion]:
    harness = HandHarness("docs")
    messages = [system(SYSTEM_PROMPT), user(README_TASK)]
    assert [f.ok for f in harness.check(messages)] == [True]
    reply = harness.call(messages, show=False)
    assert isinstance(reply, Completion)
    return harness, messages, reply


def texts(harness: HandHarness, messages: list) -> list[str]:
    return [f.text for f in harness.check(messages) if not f.ok]


def test_the_whole_recovery_mission_by_hand() -> None:
    """read_file fails, list_files, read_file docs/README.md, final answer: four calls."""
    harness, messages, reply = start()
    for path, tool in [("README.md", "read_file"), (".", "list_files"),
                       ("docs/README.md", "read_file")]:
        call = reply.tool_calls[0]
        assert call["function"]["name"] == tool and path in call["function"]["arguments"]
        messages.append(reply.message)
        result = harness.read_file(path) if tool == "read_file" else harness.list_files(path)
        messages.append(tool_result(call["id"], result))
        assert texts(harness, messages) == []
        reply = harness.call(messages, show=False)
    assert not reply.tool_calls and harness.done and "docs/" in reply.message["content"]
    assert harness.check(messages)[0].text.startswith("Le modèle a répondu sans demander")
    assert messages[3]["content"] == "Erreur : README.md introuvable"


def test_each_missing_piece_is_named() -> None:
    harness, messages, reply = start()
    missing = texts(harness, messages)
    assert "n’est pas dans messages[]" in missing[0] and "messages.append(reponse.message)" \
        in missing[0]
    assert 'call_1 : read_file({"path": "README.md"}) n’a pas encore été exécuté' in missing[1]
    messages.append(reply.message)
    harness.read_file("docs/README.md")  # not what was asked
    assert "Vous avez exécuté read_file" in texts(harness, messages)[0]
    result = harness.execute(reply.tool_calls[0])  # exactly what was asked
    assert "aucun message tool ne répond à call_1 (règle 2)" in texts(harness, messages)[0]
    messages.append(tool_result("call_9", result))
    assert "porte tool_call_id 'call_9', la demande s’appelle 'call_1'" in \
        texts(harness, messages)[0]
    messages[-1] = tool_result("call_1", "# Projet\nUn résumé inventé.")
    assert "renvoyez-le tel quel" in texts(harness, messages)[0]
    messages[-1] = tool_result("call_1", result)
    assert texts(harness, messages) == []


def test_the_api_refusal_is_shown_after_the_checks() -> None:
    harness, messages, reply = start()
    messages.append(tool_result("call_1", harness.execute(reply.tool_calls[0])))  # no RULE 1
    InteractiveShell.instance(config=Config(HistoryManager={"enabled": False}))  # display()
    try:
        with capture_output() as shown:
            refused = harness.call(messages)
    finally:
        InteractiveShell.clear_instance()
    assert isinstance(refused, ApiError) and "preceeding" in refused.message
    pages = [o.data.get("text/html", "") for o in shown.outputs]
    assert "✘" in pages[0] and "n’est pas dans messages[]" in pages[0]  # the check first
    assert "HTTP 400" in pages[1]  # then send()'s verdict, diagram and bar
    # the diagram: drawn by the course's own widget, with its text version for other viewers
    drawn = [o.data for o in shown.outputs if "application/vnd.jupyter.widget-view+json" in o.data]
    assert len(drawn) == 1 and "API → Harness" in drawn[0]["text/plain"]
    assert len(harness.replies) == 1  # a refusal is not a reply


def test_a_turn_can_be_played_again() -> None:
    """turn(n) goes back to just after call n: later calls and tool runs are forgotten."""
    harness, messages, reply = start()
    messages.append(reply.message)
    messages.append(tool_result("call_1", harness.read_file("README.md")))
    harness.call(messages, show=False)
    again, first = harness.turn(1)
    assert again == [system(SYSTEM_PROMPT), user(README_TASK)] and first is reply
    assert len(harness.replies) == 1 and harness.runs == []
    assert "n’a pas encore été exécuté" in texts(harness, again + [first.message])[0]
    again.append("ne touche pas l’historique")
    assert harness.turn(1)[0] == [system(SYSTEM_PROMPT), user(README_TASK)]
    with pytest.raises(HarnessError) as early:
        harness.turn(2)
    assert "L’appel 2 n’a pas eu lieu" in early.value.explication


def test_garbage_never_raises() -> None:
    harness = HandHarness("mini")
    assert not harness.check("pas une liste")[0].ok
    assert isinstance(harness.call(None, show=False), ApiError)
    assert harness.execute({"function": {"name": "read_file", "arguments": "{"}}).startswith(
        "Erreur")
    assert harness.execute("n’importe quoi").startswith("Erreur")


def first_turn() -> tuple[HandHarness, list, list]:
    """The first call done and read_file run: the four messages a learner may order."""
    harness, messages, reply = start()
    result = tool_result("call_1", harness.execute(reply.tool_calls[0]))
    return harness, messages, [*messages, reply.message, result]


@pytest.mark.parametrize("order", list(itertools.permutations(range(4))))
def test_the_checks_agree_with_the_api_in_every_order(order: tuple[int, ...]) -> None:
    """All ✔ exactly when the API accepts: a result before its call is never ✔ règle 2."""
    harness, _, pieces = first_turn()
    for size in range(1, 5):
        messages = [pieces[i] for i in order[:size]]
        verdicts = harness.check(messages)
        refused = bool(check_conversation(messages))
        if refused:
            assert not all(f.ok for f in verdicts), messages
            assert verdicts[-1].field == "API" and "L’API refuserait" in verdicts[-1].text
        else:
            assert all(f.field != "API" for f in verdicts)


def test_a_result_before_its_call_is_explained() -> None:
    harness, messages, pieces = first_turn()
    messages = [*messages, pieces[3], pieces[2]]  # the result, then the assistant message
    verdicts = {f.field: f for f in harness.check(messages)}
    assert verdicts["règle 1"].ok  # the model's message is there, unchanged
    assert not verdicts["règle 2"].ok and "avant la demande call_1" in verdicts["règle 2"].text
    assert "placé avant sa demande" in verdicts["API"].text
    assert isinstance(harness.call(messages, show=False), ApiError)  # the API agrees


def test_a_dropped_assistant_message_is_explained() -> None:
    harness, messages, pieces = first_turn()
    verdicts = {f.field: f for f in harness.check([*messages, pieces[3]])}
    assert not verdicts["règle 1"].ok
    assert "la demande call_1 n’y est pas" in verdicts["règle 2"].text
    assert "a été oublié (règle 1" in verdicts["API"].text


def test_a_result_after_another_message_is_explained() -> None:
    harness, messages, pieces = first_turn()
    verdicts = {f.field: f for f in harness.check([*messages, pieces[2], user("?"), pieces[3]])}
    assert "le message 3 s’intercale" in verdicts["règle 2"].text
    assert "s’intercale entre la demande et son résultat" in verdicts["API"].text


def test_another_file_in_tour_1_is_explained_at_tour_2() -> None:
    """03's « exécutez un autre fichier »: the model answers at once, and the next tour says
    why there is nothing to run, in French, instead of an IndexError."""
    harness, messages, reply = start()
    messages.append(reply.message)
    result = harness.read_file("docs/README.md")  # not the file asked for
    messages.append(tool_result(harness.request(reply)["id"], result))
    assert "Vous avez exécuté read_file" in texts(harness, messages)[0]
    second = harness.call(messages, show=False)
    _, again = harness.turn(2)
    assert again is second and not second.tool_calls  # the model already answered
    with pytest.raises(TourError) as raised:
        harness.request(again)
    assert "L’appel 2 ne demande aucun outil" in raised.value.explication
    assert raised.value._render_traceback_() == [f"✘ {raised.value.explication}"]


def test_any_argument_name_reaches_the_tool() -> None:
    # `name` or `self` among a call's arguments: the tool's own answer, never a TypeError.
    harness = HandHarness("mini")
    call = {"id": "call_1", "type": "function", "function": {
        "name": "read_file", "arguments": '{"path": "README.md", "name": 1, "self": 2}'}}
    said = harness.execute(call)
    assert said.startswith("Erreur") and "name" in said  # the schema refuses the extra field
    assert harness.runs[-1].arguments == {"path": "README.md", "name": 1, "self": 2}


class Hostile:
    """A value that refuses to be read: str(), repr(), ==, hash, len, iter all raise."""

    def _no(self, *_args: object) -> object:
        raise RuntimeError("illisible")

    __str__ = __repr__ = __eq__ = __hash__ = __len__ = __iter__ = __bool__ = _no


ENGLISH = ("Error", "Traceback", "object has no", "not supported", "illisible")


def test_hostile_values_after_a_reply_get_french_answers() -> None:
    harness, messages, reply = start()
    for sent in (Hostile(), {"role": "user", "content": "x"}, [Hostile(), user("x")]):
        answer = harness.call(sent, show=False)  # refused by the API, said in French
        assert isinstance(answer, ApiError) and not any(w in answer.explication for w in ENGLISH)
        with capture_output() as shown:
            harness.call(sent)  # the checks and the refusal displayed
        assert "illisible" not in str(shown.outputs)
    said = harness.check([Hostile(), user("x")])
    assert [f.ok for f in said] == [False] and "messages[0] est un objet Hostile" in said[0].text
    assert harness.check([{"role": "user", "content": Hostile()}])[0].ok is False
    assert harness.run(Hostile()).startswith("Erreur : le nom de l’outil doit être un texte")
    with pytest.raises(TourError) as bad:
        harness.request(Hostile())
    assert "request attend une réponse du modèle" in bad.value.explication


def test_turn_reads_a_number_typed_as_text_and_explains_the_rest() -> None:
    harness, messages, reply = start()
    again, first = harness.turn("1")  # as harness.turn(1)
    assert again == messages and first is reply
    for wrong in (None, True, "un", 1.5, Hostile()):
        with pytest.raises(TourError) as bad:
            harness.turn(wrong)  # type: ignore[arg-type]
        assert "turn attend le numéro d’un appel" in bad.value.explication, wrong
