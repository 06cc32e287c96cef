"""No loss: whatever stops a run, its story can be saved, replayed and continued.

Every stop reason of the loop, and an interruption (Ctrl-C in a tool), leave a trace
that saves to JSON lines and loads back unchanged, that ReplayModel plays again to
the same messages, and whose messages[] a model accepts as the start of a new call
(or, after Ctrl-C, with exactly one documented problem and its repair).
Then two fuzzers: tools.run_tool() and policy.check_permission() never raise, whatever the call.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness_lib import (
    STRICT_POLICY,
    ApiError,
    HarnessError,
    Limits,
    MockModel,
    ReplayModel,
    Trace,
    check_conversation,
    run,
    tool_result,
    user,
    workspace_tools,
)
from harness_lib.course.missions.tasks import PRICE_TASK, README_TASK, WAIT_TASK, example_workspace
from harness_lib.messages import SYSTEM_PROMPT, ToolCall, read_call, system
from harness_lib.models import Completion
from harness_lib.policy import DANGEROUS_COMMANDS, DEFAULT_POLICY, Policy, Rule, check_permission
from harness_lib.tools import Tool, run_tool

REPO = str(Path(__file__).resolve().parents[1])  # harness_lib, for a python subprocess

# --- every stop, saved, replayed, continued ---------------------------------------------------


class FailingAt:
    """MockModel's answers, until call number `fail_at`: that one is refused by the API."""

    name = "mock"
    price = None

    def __init__(self, fail_at: int) -> None:
        self.mock, self.calls, self.fail_at = MockModel(), 0, fail_at

    def complete(self, messages: list, tools: list, timeout: float = 120.0) -> Completion:
        self.calls += 1
        if self.calls == self.fail_at:
            raise ApiError(503, "Service Unavailable", explication="Fournisseur indisponible.")
        return self.mock.complete(messages, tools, timeout)


class CutShort(MockModel):
    """A final answer cut by the length limit: finish_reason "length"."""

    def complete(self, messages: list, tools: list, timeout: float = 120.0) -> Completion:
        reply = super().complete(messages, tools, timeout)
        if not reply.tool_calls:
            reply.finish_reason = "length"
        return reply


# (reason, task, workspace, model, keyword arguments of run())
STOPS: list[tuple[str, str, str, Any, dict[str, Any]]] = [
    ("answer", README_TASK, "mini", MockModel, {}),
    ("max_turns", WAIT_TASK, "attente", MockModel, {"limits": Limits(max_turns=3)}),
    ("budget", WAIT_TASK, "mini", MockModel, {"limits": Limits(max_tokens=2000)}),
    ("failures", "Lance `python absent.py`", "mini", MockModel, {}),
    ("denied", "Lance `rm -rf /`", "mini", MockModel, {}),
    ("human", PRICE_TASK, "prix", MockModel, {"policy": STRICT_POLICY}),
    ("timeout", "Lance `sleep 5`", "mini", MockModel, {"limits": Limits(tool_timeout=0.2)}),
    ("timeout", README_TASK, "mini", lambda: MockModel(latency=0.05),
     {"limits": Limits(model_timeout=0.01)}),
    ("api_error", README_TASK, "mini", lambda: FailingAt(2), {}),
    ("length", README_TASK, "mini", CutShort, {}),
]


@pytest.mark.parametrize(("reason", "task", "folder", "make_model", "options"), STOPS,
                         ids=[f"{s[0]}-{i}" for i, s in enumerate(STOPS)])
def test_every_stop_can_be_saved_replayed_and_continued(
    tmp_path: Path, reason: str, task: str, folder: str, make_model: Any, options: dict
) -> None:
    tools = workspace_tools(example_workspace(folder, tmp_path / "ws"))
    result = run(task, make_model(), tools, **options)
    assert result.reason == reason
    # Saved and loaded back: the same events, hence the same messages.
    result.trace.save(tmp_path / "run.jsonl")
    loaded = Trace.load(tmp_path / "run.jsonl")
    assert [asdict(e) for e in loaded.events] == [asdict(e) for e in result.trace.events]
    assert loaded.messages == result.messages
    # Replayed on a fresh copy of the folder, at the same place (paths show in the results):
    # the loop rebuilds the same messages.
    shutil.rmtree(tmp_path / "ws")
    tools = workspace_tools(example_workspace(folder, tmp_path / "ws"))
    again = run(task, ReplayModel.from_trace(loaded), tools, **options)
    assert again.messages == result.messages
    if reason not in ("api_error", "timeout", "length"):
        # A model failure is not in the replies: the replay stops when they run out
        # ("api_error"); and ReplayModel does not keep finish_reason ("length" -> "answer").
        assert again.reason == reason
    # Continued: a valid conversation, that a model checking like the API accepts.
    assert check_conversation(result.messages) == []
    schemas = [t.schema() for t in tools]
    MockModel().complete([*result.messages, user("Continue, s’il te plaît.")], schemas)


def test_ctrl_c_in_a_tool_leaves_the_documented_tail_and_its_repair(tmp_path: Path) -> None:
    def interrupted(**_: Any) -> str:
        raise KeyboardInterrupt  # the learner stops the kernel while the tool runs

    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    tools = [Tool("read_file", "Lit un fichier.", schema, interrupted)]
    trace = Trace(system=system(SYSTEM_PROMPT))  # a listener's copy, like the CLI's
    with pytest.raises(KeyboardInterrupt):  # not an error of the run: it goes up, as it should
        run(README_TASK, MockModel(), tools, on_event=trace.add)
    trace.save(tmp_path / "run.jsonl")
    messages = Trace.load(tmp_path / "run.jsonl").messages
    assert [m["role"] for m in messages] == ["system", "user", "assistant"]
    problems = check_conversation(messages)
    assert [(p.index, p.message) for p in problems] == [(2, (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1"
    ))]
    # The repair: one result per pending call, then the conversation goes on.
    messages += [tool_result(c["id"], "Erreur : exécution interrompue")
                 for c in messages[-1]["tool_calls"]]
    assert check_conversation(messages) == []
    MockModel().complete(messages, [t.schema() for t in tools])


# --- fuzz: run_tool() --------------------------------------------------------------------------

SENTINEL = "SENTINELLE-HORS-DU-DOSSIER"
ESCAPES = ["../outside/secret.txt", "docs/../../outside/secret.txt", "~/secret.txt", "link.txt",
           "linkdir/secret.txt", "/etc/passwd", "a\0b", "a\nb", "a" * 5000]
NAMES = ["read_file", "list_files", "edit_file", "bash"]

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
json_like = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),
    max_leaves=8,
)
paths = st.sampled_from([*ESCAPES, "README.md", ".", "", "docs"]) | st.text(max_size=20)
fields = st.sampled_from(["path", "old", "new", "command", "mode"]) | st.text(max_size=6)
argument_objects = st.dictionaries(fields, paths | json_like, max_size=4)
arguments = (
    argument_objects.map(json.dumps)  # the API's format: a JSON string
    | argument_objects  # tolerated: an object
    | json_like.map(json.dumps)  # valid JSON, maybe not an object
    | st.text(max_size=30)  # anything at all
    | st.sampled_from(['{"path": ', "[" * 5000, "1" * 5000, "NaN", "{}" * 3])
    | st.dictionaries(st.integers(), scalars, min_size=1, max_size=2)  # keys that are not text
)
names = st.sampled_from([*NAMES, "delete_repo", ""]) | st.text(max_size=10) | json_like
functions = st.fixed_dictionaries({"name": names, "arguments": arguments})
calls = (
    st.fixed_dictionaries({"id": json_like, "type": json_like, "function": functions})
    | st.fixed_dictionaries({"function": json_like})
    | json_like
    | st.builds(object)
)


def fuzz_tools(root: Path) -> list[Tool]:
    """The workspace tools, bash replaced by a stub: fuzzing must not run random commands."""
    real = workspace_tools(root)
    bash = real[3]
    stub = Tool(bash.name, bash.description, bash.parameters,
                lambda command, timeout: "[code de sortie : 0]", timed=True)
    return [*real[:3], stub]


def fuzz_workspace(base: Path) -> Path:
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text(SENTINEL)
    root = base / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "README.md").write_text("# Mini harness\n")
    (root / "link.txt").symlink_to(base / "outside" / "secret.txt")
    (root / "linkdir").symlink_to(base / "outside", target_is_directory=True)
    return root


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One workspace for all the examples (edits inside it are allowed), the sentinel outside."""
    folder = tmp_path_factory.mktemp("fuzz")
    fuzz_workspace(folder)
    return folder


def assert_untouched(base: Path) -> None:
    assert (base / "outside" / "secret.txt").read_text() == SENTINEL
    assert sorted(p.name for p in (base / "outside").iterdir()) == ["secret.txt"]


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.lists(calls, min_size=1, max_size=4))
def test_run_tool_never_raises_whatever_the_call(base: Path, batch: list[Any]) -> None:
    tools = fuzz_tools(base / "ws")
    for call in batch:
        seen = run_tool(read_call(call), tools, timeout=1.0)
        assert isinstance(seen.content, str)
        assert not seen.is_error or seen.content.startswith("Erreur : ")
        assert SENTINEL not in seen.content
        json.dumps(seen.content)  # can go into messages[] as is
    assert_untouched(base)


def bad(kind: str, name: str, value: Any) -> Any:
    """A call that is wrong in one way (`kind`), for the tool `name`."""
    args = {"read_file": {"path": "README.md"}, "list_files": {"path": "."},
            "edit_file": {"path": "README.md", "old": "#", "new": "##"},
            "bash": {"command": "ls"}}[name]
    wrong = {
        "not_a_dict": value if not isinstance(value, dict) else [value],
        "no_function": {"id": "c", "function": value if not isinstance(value, dict) else None},
        "name_not_text": {"function": {"name": value if not isinstance(value, str) else None,
                                       "arguments": json.dumps(args)}},
        "unknown_tool": {"function": {"name": f"{name}_{value!s:.10}", "arguments": "{}"}},
        "invalid_json": {"function": {"name": name, "arguments": json.dumps(args)[:-1]}},
        "not_an_object": {"function": {"name": name, "arguments": json.dumps([value])}},
        "missing": {"function": {"name": name, "arguments": json.dumps(
            dict(list(args.items())[1:]))}},
        "unknown_field": {"function": {"name": name, "arguments": json.dumps(
            {**args, f"x{value!s:.5}": 1})}},
        "wrong_type": {"function": {"name": name, "arguments": json.dumps(
            {**args, next(iter(args)): [value]})}},
    }
    return wrong[kind]


KINDS = ["not_a_dict", "no_function", "name_not_text", "unknown_tool", "invalid_json",
         "not_an_object", "missing", "unknown_field", "wrong_type"]


@settings(max_examples=200)
@given(kind=st.sampled_from(KINDS), name=st.sampled_from(NAMES), value=json_like)
def test_run_tool_answers_erreur_to_every_bad_call(base: Path, kind: str, name: str,
                                                  value: Any) -> None:
    if kind == "missing" and name == "list_files":
        return  # list_files has no required argument: nothing can be missing
    call = bad(kind, name, value)
    seen = run_tool(read_call(call), fuzz_tools(base / "ws"))
    assert seen.is_error and seen.content.startswith("Erreur : "), (kind, call, seen)


@pytest.mark.parametrize("path", ESCAPES)
@pytest.mark.parametrize("name", ["read_file", "list_files", "edit_file"])
def test_run_tool_refuses_every_escape_with_erreur(base: Path, name: str, path: str) -> None:
    args = {"path": path, **({"old": SENTINEL, "new": "PIRATÉ"} if name == "edit_file" else {})}
    seen = run_tool(read_call({"function": {"name": name, "arguments": json.dumps(args)}}),
                    fuzz_tools(base / "ws"))
    assert seen.is_error and seen.content.startswith("Erreur : ")
    assert SENTINEL not in seen.content
    assert_untouched(base)


# --- fuzz: check_permission() -----------------------------------------------------------------

# Rules as learners write them: the default ones, and short programs names (escaped: a
# broken expression is refused when the Policy is built, see test_policy.py).
rule_texts = st.text(max_size=8).map(re.escape)
rules = st.lists(st.sampled_from(DANGEROUS_COMMANDS) | st.builds(
    Rule, st.text(max_size=10), rule_texts, st.none() | rule_texts), max_size=4)
tool_names = st.lists(st.sampled_from(NAMES) | st.text(max_size=8), max_size=4)
policies = st.builds(Policy, allow=tool_names, ask=tool_names, deny_tools=tool_names,
                     deny_commands=rules.map(tuple)) | st.just(DEFAULT_POLICY)
commands = st.text(max_size=40) | st.text(alphabet=" ;&|()<>'\"\\$`\nabc-~/", max_size=40) | (
    st.sampled_from(["rm -rf /", "sudo reboot", "git -C x push", "git -a -a x", ":(){ :|:& };:",
                     "echo ok > /etc/passwd", "curl http://x", "ls"]))
bash_calls = commands.map(lambda c: {"function": {"name": "bash",
                                                  "arguments": json.dumps({"command": c})}})


@settings(max_examples=400)
@given(calls | bash_calls, policies)
def test_policy_check_never_raises(call: Any, policy: Policy) -> None:
    decision = check_permission(read_call(call), policy)
    assert decision.verdict in ("allow", "ask", "deny")
    assert isinstance(decision.reason, str) and decision.reason
    function = call.get("function") if isinstance(call, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    if decision.verdict == "allow":  # never more than the policy says
        assert name in policy.allow and name not in policy.deny_tools
    if decision.verdict == "ask":
        assert name in policy.ask and name not in policy.deny_tools


# At the length cap (10 000 characters): long words, many commands, deep nesting.
HOSTILE = ["git " + "-a " * 3000 + "x", "rm " * 3300, "$(" * 4900, "`" * 9900, "a;" * 4950,
           "'" + "a" * 9900 + "'", "x" * 9990, "bash -c " * 1240, "(" * 9900, "\\" * 9900,
           "echo \"$(" * 1600, "rm -rf " + "a " * 4900 + "/"]


def test_default_rules_check_a_hostile_command_in_linear_time() -> None:
    # `git -a -a -a ... x` used to make the git push rule backtrack exponentially, and
    # `rm rm rm ...` took a quadratic second: a model could hang the harness in the
    # permission check, where no timeout applies. Now every command up to the length cap
    # is read by shlex in one pass. In a subprocess, so that a regression fails (after a
    # generous bound) instead of hanging the suite; the speed itself is in bench/.
    script = (
        "import json, sys; from harness_lib.messages import ToolCall; "
        "from harness_lib.policy import DEFAULT_POLICY, check_permission; "
        "commands = json.loads(sys.stdin.read()); "
        "print(json.dumps([check_permission(ToolCall('bash', {'command': c}), DEFAULT_POLICY)"
        ".verdict for c in commands]))"
    )
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(HOSTILE),
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": REPO})
    verdicts = json.loads(done.stdout)
    assert verdicts[0] == "allow" and verdicts[-1] == "deny", done.stderr  # git: no push
    push = ToolCall("bash", {"command": "git -C repo -c a=b push origin"})
    assert check_permission(push, DEFAULT_POLICY).verdict == "deny"


# --- fuzz: what a learner types in the playground --------------------------------------------

roles = st.sampled_from(["system", "user", "assistant", "tool", "robot"]) | json_like
messages_like = st.fixed_dictionaries(
    {"role": roles}, optional={"content": json_like, "tool_calls": json_like,
                               "tool_call_id": json_like})


@pytest.fixture(scope="module")
def playground() -> Any:
    # Imported once, outside the examples: importing IPython changes the recursion limit.
    sending = importlib.import_module("harness_lib.course.playground.sending")
    replies = importlib.import_module("harness_lib.course.playground.replies")
    return SimpleNamespace(send=sending.send, render=replies.render)


@settings(max_examples=150)
@given(messages=st.lists(messages_like | json_like, max_size=5) | json_like,
       tools=st.none() | st.lists(json_like, max_size=2) | json_like)
def test_playground_send_never_raises(playground: Any, messages: Any, tools: Any) -> None:
    result = playground.send(messages, tools, show=False)  # the mock model: no widget, no key
    assert isinstance(result, (Completion, HarnessError))
    assert isinstance(playground.render(result), str)
