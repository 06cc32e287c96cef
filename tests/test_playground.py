"""The mock/real toggle and send(): mock by default, the key never shown, never a crash."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import ipywidgets as widgets
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from ipywidgets.widgets import widget as widget_module
from traitlets.config import Config

from harness_lib.course.playground import toggle as playground
from harness_lib.course.playground.replies import render
from harness_lib.course.playground.sending import send
from harness_lib.course.playground.toggle import Playground, current_model, toggle
from harness_lib.errors import ApiError, HarnessError, MissingKey
from harness_lib.messages import assistant, system, tool_call, tool_result, user
from harness_lib.mock.conversation import check_conversation
from harness_lib.mock.model import MockModel
from harness_lib.models import Completion, openrouter

SECRET = "sk-or-v1-test-secret-0123456789"
TASK = "Lis README.md et résume le projet"
README = "# Mini harness\nUne boucle et un outil."
PRECEEDING = ("Invalid parameter: messages with role 'tool' must be a response to a preceeding "
              "message with 'tool_calls'.")
UNANSWERED = ("An assistant message with 'tool_calls' must be followed by tool messages "
              "responding to each 'tool_call_id'. The following tool_call_ids did not have "
              "response messages: call_1")


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No shared toggle, for every test (no key from the environment: tests/conftest.py)."""
    monkeypatch.setattr(playground, "_shared", None)
    yield


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    """An IPython shell, so that display() goes where capture_output can see it."""
    config = Config()
    config.HistoryManager.enabled = False  # no history file, no saving thread
    yield InteractiveShell.instance(config=config)
    InteractiveShell.clear_instance()  # other tests see no IPython, as before


def two_turns(result: str = README) -> list[dict[str, Any]]:
    call = tool_call("call_1", "read_file", {"path": "README.md"})
    return [system("Tu es un agent."), user(TASK), assistant(tool_calls=[call]),
            tool_result("call_1", result)]


def server(requests: list[httpx.Request], reply: dict[str, Any] | None = None,
           status: int = 200) -> httpx.MockTransport:
    """An OpenAI-compatible endpoint answering `reply` (or an error) and keeping requests."""

    def handle(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if status != 200:
            return httpx.Response(status, json={"error": {"message": f"bad key {SECRET}"}})
        choice = {"message": reply or {"role": "assistant", "content": "Bonjour"},
                  "finish_reason": "tool_calls" if (reply or {}).get("tool_calls") else "stop"}
        return httpx.Response(200, json={"choices": [choice], "usage": {"prompt_tokens": 9}})

    return httpx.MockTransport(handle)


def real(pg: Playground, key: str | None = SECRET) -> Playground:
    pg.choice.value = "real"
    if key:
        pg.key.value = key  # what the browser does when the learner presses Entrée
    return toggle(pg)


def all_widgets(widget: widgets.Widget) -> Iterator[widgets.Widget]:
    yield widget
    yield widget.layout
    for child in getattr(widget, "children", ()):
        yield from all_widgets(child)


# --- Mock by default ---


def test_toggle_defaults_to_mock_and_is_shared() -> None:
    pg = toggle()
    assert pg.choice.value == "mock" and toggle() is pg
    assert isinstance(current_model(), MockModel)
    assert "hors ligne" in pg.status.value
    assert [label for label, _ in pg.choice.options] == [
        "Modèle simulé (hors ligne)", "Vrai modèle (OpenRouter)"]


def test_current_model_is_mock_before_any_toggle() -> None:
    assert isinstance(current_model(), MockModel)
    assert playground._shared is None  # no widget created for mock use


def test_default_model_id_is_openrouter_default() -> None:
    assert playground.DEFAULT_MODEL == openrouter.DEFAULT_MODEL
    assert Playground().model_id.value == openrouter.DEFAULT_MODEL


def test_toggle_is_displayed_once_per_cell(shell: InteractiveShell) -> None:
    pg = Playground()
    with capture_output() as first:
        toggle(pg)
        pg._ipython_display_()  # `toggle()` as a cell's last line: the displayhook again
    shell.execution_count += 1  # the next cell
    with capture_output() as second:
        toggle()
    views = [o for o in first.outputs + second.outputs
             if "application/vnd.jupyter.widget-view+json" in o.data]
    assert len(views) == 2


def test_mock_path_never_imports_httpx() -> None:
    code = ("import sys; from harness_lib.course.playground import sending, toggle; "
            "toggle.toggle(); "
            "sending.send([{'role': 'user', 'content': 'Lis README.md'}], show=False); "
            "print('httpx' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "False", out.stderr


# --- Real model: key, transport, failures ---


def test_real_without_key_explains_and_send_reports_missing_key() -> None:
    pg = real(Playground(), key=None)
    assert "openrouter.ai/keys" in pg.status.value
    model = current_model()  # raises nothing
    result = send(two_turns(), show=False)
    assert isinstance(result, MissingKey)
    assert "openrouter.ai/keys" in result.explication
    assert model.name != "mock" and "Appel impossible" in render(result)


def test_key_from_environment_is_named_not_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", SECRET)
    pg = real(Playground(), key=None)
    assert "clé trouvée dans OPENROUTER_API_KEY" in pg.status.value
    assert SECRET not in pg.status.value and SECRET not in repr(pg)


def test_real_model_through_transport_receives_key_model_and_tools() -> None:
    requests: list[httpx.Request] = []
    call = tool_call("call_9", "list_files", {"path": "."})
    pg = real(Playground(transport=server(requests, assistant(tool_calls=[call]))))
    pg.model_id.value = "some/model"
    result = send([user(TASK)], show=False)
    assert isinstance(result, Completion) and result.tool_calls == [call]
    body = json.loads(requests[0].content)
    assert requests[0].headers["Authorization"] == f"Bearer {SECRET}"
    assert body["model"] == "some/model"
    assert [t["function"]["name"] for t in body["tools"]] == [
        "read_file", "list_files", "edit_file", "bash"]
    assert "call_9" in render(result) and "list_files" in render(result)


def test_network_failure_is_returned_not_raised() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    real(Playground(transport=httpx.MockTransport(down)))
    result = send([user(TASK)], show=False)
    assert isinstance(result, ApiError) and result.status is None
    assert "Impossible de joindre" in result.explication


def test_key_with_stray_characters_is_reported() -> None:
    real(Playground(), key="sk-or-clé-copiée")
    result = send([user(TASK)], show=False)
    assert isinstance(result, MissingKey) and "caractères inattendus" in result.explication


def test_typed_key_leaves_the_widget_at_once() -> None:
    pg = Playground()
    pg.choice.value = "real"
    sent: list[dict[str, Any]] = []
    pg.key._send = lambda msg, buffers=None: sent.append(msg)  # what goes to the browser
    pg.key.set_state({"value": SECRET})  # what the browser sends on Entrée
    assert pg.key.value == "" and pg.api_key() == SECRET
    assert sent and SECRET not in json.dumps(sent)  # not even echoed back
    assert f"clé reçue ({len(SECRET)} caractères)" in pg.status.value


def test_key_never_shown_in_repr_state_render_or_output(shell: InteractiveShell) -> None:
    requests: list[httpx.Request] = []
    pg = Playground(transport=server(requests, status=401))
    with capture_output() as captured:
        real(pg)
        refused = send([user(TASK)])  # the fake provider quotes the key back in its error
        send([{"role": "tool"}])
    assert isinstance(refused, ApiError) and refused.status == 401 and requests
    shown = [repr(pg), str(refused), repr(refused), refused.explication, render(refused),
             captured.stdout, json.dumps([o.data for o in captured.outputs])]
    shown += [json.dumps(w.get_state(), default=str) for w in all_widgets(pg.widget)]
    # The widgets that draw each conversation (their state is what the browser gets).
    drawn = [widget_module._instances[view["model_id"]] for o in captured.outputs
             if (view := o.data.get("application/vnd.jupyter.widget-view+json"))
             and view["model_id"] != pg.widget.model_id]
    shown += [json.dumps(w.get_state(), default=str) for w in drawn]
    assert all(SECRET not in text for text in shown)
    assert len(drawn) == 2 and "bad key ***" in drawn[0].transcript  # the key was there, hidden
    # The toggle and its note (for a notebook reopened), then for each answer: its verdict,
    # the conversation's diagram, then its static copy and the context bar in one output.
    assert len(captured.outputs) == 2 + 2 * 3
    assert "relancez les cellules" in captured.outputs[1].data["text/html"]


# --- send(): the API's answers ---


def test_valid_conversation_gets_the_mock_next_step() -> None:
    first = send([system("Tu es un agent."), user(TASK)], show=False)
    assert isinstance(first, Completion)
    assert first.tool_calls == [tool_call("call_1", "read_file", {"path": "README.md"})]
    final = send(two_turns(), show=False)
    assert isinstance(final, Completion) and not final.tool_calls
    assert "Mini harness" in final.message["content"]
    recover = send(two_turns("Erreur : README.md introuvable"), show=False)
    assert isinstance(recover, Completion)
    assert recover.tool_calls[0]["function"]["name"] == "list_files"


def test_dropping_the_assistant_message_gives_the_provider_text() -> None:
    broken = [m for m in two_turns() if m["role"] != "assistant"]
    result = send(broken, show=False)
    assert isinstance(result, ApiError) and result.status == 400
    assert result.message == PRECEEDING
    assert "tool_calls" in result.explication


def test_dropping_the_tool_result_gives_the_provider_text() -> None:
    result = send(two_turns()[:3], show=False)
    assert isinstance(result, ApiError) and (result.status, result.message) == (400, UNANSWERED)


def test_three_calls_in_one_turn_need_three_results() -> None:
    mission = [user("Lis a.txt, b.txt et c.txt")]
    turn = send(mission, show=False)
    assert isinstance(turn, Completion)
    ids = [call["id"] for call in turn.tool_calls]
    assert ids == ["call_1", "call_2", "call_3"]
    results = [tool_result(i, f"contenu {i}") for i in ids]
    answer = send([*mission, turn.message, *results], show=False)
    assert isinstance(answer, Completion) and not answer.tool_calls
    missing = send([*mission, turn.message, *results[:2]], show=False)
    assert isinstance(missing, ApiError) and missing.message.endswith("messages: call_3")


def test_every_problem_is_listed_but_the_answer_is_the_first() -> None:
    messages = [{"role": "robot", "content": "?"}, {"role": "user"}]
    result = send(messages, show=False)
    assert isinstance(result, ApiError) and result.message.startswith("Invalid value: 'robot'")
    page = render(result, check_conversation(messages))
    assert "messages[0].role" in page and "messages[1].content" in page
    assert "2 problèmes dans messages[]" in page and "HTTP 400" in page and "param" in page


@pytest.mark.parametrize(("tools", "where"), [("read_file", "'tools'"), ([1], "'tools[0]'"),
                                              ({"type": "function"}, "'tools'")])
def test_bad_tools_are_refused_like_the_api(tools: object, where: str) -> None:
    result = send([user(TASK)], tools=tools, show=False)
    assert isinstance(result, ApiError) and result.status == 400
    assert result.message.startswith(f"Invalid type for {where}") and "outils" in result.explication


FRENCH = (" doit ", " vaut ", " manque ", " pas ", " est ", " il ")


class Strange:
    def __repr__(self) -> str:
        raise RuntimeError("no repr either")


loop: list[Any] = []
loop.append(loop)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["role", "content", "tool_calls", "tool_call_id", "id", "x"]), inner,
        max_size=4), max_leaves=12)
roles = st.sampled_from(["system", "user", "assistant", "tool", "robot", None, 3])
messages_like = st.lists(st.fixed_dictionaries({"role": roles}, optional={
    "content": json_values, "tool_calls": json_values, "tool_call_id": json_values}), max_size=5)
garbage = (json_values | messages_like | st.just(loop) | st.just({1, 2}) | st.just(b"[]")
           | st.just([Strange()]) | st.builds(iter, st.just(())) | st.just([user(TASK), object()]))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(garbage, st.none() | json_values)
def test_send_never_raises_whatever_it_gets(messages: object, tools: object) -> None:
    result = send(messages, tools, show=False)
    assert isinstance(result, (Completion, HarnessError))
    if isinstance(result, ApiError):
        assert result.status == 400
    if isinstance(result, HarnessError):  # ApiError, or what the mock could not digest
        assert result.explication != result.message  # the French one, not the English text
        assert any(word in result.explication for word in FRENCH)
    assert render(result).startswith("<div")


def test_an_unexpected_failure_is_reported_calmly(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        name = "cassé"

        def complete(self, messages: Any, tools: Any, timeout: float = 120.0) -> Any:
            raise RuntimeError("boum")

    monkeypatch.setattr(playground, "current_model", lambda: Broken())
    result = send([system("x"), {"role": "user", "content": "y"}], show=False)
    assert isinstance(result, HarnessError) and "Rien n’est cassé" in result.explication


def test_tool_calls_on_a_system_message_do_not_confuse_the_mock() -> None:
    result = send([system("x"), {"role": "system", "content": "", "tool_calls": 1},
                   {"role": "user", "content": "Bonjour"}], show=False)
    assert isinstance(result, Completion)


tool_defs = st.lists(st.fixed_dictionaries({"type": st.just("function")}, optional={
    "function": json_values}), max_size=3)


@settings(max_examples=100)
@given(tool_defs)
def test_send_never_raises_on_strange_tool_definitions(tools: list[dict[str, Any]]) -> None:
    result = send(two_turns(), tools, show=False)
    assert isinstance(result, (Completion, HarnessError))
    assert not isinstance(result, HarnessError) or result.explication != result.message


# --- render(): pure HTML ---


def test_render_shows_calls_text_and_escapes() -> None:
    calls = [tool_call("call_1", "read_file", {"path": "<b>.md"})]
    page = render(Completion(assistant("<script>x</script>", calls), "tool_calls"))
    assert "call_1" in page and "read_file" in page and "&lt;b&gt;.md" in page
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "réponse finale" in render(Completion(assistant("Fini")))
    assert "Résultat inattendu" in render(42)
    assert "Affichage impossible" in render(Strange())
    assert "Pas de réponse" in render(ApiError(None, "timeout", explication="trop long"))
