"""The grader of notebook 08: each way to write the loop wrong gets its own French reason."""

from __future__ import annotations

from typing import Any

import pytest

from harness_lib import SYSTEM_PROMPT
from harness_lib.course.exercises.grader import MISSIONS, grade
from harness_lib.course.missions.own_loop import reference_loop, without
from harness_lib.course.missions.scenarios import replay
from harness_lib.messages import read_call, system, tool_result, user
from harness_lib.tools import run_tool


def test_the_reference_loop_passes_every_mission() -> None:
    report = grade(reference_loop)
    assert report.ok and [r.mission.name for r in report.results] == [m.name for m in MISSIONS]
    assert report.text().endswith("4 / 4 missions réussies.")
    assert report.results[-1].watched.calls == 15


@pytest.mark.parametrize(("rule", "incident", "said"), [
    ("RULE 1", "missing-call", "RULE 1 manque"),
    ("RULE 2", "missing-result", "RULE 2 manque"),
])
def test_removing_a_rule_gives_the_real_refusal_of_its_incident(
        rule: str, incident: str, said: str) -> None:
    report = grade(without(rule))
    first = report.results[0]
    assert not report.ok and said in first.explication
    assert first.watched.error.message == replay(incident).error.message
    assert f"`{first.watched.error.message}`" in first.explication
    assert "même problème que pour « Lire README.md et le résumer »" in report.text()


def test_removing_exit_is_explained() -> None:
    report = grade(without("EXIT"))
    assert "il manque EXIT" in report.results[0].explication
    assert report.results[-1].ok  # the mission without end never reaches a final answer


def loop_with(body: str) -> Any:
    """A learner's loop: the reference one with one line replaced (as text, like an edit)."""
    import inspect
    import linecache
    import textwrap

    source = textwrap.dedent(inspect.getsource(reference_loop))
    old, new = body.split(" => ")
    assert old in source
    text, name = source.replace(old, new), "<cellule>"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)  # as IPython does
    namespace = dict(reference_loop.__globals__)
    exec(compile(text, name, "exec"), namespace)
    return namespace["reference_loop"]


@pytest.mark.parametrize(("edit", "mission", "said"), [
    ("for _turn in range(max_turns): => while True:", 3,
     "appelé le modèle 45 fois sans s’arrêter : il lui manque la limite de tours"),
    ("for _turn in range(max_turns): => for _turn in range(max_turns + 1):", 3,
     "appelé le modèle 16 fois ; avec max_tours = 15"),
    ('tool_result(call["id"], result) => tool_result("call_1", result)', 1,
     "ne reprend pas l’identifiant de la demande"),
    ("messages.append(reply.message)  # RULE 1 => "
     "messages.append(reply.message) if reply.tool_calls else None", 0,
     "La réponse finale n’est pas le dernier message de `messages[]`"),
    ("result = run_tool(read_call(call), tools).content => result = tools[9]", 0,
     "IndexError : list index out of range (ligne 12 : `result = tools[9]`)"),
])
def test_each_mistake_is_explained_in_french(edit: str, mission: int, said: str) -> None:
    result = grade(loop_with(edit)).results[mission]
    assert not result.ok and said in result.explication


def test_an_error_kept_from_the_model_fails_the_recovery_mission() -> None:
    def hides_errors(task: str, model: Any, tools: Any, max_turns: int) -> list[Any]:
        messages = [system(SYSTEM_PROMPT), user(task)]
        for _ in range(max_turns):
            reply = model.complete(messages, [t.schema() for t in tools])
            messages.append(reply.message)
            if not reply.tool_calls:
                return messages
            for call in reply.tool_calls:
                seen = run_tool(read_call(call), tools)
                text = "README vide." if seen.is_error else seen.content  # hides the error
                messages.append(tool_result(call["id"], text))
        return messages

    result = grade(hides_errors).results[1]
    assert not result.ok and "l’erreur de read_file doit lui revenir" in result.explication


def test_the_report_is_html_with_a_line_per_mission() -> None:
    page = grade(without("RULE 2"))._repr_html_()
    assert page.count("<li") == 4 and "✘" in page and "0 / 4 missions réussies." in page
    assert "<code>messages.append(tool_result(appel[&quot;id&quot;], resultat))</code>" in page
