"""The bill of a run (each call resends everything) and the HTML charts."""

from __future__ import annotations

import re

from harness_lib.course.drawing.charts import (
    ADDED_STYLE,
    billing,
    context_bar,
    context_chart,
    fr,
    ledger_table,
    messages_block,
)
from harness_lib.course.drawing.diagram import Entry
from harness_lib.course.missions.tasks import PRICE_TASK, README_TASK, example_workspace
from harness_lib.loop import run
from harness_lib.mock.model import MockModel
from harness_lib.tokens import ledger
from harness_lib.tools import workspace_tools
from harness_lib.trace import Event, Trace


def test_billing_of_real_mock_runs_is_the_sum_of_contexts() -> None:
    for task, workspace in ((README_TASK, "mini"), (PRICE_TASK, "prix")):
        trace = run(task, MockModel(), workspace_tools(example_workspace(workspace))).trace
        requests = [i for i, e in enumerate(trace.events) if e.kind == "request"]
        # Independently: what each call sends is messages[] so far plus the tool schemas.
        sent = [sum(ledger(trace.messages_at(i), trace.tools).values()) for i in requests]
        costs = billing(trace)
        assert [c.turn for c in costs] == list(range(1, len(requests) + 1))
        assert [c.context_tokens for c in costs] == sent
        assert [c.billed_input_total for c in costs] == [sum(sent[: n + 1])
                                                          for n in range(len(sent))]


def test_the_bill_grows_like_the_square_of_the_turns() -> None:
    # Each turn adds 100 tokens to a 1000-token start: call n sends 1000 + 100 (n - 1).
    trace = Trace(events=[Event("request", n, f"Appel {n}", ledger={"system": 1000,
                                                                    "tool": 100 * (n - 1)})
                          for n in range(1, 11)])
    totals = [c.billed_input_total for c in billing(trace)]
    assert totals == [1000 * n + 100 * n * (n - 1) // 2 for n in range(1, 11)]
    assert totals[-1] - totals[-2] > totals[1] - totals[0]  # each call costs more


def test_billing_without_recorded_ledger_counts_the_messages() -> None:
    user = {"role": "user", "content": "x" * 40}  # 10 tokens + 4 of framing
    trace = Trace(events=[Event("task", 0, "Mission", message=user), Event("request", 1, "Appel")],
                  tools_tokens=50)
    assert [(c.context_tokens, c.billed_input_total) for c in billing(trace)] == [(64, 64)]


def test_context_chart_shows_the_numbers() -> None:
    trace = run(README_TASK, MockModel(), workspace_tools(example_workspace("mini"))).trace
    html = context_chart(trace)
    last = billing(trace)[-1]
    assert fr(last.billed_input_total) in html and fr(last.context_tokens) in html
    assert html.count("tour ") == len(billing(trace))
    assert "Aucun appel" in context_chart(Trace())


def test_context_bar_groups_by_role_and_outlines_the_new_entries() -> None:
    entries = [Entry("system", 1200, "Prompt"), Entry("user", 15, "Mission"),
               Entry("assistant", 25, "tool_call"), Entry("tool", 1130, "<b>fichier</b>")]
    html = context_bar(entries, added=1, scale=4740, budget=4000)
    assert html.count(ADDED_STYLE) == 1
    outlined = re.findall(r'<div title="([^"]*)"[^>]*' + re.escape(ADDED_STYLE), html)
    assert outlined == ["tool : 1\u202f130 tokens — &lt;b&gt;fichier&lt;/b&gt;"]
    assert "&lt;b&gt;fichier" in html and "<b>fichier" not in html  # labels are escaped
    assert "2\u202f370" in html and "tool 1\u202f130" in html  # total and legend
    assert "left:84.388%" in html  # budget 4000 of 4740
    assert "au-delà du budget" not in html
    assert "au-delà du budget" in context_bar(entries, 0, 5000, budget=2000)


def test_tables_escape_what_they_show() -> None:
    assert "&lt;script&gt;" in ledger_table([Entry("user", 3, "<script>")], added=1)
    assert "&lt;b&gt;" in messages_block([{"role": "user", "content": "<b>"}])


def test_french_numbers() -> None:
    assert (fr(0), fr(999), fr(2370), fr(1234567)) == ("0", "999", "2\u202f370",
                                                       "1\u202f234\u202f567")


def test_a_long_context_draws_one_block_per_role_beside_the_steps_own() -> None:
    """Beyond MANY entries each would be thinner than a pixel: the older entries of one
    role are one block (a 50 000-step run drew 25 000 per step), the step's own apart."""
    from harness_lib.course.drawing.charts import MANY, context_bar
    from harness_lib.course.drawing.diagram import Entry

    entries = [Entry("system", 100, "Prompt système")] + [
        Entry("tool" if i % 2 else "assistant", 10, f"message {i}") for i in range(MANY * 3)]
    bar = context_bar(entries, 1, 10_000)
    blocks = re.findall(r'<div title="([^"]*)"', bar)
    assert len(blocks) == 4 and bar.count(ADDED_STYLE) == 1  # system, assistant, tool, new
    assert "assistant" in blocks[1] and "180 messages" in blocks[1]
    assert f"<b>{fr(3700)}</b> tokens" in bar  # the total still counts every entry
    few = context_bar(entries[:MANY], 1, 10_000)
    assert len(re.findall(r'<div title="', few)) == MANY  # one block per entry, as before
