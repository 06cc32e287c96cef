"""tokens.py: an offline estimate, monotonic, and a per-role ledger that never raises."""

from __future__ import annotations

from typing import Any

from conversations import chapter
from hypothesis import given, settings
from hypothesis import strategies as st

from harness_lib.messages import assistant, tool_call, tool_result, user
from harness_lib.tokens import (
    MESSAGE_OVERHEAD,
    estimate,
    ledger,
    message_tokens,
    tools_tokens,
)

READ_FILE = {"type": "function", "function": {
    "name": "read_file", "description": "Lit un fichier du dépôt.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                   "required": ["path"]}}}




def test_estimate_is_about_four_characters_per_token() -> None:
    assert [estimate(text) for text in ["", "a", "abcd", "abcde", "x" * 400]] == [0, 1, 1, 2, 100]


@given(st.text(), st.text())
def test_estimate_grows_with_the_text(text: str, more: str) -> None:
    assert estimate(text) <= estimate(text + more)
    assert (estimate(text) > 0) == bool(text)


@given(st.text(), st.text(min_size=8))
def test_a_longer_message_takes_more_tokens(text: str, more: str) -> None:
    assert message_tokens(user(text)) < message_tokens(user(text + more))


def test_a_message_costs_its_text_its_tool_calls_and_a_small_overhead() -> None:
    assert message_tokens(user("")) == MESSAGE_OVERHEAD
    assert message_tokens(user("x" * 40)) == MESSAGE_OVERHEAD + 10
    call = tool_call("call_1", "read_file", {"path": "README.md"})
    assert message_tokens(assistant(tool_calls=[call])) > MESSAGE_OVERHEAD + 10  # JSON counted
    assert message_tokens(assistant(tool_calls=[call, call])) > message_tokens(
        assistant(tool_calls=[call]))
    assert message_tokens(tool_result("call_1", "ok")) > message_tokens(user("ok"))  # the id


def test_tools_tokens_counts_each_schema() -> None:
    assert tools_tokens([]) == 0
    assert 0 < tools_tokens([READ_FILE]) < tools_tokens([READ_FILE, READ_FILE])


def test_the_ledger_sums_each_role_in_a_fixed_order() -> None:
    messages = chapter()
    result = ledger(messages, [READ_FILE])
    assert list(result) == ["system", "tools", "user", "assistant", "tool"]
    assert result["tools"] == tools_tokens([READ_FILE])
    assert result["assistant"] == message_tokens(messages[2]) + message_tokens(messages[4])
    assert result["tool"] == message_tokens(messages[3])
    assert sum(result.values()) == sum(map(message_tokens, messages)) + tools_tokens([READ_FILE])


def test_the_ledger_leaves_out_empty_roles_and_maps_old_names() -> None:
    assert ledger([user("Bonjour")], []) == {"user": MESSAGE_OVERHEAD + 2}
    developer = {"role": "developer", "content": "Sois bref."}
    assert ledger([developer], []) == {"system": message_tokens(developer)}
    assert ledger([], []) == {}


def test_garbage_is_tolerated_and_what_can_be_counted_is() -> None:
    circular: list[Any] = []
    circular.append(circular)
    deep: Any = "fond"
    for _ in range(10_000):
        deep = [deep]
    messages = [None, 5, "texte", {"role": 3}, {"content": "sans rôle"}, {1: "clé entière"},
                {"role": "user", "content": circular}, {"role": "user", "content": deep},
                {"role": "tool", "content": {2: "x", "a": {1, 2}}, "tool_call_id": 9},
                user("compté")]
    result = ledger(messages, "pas une liste")  # type: ignore[arg-type]
    assert result["user"] >= message_tokens(user("compté")) + 2 * MESSAGE_OVERHEAD
    assert result["tool"] >= MESSAGE_OVERHEAD
    assert ledger("pas une liste", [READ_FILE]) == {"tools": tools_tokens([READ_FILE])}  # type: ignore[arg-type]


json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                   max_size=4),
    max_leaves=20,
)
message_like = st.fixed_dictionaries({}, optional={
    "role": st.sampled_from(["system", "user", "assistant", "tool", "x"]) | json_like,
    "content": json_like, "tool_calls": json_like, "tool_call_id": json_like}) | json_like


@settings(max_examples=200)
@given(st.lists(message_like, max_size=6) | json_like, st.lists(json_like, max_size=3) | json_like)
def test_the_ledger_never_raises_and_counts_only_positive_tokens(
    messages: Any, schemas: Any
) -> None:
    result = ledger(messages, schemas)
    assert set(result) <= {"system", "tools", "user", "assistant", "tool"}
    assert all(isinstance(tokens, int) and tokens > 0 for tokens in result.values())
