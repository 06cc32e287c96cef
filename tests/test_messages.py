"""messages.py: the builders, and the rules an API enforces on a conversation."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from conversations import chapter
from hypothesis import given, settings
from hypothesis import strategies as st

from harness_lib.errors import ApiError
from harness_lib.messages import assistant, tool_call, tool_result, user
from harness_lib.mock import Problem, check_conversation, validate
from harness_lib.mock.api_texts import MAX_CONTENT

ORPHAN = ("Invalid parameter: messages with role 'tool' must be a response to a preceeding "
          "message with 'tool_calls'.")
NO_ID = "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'."
UNANSWERED = ("An assistant message with 'tool_calls' must be followed by tool messages "
              "responding to each 'tool_call_id'. The following tool_call_ids did not have "
              "response messages: ")
ROLE_VALUES = ("Supported values are: 'system', 'assistant', 'user', 'function', 'tool', "
               "and 'developer'.")
NAME_PATTERN = ("Invalid '{path}': string does not match pattern. Expected a string that "
                "matches the pattern '^[a-zA-Z0-9_-]+$'.")
CONTENT_TYPE = ("Invalid type for 'messages[0].content': expected one of a string or array of "
                "objects, but got an integer instead.")




def calls(*ids: str) -> dict[str, Any]:
    return assistant(tool_calls=[tool_call(i, "read_file", {"path": "a.txt"}) for i in ids])


def call_with(**changes: Any) -> list[dict[str, Any]]:
    """A user message, then an assistant whose only tool call has `changes` (None: removed)."""
    call = tool_call("call_1", "read_file", "{}")
    for key, value in changes.items():
        target = call["function"] if key in ("name", "arguments") else call
        if value is None:
            del target[key]
        else:
            target[key] = value
    return [user("x"), {"role": "assistant", "content": "x", "tool_calls": [call]}]


def summary(problems: list[Problem]) -> list[tuple[Any, ...]]:
    return [(p.index, p.field, p.message, p.param, p.code) for p in problems]


# --- Builders ---


def test_the_chapter_conversation_is_exactly_the_json_of_the_chapter() -> None:
    assert chapter()[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "read_file", "arguments": '{"path": "README.md"}'}}],
    }
    assert chapter()[3] == {"role": "tool", "tool_call_id": "call_1",
                            "content": "# Mini harness\nUne boucle et un outil."}


def test_tool_call_serialises_dict_arguments_as_readable_json_text() -> None:
    arguments = tool_call("c", "edit_file", {"texte": "résumé"})["function"]["arguments"]
    assert arguments == '{"texte": "résumé"}'
    assert json.loads(arguments) == {"texte": "résumé"}
    assert tool_call("c", "f", '{"a":1}')["function"]["arguments"] == '{"a":1}'


def test_assistant_without_calls_has_no_tool_calls_field() -> None:
    assert assistant("Bonjour") == {"role": "assistant", "content": "Bonjour"}
    assert "tool_calls" not in assistant("Bonjour", tool_calls=[])


# --- Valid conversations ---


def test_the_chapter_conversation_has_no_problem() -> None:
    assert check_conversation(chapter()) == []
    validate(chapter())  # does not raise


@pytest.mark.parametrize("order", list(itertools.permutations(["call_a", "call_b", "call_c"])))
def test_three_calls_in_one_turn_answered_in_any_order_are_valid(order: tuple[str, ...]) -> None:
    conversation = [user("x"), calls("call_a", "call_b", "call_c")]
    conversation += [tool_result(i, "ok") for i in order] + [assistant("fini")]
    assert check_conversation(conversation) == []


def test_a_conversation_may_end_with_a_tool_result_or_use_content_parts() -> None:
    parts = [{"type": "text", "text": "Lis README.md"}]
    conversation = [{"role": "developer", "content": "x"}, {"role": "user", "content": parts},
                    calls("call_1"), tool_result("call_1", "")]
    assert check_conversation(conversation) == []


# --- Each rule: the provider's exact text, param, code and the index ---

RULES = {
    "tool result without a request": (
        [user("x"), tool_result("call_1", "r")],
        [(1, "role", ORPHAN, "messages.[1].role", None)]),
    "tool result after an assistant without tool_calls": (
        [user("x"), assistant("Je lis."), tool_result("call_1", "r")],
        [(2, "role", ORPHAN, "messages.[2].role", None)]),
    "tool_call_id not among the calls": (
        [*chapter()[:4], tool_result("call_9", "r")],
        [(4, "tool_call_id", "Invalid parameter: 'tool_call_id' of 'call_9' not found in "
          "'tool_calls' of previous message.", "messages.[4].tool_call_id", None)]),
    "tool message without tool_call_id": (
        [user("x"), calls("call_1"), {"role": "tool", "content": "r"}, tool_result("call_1", "r")],
        [(2, "tool_call_id", NO_ID, "messages.[2].tool_call_id", None)]),
    "a call without result before the next message": (
        [user("x"), calls("call_1", "call_2"), tool_result("call_1", "r"), user("et ?")],
        [(1, "role", UNANSWERED + "call_2", "messages.[1].role", None)]),
    "calls without results at the end": (
        [user("x"), calls("call_1", "call_2")],
        [(1, "role", UNANSWERED + "call_1, call_2", "messages.[1].role", None)]),
    "assistant content null without tool_calls": (
        [user("x"), assistant(None)],
        [(1, "content", "Invalid value for 'content': expected a string, got null.",
          "messages.[1].content", None)]),
    "assistant content missing without tool_calls": (
        [user("x"), {"role": "assistant"}],
        [(1, "content", "Invalid value for 'content': expected a string, got null.",
          "messages.[1].content", None)]),
    "unknown role": (
        [{"role": "robot", "content": "x"}],
        [(0, "role", f"Invalid value: 'robot'. {ROLE_VALUES}", "messages[0].role",
          "invalid_value")]),
    "missing role": (
        [{"content": "x"}],
        [(0, "role", "Missing required parameter: 'messages[0].role'.", "messages[0].role",
          "missing_required_parameter")]),
    "role not a string": (
        [{"role": 3, "content": "x"}],
        [(0, "role", "Invalid type for 'messages[0].role': expected a string, but got an "
          "integer instead.", "messages[0].role", "invalid_type")]),
    "empty list": (
        [],
        [(None, "", "Invalid 'messages': empty array. Expected an array with minimum length 1, "
          "but got an empty array instead.", "messages", "empty_array")]),
    "user without content": (
        [{"role": "user"}],
        [(0, "content", "Missing required parameter: 'messages[0].content'.",
          "messages[0].content", "missing_required_parameter")]),
    "tool result without content": (
        [user("x"), calls("call_1"), {"role": "tool", "tool_call_id": "call_1"}],
        [(2, "content", "Missing required parameter: 'messages[2].content'.",
          "messages[2].content", "missing_required_parameter")]),
    "content of the wrong type": (
        [{"role": "system", "content": 42}],
        [(0, "content", CONTENT_TYPE, "messages[0].content", "invalid_type")]),
    "a content part that is not an object": (
        [{"role": "user", "content": ["texte"]}],
        [(0, "content[0]", "Invalid type for 'messages[0].content[0]': expected an object, but "
          "got a string instead.", "messages[0].content[0]", "invalid_type")]),
    "tool_call_id not a string": (
        [user("x"), calls("call_1"), tool_result("call_1", "r"),
         {"role": "tool", "tool_call_id": 7, "content": "r"}],
        [(3, "tool_call_id", "Invalid type for 'messages[3].tool_call_id': expected a string, "
          "but got an integer instead.", "messages[3].tool_call_id", "invalid_type")]),
    "tool_calls not a list": (
        [user("x"), {"role": "assistant", "content": "x", "tool_calls": "call_1"}],
        [(1, "tool_calls", "Invalid type for 'messages[1].tool_calls': expected an array of "
          "objects, but got a string instead.", "messages[1].tool_calls", "invalid_type")]),
    "tool_calls empty": (
        [user("x"), {"role": "assistant", "content": "x", "tool_calls": []}],
        [(1, "tool_calls", "Invalid 'messages[1].tool_calls': empty array. Expected an array "
          "with minimum length 1, but got an empty array instead.", "messages[1].tool_calls",
          "empty_array")]),
    "a tool call that is not an object": (
        [user("x"), {"role": "assistant", "content": "x", "tool_calls": ["call_1"]}],
        [(1, "tool_calls[0]", "Invalid type for 'messages[1].tool_calls[0]': expected an "
          "object, but got a string instead.", "messages[1].tool_calls[0]", "invalid_type")]),
    "a tool call without id": (
        call_with(id=None),
        [(1, "tool_calls[0].id", "Missing required parameter: 'messages[1].tool_calls[0].id'.",
          "messages[1].tool_calls[0].id", "missing_required_parameter")]),
    "a tool call without type": (
        call_with(type=None) + [tool_result("call_1", "r")],
        [(1, "tool_calls[0].type", "Missing required parameter: "
          "'messages[1].tool_calls[0].type'.", "messages[1].tool_calls[0].type",
          "missing_required_parameter")]),
    "a tool call without function": (
        call_with(function=None) + [tool_result("call_1", "r")],
        [(1, "tool_calls[0].function", "Missing required parameter: "
          "'messages[1].tool_calls[0].function'.", "messages[1].tool_calls[0].function",
          "missing_required_parameter")]),
    "a tool call without name": (
        call_with(name=None) + [tool_result("call_1", "r")],
        [(1, "tool_calls[0].function.name", "Missing required parameter: "
          "'messages[1].tool_calls[0].function.name'.",
          "messages[1].tool_calls[0].function.name", "missing_required_parameter")]),
    "arguments as an object instead of JSON text": (
        call_with(arguments={"path": "a"}) + [tool_result("call_1", "r")],
        [(1, "tool_calls[0].function.arguments", "Invalid type for "
          "'messages[1].tool_calls[0].function.arguments': expected a string, but got an "
          "object instead.", "messages[1].tool_calls[0].function.arguments", "invalid_type")]),
    "the same id twice in one turn": (
        [user("x"), calls("call_1", "call_1"), tool_result("call_1", "r")],
        [(1, "tool_calls", "Duplicate value for 'tool_call_id' of call_1 in message[1]",
          "messages.[1].tool_calls", None)]),
    "two results for one request": (
        [user("x"), calls("call_1"), tool_result("call_1", "a"), tool_result("call_1", "b")],
        [(3, "tool_call_id", "Invalid parameter: Duplicate value for 'tool_call_id' of "
          "'call_1', in messages[2] and messages[3].", "messages.[3].tool_call_id", None)]),
    "a result repeated in a later turn": (
        [user("x"), calls("call_1"), tool_result("call_1", "a"), calls("call_1"),
         tool_result("call_1", "b")],
        [(4, "tool_call_id", "Invalid parameter: Duplicate value for 'tool_call_id' of "
          "'call_1', in messages[2] and messages[4].", "messages.[4].tool_call_id", None)]),
    "a name with a space": (
        [{"role": "user", "content": "x", "name": "Jean Dupont"}],
        [(0, "name", NAME_PATTERN.format(path="messages[0].name"), "messages[0].name",
          "invalid_value")]),
    "a name that is not text": (
        [{"role": "user", "content": "x", "name": 7}],
        [(0, "name", "Invalid type for 'messages[0].name': expected a string, but got an "
          "integer instead.", "messages[0].name", "invalid_type")]),
    "role function without name": (
        [{"role": "function", "content": "42"}],
        [(0, "name", "Missing required parameter: 'messages[0].name'.", "messages[0].name",
          "missing_required_parameter")]),
    "a content part of an unknown type": (
        [{"role": "user", "content": [{"type": "thinking", "thinking": "..."}]}],
        [(0, "content[0].type", "Invalid value: 'thinking'. Supported values are: 'text', "
          "'image_url', 'input_audio', 'refusal', 'audio', and 'file'.",
          "messages[0].content[0].type", "invalid_value")]),
    "a content part without type": (
        [{"role": "user", "content": [{"text": "a"}]}],
        [(0, "content[0].type", "Missing required parameter: 'messages[0].content[0].type'.",
          "messages[0].content[0].type", "missing_required_parameter")]),
    "a text part without text": (
        [{"role": "user", "content": [{"type": "text"}]}],
        [(0, "content[0].text", "Missing required parameter: 'messages[0].content[0].text'.",
          "messages[0].content[0].text", "missing_required_parameter")]),
    "a text part whose text is not text": (
        [{"role": "system", "content": [{"type": "text", "text": None}]}],
        [(0, "content[0].text", "Invalid type for 'messages[0].content[0].text': expected a "
          "string, but got null instead.", "messages[0].content[0].text", "invalid_type")]),
    # OpenAI's text, quoted in OpenHands/OpenHands#7700 and openai/openai-node#1030.
    "an image in a tool message (text only)": (
        [user("x"), calls("call_1"), {"role": "tool", "tool_call_id": "call_1", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}]}],
        [(2, "", "Invalid 'messages[2]'. Image URLs are only allowed for messages with role "
          "'user', but this message with role 'tool' contains an image URL.", "messages[2]",
          "invalid_value")]),
    "a sound in a tool message (text only)": (
        [user("x"), calls("call_1"), {"role": "tool", "tool_call_id": "call_1", "content": [
            {"type": "input_audio", "input_audio": {"data": "AA", "format": "mp3"}}]}],
        [(2, "content[0].type", "(harness) 'messages[2].content[0].type': a 'tool' message "
          "accepts only parts of type text, not 'input_audio'.", "messages[2].content[0].type",
          "invalid_value")]),
    # OpenAI's text, quoted in run-llama/llama_index#17555 and docker/docker-agent#63.
    "user content null": (
        [{"role": "user", "content": None}],
        [(0, "content", "Invalid value for 'content': expected a string, got null.",
          "messages.[0].content", None)]),
    "tool content null": (
        [user("x"), calls("call_1"), {"role": "tool", "tool_call_id": "call_1", "content": None}],
        [(2, "content", "Invalid value for 'content': expected a string, got null.",
          "messages.[2].content", None)]),
    # OpenAI checks the names of past calls too: quoted in mcp-use/mcp-use#90.
    "a past call whose name is outside the pattern": (
        [user("x"), assistant(tool_calls=[tool_call("call_1", "functions.read file", {})]),
         tool_result("call_1", "r")],
        [(1, "tool_calls[0].function.name", "Invalid 'messages[1].tool_calls[0].function.name': "
          "string does not match pattern. Expected a string that matches the pattern "
          "'^[a-zA-Z0-9_-]+$'.", "messages[1].tool_calls[0].function.name", "invalid_value")]),
    "an empty list of parts": (
        [{"role": "user", "content": []}],
        [(0, "content", "Invalid 'messages[0].content': empty array. Expected an array with "
          "minimum length 1, but got an empty array instead.", "messages[0].content",
          "empty_array")]),
    "a tool call of another type": (
        call_with(type="web_search") + [tool_result("call_1", "r")],
        [(1, "tool_calls[0].type", "Invalid value: 'web_search'. Supported values are: "
          "'function' and 'custom'.", "messages[1].tool_calls[0].type", "invalid_value")]),
}


def test_a_content_over_the_api_maximum_length_is_refused() -> None:
    long = "x" * (MAX_CONTENT + 1)
    for content, field in ((long, "content"), ([{"type": "text", "text": long}],
                                                "content[0].text")):
        [found] = check_conversation([{"role": "user", "content": content}])
        assert (found.field, found.code) == (field, "string_above_max_length")
        assert found.message == (f"Invalid 'messages[0].{field}': string too long. Expected a "
                                 f"string with maximum length {MAX_CONTENT}, but got a string "
                                 f"with length {MAX_CONTENT + 1} instead.")
        assert_good_explication(found)
    assert check_conversation([{"role": "user", "content": "x" * MAX_CONTENT}]) == []


def test_valid_parts_names_and_custom_calls_pass() -> None:
    conversation = [
        {"role": "system", "content": [{"type": "text", "text": "Tu es un agent."}]},
        {"role": "user", "name": "jean_dupont-2", "content": [
            {"type": "text", "text": "Que vois-tu ?"},
            {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "Non."}]},
        {"role": "function", "name": "ancienne_fonction", "content": "42"},
    ]
    assert check_conversation(conversation) == []


@pytest.mark.parametrize(("messages", "expected"), RULES.values(), ids=list(RULES))
def test_each_rule_reports_the_provider_text_at_the_right_place(
    messages: list[Any], expected: list[tuple[Any, ...]]
) -> None:
    problems = check_conversation(messages)
    assert summary(problems) == expected
    for problem in problems:
        assert_good_explication(problem)


@pytest.mark.parametrize(("value", "word"), [
    ("bonjour", "a string"), (5, "an integer"), (1.5, "a decimal number"), (True, "a boolean"),
    (None, "null"), ([1], "an array"),
])
def test_a_message_that_is_not_an_object_names_its_json_type(value: object, word: str) -> None:
    [problem] = check_conversation([value])
    assert problem.message == (f"Invalid type for 'messages[0]': expected an object, but got "
                               f"{word} instead.")
    assert (problem.index, problem.param, problem.code) == (0, "messages[0]", "invalid_type")
    assert problem.explication.startswith("Message 0 : ")


@pytest.mark.parametrize(("value", "word"), [
    ("abc", "a string"), (None, "null"), ({"role": "user"}, "an object"), (3, "an integer"),
])
def test_messages_that_is_not_a_list_is_one_problem(value: object, word: str) -> None:
    [problem] = check_conversation(value)
    assert problem.message == (f"Invalid type for 'messages': expected an array of objects, "
                               f"but got {word} instead.")
    assert (problem.index, problem.param, problem.code) == (None, "messages", "invalid_type")
    assert "messages" in problem.explication


# --- Explanations, errors, order ---


def test_the_explication_says_what_and_where_in_french() -> None:
    [problem] = check_conversation([*chapter()[:3], tool_result("call_9", "r")])[:1]
    assert problem.explication == (
        "Message 3 (role tool) : son tool_call_id est call_9, mais le message assistant 2 n’a "
        "demandé que call_1. Chaque résultat doit reprendre l’identifiant d’une demande.")
    assert str(problem) == f"messages[3].tool_call_id : {problem.explication}"


def test_every_problem_is_reported_shape_first_then_logic() -> None:
    messages = [tool_result("call_1", "r"), {"role": "user", "content": 1}, "x", assistant()]
    problems = check_conversation(messages)
    assert [(p.index, p.code) for p in problems] == [
        (1, "invalid_type"), (2, "invalid_type"), (0, None), (3, None)]


def test_as_api_error_is_the_body_the_api_would_send() -> None:
    [problem] = check_conversation([user("x"), tool_result("call_1", "r")])
    error = problem.as_api_error()
    assert isinstance(error, ApiError)
    assert (error.status, error.message, error.explication) == (400, ORPHAN, problem.explication)
    assert error.body == {"error": {"message": ORPHAN, "type": "invalid_request_error",
                                    "param": "messages.[1].role", "code": None}}


def test_validate_raises_only_the_first_problem() -> None:
    with pytest.raises(ApiError) as caught:
        validate([{"role": "robot", "content": "x"}, {"content": "y"}])
    assert caught.value.status == 400
    assert caught.value.body["error"]["param"] == "messages[0].role"


def test_a_huge_conversation_is_checked_in_one_pass() -> None:
    ids = [f"call_{n}" for n in range(20_000)]
    messages = [user("x"), calls(*ids)] + [tool_result(i, "ok") for i in reversed(ids)]
    assert check_conversation(messages) == []
    deep: object = "fond"
    for _ in range(10_000):
        deep = [deep]
    assert len(check_conversation([{"role": "user", "content": deep}, deep])) == 2


# --- Fuzzing: never raises, always explains ---


def assert_good_explication(problem: Problem) -> None:
    assert isinstance(problem, Problem)
    assert problem.message and problem.param.startswith("messages")
    assert problem.explication.strip()
    assert problem.field in problem.explication  # names the field...
    if problem.index is not None:  # ...and the message
        assert problem.explication.startswith(f"Message {problem.index}")
    assert problem.as_api_error().status == 400


json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                   max_size=4),
    max_leaves=20,
)
ids = st.sampled_from(["call_1", "call_2", "call_3"])
roles = st.sampled_from(["system", "user", "assistant", "tool", "developer", "function", "x"])
calls_like = st.lists(st.fixed_dictionaries({"id": ids}, optional={
    "type": st.just("function"), "function": st.fixed_dictionaries(
        {"name": st.just("read_file"), "arguments": st.just("{}") | json_like})}) | json_like,
    max_size=3)
message_like = st.fixed_dictionaries({}, optional={
    "role": roles | json_like, "content": st.none() | st.text(max_size=5) | json_like,
    "tool_calls": calls_like | json_like, "tool_call_id": ids | json_like,
}) | json_like | st.dictionaries(st.integers() | st.booleans(), json_like, max_size=2)


@settings(max_examples=300)
@given(st.lists(message_like, max_size=8) | json_like)
def test_check_conversation_never_raises_and_always_explains(messages: object) -> None:
    problems = check_conversation(messages)
    assert isinstance(problems, list)
    for problem in problems:
        assert_good_explication(problem)
    if problems:
        with pytest.raises(ApiError):
            validate(messages)


@settings(max_examples=100)
@given(st.lists(st.one_of(st.sets(st.integers()), st.binary(), st.builds(object),
                          st.tuples(json_like), st.frozensets(st.text())), max_size=4))
def test_python_objects_that_are_not_json_are_reported_too(values: list[object]) -> None:
    problems = check_conversation([user("x"), *values])
    assert len(problems) == len(values)
    for problem in problems:
        assert_good_explication(problem)
