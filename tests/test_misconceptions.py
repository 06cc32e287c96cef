"""Each classic mistake behind a refused messages[] gets its own French explanation."""

from __future__ import annotations

import pytest

from harness_lib.course.playground.misconceptions import explain
from harness_lib.course.playground.replies import default_tools, outputs
from harness_lib.course.playground.sending import send
from harness_lib.messages import assistant, tool_call, tool_result, user
from harness_lib.mock import check_conversation

ASK = user("Lis README.md")
CALL = assistant(tool_calls=[tool_call("call_1", "read_file", {"path": "README.md"})])
RESULT = tool_result("call_1", "# Projet")
CASES = {  # kind -> (messages[], words of its explanation)
    "definitions": ([ASK, default_tools()[0]], "la définition d’un outil (read_file)"),
    "before": ([ASK, RESULT, CALL], "le résultat est placé avant sa demande"),
    "separated": ([ASK, CALL, user("Alors ?"), RESULT], "le message 2 s’intercale"),
    "invented": ([ASK, CALL, tool_result("call_9", "# Projet")],
                 "call_9, un identifiant qu’aucun message assistant n’a demandé"),
    "dropped": ([ASK, RESULT], "le message assistant qui la contenait a été oublié"),
}


@pytest.mark.parametrize("kind", CASES)
def test_send_explains_each_classic_mistake(kind: str) -> None:
    messages, words = CASES[kind]
    problems = check_conversation(messages)
    found = explain(messages, problems)
    assert found is not None and found.kind == kind and words in found.text
    result = send(messages, show=False)
    page = outputs(messages, default_tools(), result, problems)[0]["text/html"]
    assert "Ce qui s’est sans doute passé" in page and words in page.replace("&#x27;", "'")
    assert "HTTP 400" in page and "envoyé" not in page  # refused, never « envoyé »


def test_definitions_as_a_list_inside_messages() -> None:
    """messages.append(tools): a list of definitions, not only « il manque le champ role »."""
    messages = [ASK, default_tools()]
    assert explain(messages, check_conversation(messages)).kind == "definitions"


def test_an_old_id_in_a_new_turn_is_named() -> None:
    second = assistant(tool_calls=[tool_call("call_2", "list_files", {"path": "."})])
    messages = [ASK, CALL, RESULT, second, tool_result("call_1", "docs/")]
    found = explain(messages, check_conversation(messages))
    assert found.kind == "invented" and "le message 3 juste avant demande call_2" in found.text


@pytest.mark.parametrize("messages", [[ASK], [ASK, CALL, RESULT], [{"role": "robot"}],
                                      [ASK, CALL, RESULT, RESULT], "pas une liste", []])
def test_nothing_is_invented_where_no_classic_mistake_is(messages: object) -> None:
    assert explain(messages, check_conversation(messages)) is None
