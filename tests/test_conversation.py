"""send() shows the effect: the conversation drawn, the refused message and field marked."""

from __future__ import annotations

import copy
import html
from typing import Any

import httpx
import pytest
from conversations import chapter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness_lib.course.drawing.mermaid import parse
from harness_lib.course.player.figure import Figure
from harness_lib.course.playground import toggle as playground
from harness_lib.course.playground.conversation import (
    FIRST,
    LABEL,
    LAST,
    Mark,
    conversation_diagram,
    locate,
    mermaid_text,
    sent_context,
)
from harness_lib.course.playground.listing import messages_html
from harness_lib.course.playground.replies import default_tools, outputs
from harness_lib.course.playground.sending import send
from harness_lib.course.playground.toggle import Playground, toggle
from harness_lib.errors import ApiError
from harness_lib.mock import check_conversation
from harness_lib.tokens import ledger


def asked() -> list[dict[str, Any]]:
    """The chapter's conversation at its second call: the request and its result."""
    return chapter()[:4]


def shown(messages: object, tools: object = None) -> tuple[str, str, str]:
    """(verdict HTML, Mermaid text, context bar HTML) as send() displays them."""
    result = send(messages, tools, show=False)
    schemas = default_tools() if tools is None else tools
    verdict, drawn, bar = outputs(messages, schemas, result, check_conversation(messages))
    return verdict["text/html"], drawn.mermaid, bar["text/html"]


def part_texts(part: Any) -> list[str]:
    """The texts of one part of send()'s answer: a bundle's, or a Figure's two."""
    return [part.mermaid, part.transcript] if isinstance(part, Figure) else list(part.values())


def test_an_accepted_conversation_is_drawn_with_the_reply() -> None:
    verdict, mermaid, bar = shown(asked())
    assert "Réponse du modèle" in verdict
    diagram = parse(mermaid)
    texts = [s.text.rstrip("…") for s in diagram.steps]
    whole = ["[0] system : Tu es un agent. Tu peux utiliser des outils",
             "[1] user : Lis README.md et résume le projet",
             '[2] assistant : tool_call call_1 : read_file("README.md")',
             "[3] tool : Résultat de call_1 : # Mini harness Une boucle et un",
             "Appel : 4 messages + 4 outils", "Réponse : "]
    assert all(full.startswith(text) or text.startswith(full)
               for text, full in zip(texts, whole, strict=True))
    assert all(len(text) <= LABEL for text in texts)  # short labels: a narrow diagram
    assert [(s.source, s.target) for s in diagram.steps][4:] == [("H", "M"), ("M", "H")]
    assert "rect" not in mermaid and "autonumber" not in mermaid  # nothing refused, [i] numbers
    assert "Ce que le modèle a reçu" in bar and "tools" in bar


def test_a_refusal_comes_from_the_api_and_is_never_called_sent() -> None:
    """After a 400 the model saw nothing: no « envoyé », no « Ce que le modèle reçoit »,
    the refusal drawn from « API », and the verdict says the model will never see it."""
    refused = asked()[:3]  # the request without its result: the API's 400
    result = send(refused, show=False)
    assert isinstance(result, ApiError) and result.status == 400
    bundles = outputs(refused, default_tools(), result, check_conversation(refused))
    page = " ".join(html.unescape(text) for part in bundles for text in part_texts(part))
    for claim in ("envoyé", "envoyés au modèle", "Ce que le modèle reçoit", "Contexte envoyé"):
        assert claim not in page, claim
    assert "le modèle ne verra jamais cette conversation" in page
    diagram = parse(bundles[1].mermaid)
    names = {p.id: p.label for p in diagram.participants}
    last = diagram.steps[-1]
    assert (last.source, last.target, last.arrow) == ("A", "H", "--x") and names["A"] == "API"
    assert diagram.steps[-2].target == "A"  # the call reaches the API, not the model
    assert "M" not in (last.source, diagram.steps[-2].target)


def test_conversation_diagrams_use_the_players_text_size() -> None:
    """The players' settings (15 px text) and labels fitted to 680 px: at 800 px the
    drawing, shrunk to the 588 px output area, keeps its text above 12.5 px."""
    from harness_lib.course.drawing.fit import DISPLAY, FIT, drawn_width

    long = [{"role": "user", "content": "une très longue demande " * 8},
            {"role": "tool", "tool_call_id": "call_1", "content": "un très long résultat " * 8}]
    text = mermaid_text(conversation_diagram(long, default_tools(), "HTTP 400 : " + "x" * 80,
                                             refused=True))
    assert text.startswith(DISPLAY)
    diagram = parse(text)
    column = {p.id: i for i, p in enumerate(diagram.participants)}
    arrows = [(column[s.source], column[s.target], s.text) for s in diagram.steps]
    assert drawn_width(arrows, len(column), 99, rows=1) <= FIT
    assert 15 * 588 / FIT >= 12.5


def test_the_bar_is_what_the_model_receives_tools_included() -> None:
    tools = default_tools()
    diagram = conversation_diagram(asked(), tools, "Réponse : …")
    totals: dict[str, int] = {}
    for entry in sent_context(diagram):
        totals[entry.role] = totals.get(entry.role, 0) + entry.tokens
    assert totals == ledger(asked(), tools)


@pytest.mark.parametrize(("edit", "index", "field", "provider"), [
    (lambda m: m[3].update(tool_call_id="call_9"), 3, "tool_call_id", "'call_9' not found"),
    (lambda m: m.pop(3), 2, "role", "did not have response messages: call_1"),
    (lambda m: m.pop(2), 2, "role", "preceeding message"),
    (lambda m: m[3].pop("tool_call_id"), 3, "tool_call_id", "Missing parameter 'tool_call_id'"),
    (lambda m: m[1].update(role="robot"), 1, "role", "Invalid value: 'robot'"),
])
def test_a_refusal_marks_the_message_and_field_in_the_diagram_and_the_list(
        edit: Any, index: int, field: str, provider: str) -> None:
    messages = asked()
    edit(messages)
    verdict, mermaid, _ = shown(messages)
    assert html.escape(provider) in verdict and "HTTP 400" in verdict
    # The diagram: the refused message framed in red, a note naming the field, a crossed arrow.
    framed = mermaid.split("rect rgba(229, 57, 53, 0.18)")[1].split("  end")[0]
    assert f"[{index}] " in framed and f"✘ messages[{index}].{field}" in framed
    assert "--xH: HTTP 400" in mermaid
    assert [s.text for s in parse(mermaid).steps][-1].startswith("HTTP 400 : ")
    # The list: the same message, written out, its field highlighted (or said missing).
    assert f"[{index}] ✘ <b>messages[{index}].{field}</b>" in verdict
    highlighted = verdict.split("<mark")[1].split("</mark>")[0]
    assert html.escape(f'"{field}":') in highlighted or f'il manque "{field}"' in highlighted


def test_the_note_says_why_in_short() -> None:
    _, mermaid, _ = shown(asked()[:3])
    assert "✘ messages[2].role : une demande sans résultat" in mermaid
    _, mermaid, _ = shown(asked()[:2] + asked()[3:])
    assert "✘ messages[2].role : un résultat sans demande" in mermaid


def test_a_refusal_from_a_real_provider_is_located_from_its_param() -> None:
    """Real mode: our checks pass, the provider refuses and names the field in `param`."""
    body = {"error": {"message": "Invalid 'messages[1].content': too long.",
                      "param": "messages[1].content", "code": "string_above_max_length"}}

    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, json=body)

    pg = Playground(transport=httpx.MockTransport(handle))
    pg.choice.value = "real"
    pg.key.value = "sk-or-v1-cle-factice-de-test"  # not a key: MockTransport answers
    toggle(pg)
    try:
        messages = asked()
        result = send(messages, show=False)
        assert isinstance(result, ApiError) and check_conversation(messages) == []
        assert locate([], result) == Mark(1, "content")
        verdict, drawn, _ = outputs(messages, default_tools(), result)
        assert "✘ messages[1].content" in drawn.mermaid
        assert "messages[1].content</b>" in verdict["text/html"]
    finally:
        playground._shared = None


def test_a_long_conversation_draws_its_ends_and_the_refused_message() -> None:
    messages = [{"role": "user", "content": f"message {i}"} for i in range(5000)]
    messages[2500] = {"role": "tool", "content": "?"}
    verdict, mermaid, _ = shown(messages)
    steps = parse(mermaid).steps
    assert len(steps) <= FIRST + LAST + 1 + 2 * 1 + 2  # ends, the refused one, gaps, call
    assert any(s.text.startswith("[2500] tool") for s in steps)
    assert "[4999] " in mermaid and "… messages non" in mermaid
    assert "[2500] ✘" in verdict and verdict.count("<div>[") <= FIRST + LAST


class Strange:
    def __repr__(self) -> str:
        raise RuntimeError("pas de repr")


garbage = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=6)
                       | st.builds(Strange) | st.just(b"\x00"),
                       lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                           st.sampled_from(["role", "content", "tool_calls", "tool_call_id",
                                            "function", "id"]), inner, max_size=4),
                       max_leaves=10)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(garbage, max_size=6) | garbage)
def test_any_cell_shows_a_verdict_and_never_raises(messages: object) -> None:
    result = send(messages, show=False)
    bundles = outputs(copy.copy(messages), default_tools(), result,
                      check_conversation(messages))
    assert bundles[0]["text/html"].startswith("<div")
    if isinstance(messages, list):  # a list is always drawn, whatever it holds
        assert len(bundles) == 3 and "sequenceDiagram" in bundles[1].mermaid


def test_mermaid_labels_that_could_break_the_diagram_are_escaped() -> None:
    messages = [{"role": "user", "content": "a ; b # c <script> %% ctx: tool 9 x\nd"}]
    mermaid = mermaid_text(conversation_diagram(messages, [], "Réponse : ok"))
    line = next(li for li in mermaid.splitlines() if li.startswith("  U->>H"))
    assert " ; " not in line and " # " not in line and "<script>" not in line
    assert parse(mermaid).steps[0].text.startswith("[0] user : a ; b # c")


def test_the_list_of_a_refusal_is_escaped_and_cut() -> None:
    page = messages_html([{"role": "tool", "content": "<b>" + "x" * 5000}], Mark(0, "content"))
    assert "&lt;b&gt;" in page and "<b>x" not in page and "caractères coupés" in page
    assert messages_html("pas une liste", Mark(0, "")) == ""


def test_a_cell_of_100_000_broken_messages_prints_kilobytes_not_megabytes() -> None:
    broken = [{"role": "robot", "content": "x"}] * 100_000
    result = send(broken, show=False)
    bundles = outputs(broken, default_tools(), result, check_conversation(broken))
    assert sum(len(text) for part in bundles for text in part_texts(part)) < 100_000
    assert "voici les 20 premiers" in bundles[0]["text/html"]
    assert "99\u202f980 autres problèmes, non listés" in bundles[0]["text/html"]


def test_a_real_reply_shows_its_reasoning_apart_its_text_and_the_provider_s_bill() -> None:
    from harness_lib import Completion
    from harness_lib.course.playground.replies import render

    reply = Completion({"role": "assistant", "reasoning_content": "Il faut d’abord lire.",
                        "content": [{"type": "text", "text": "Le projet est un harness."}]},
                       usage={"prompt_tokens": 1097, "completion_tokens": 12}, cost=0.0012)
    shown = render(reply)
    assert "Raisonnement visible" in shown and "Il faut d’abord lire." in shown
    assert "Le projet est un harness." in shown and "[{" not in shown  # the text, not a repr
    assert "0,0012 dollar (facturé par le fournisseur)" in shown and "1\u202f097 tokens" in shown
    assert "facturé" not in render(Completion({"role": "assistant", "content": "ok"}))


# --- send()'s diagram: drawn by the course itself, not left to the front end's Mermaid ---


def displayed(messages: object) -> list[dict[str, Any]]:
    """The outputs send() displays, as a notebook receives them."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    InteractiveShell.instance(config=config)
    try:
        with capture_output() as captured:
            send(messages)
    finally:
        InteractiveShell.clear_instance()
    return [o.data for o in captured.outputs]


def test_send_draws_its_diagram_with_the_course_widget_and_leaves_a_static_copy() -> None:
    from ipywidgets.widgets.widget import _instances

    from harness_lib.course.player import stepper
    from harness_lib.course.player.renderer import library

    refused = asked()[:3]
    # Three outputs: the verdict, the widget, then its static copy and the context bar.
    verdict, drawn, copy = displayed(refused)
    mermaid = mermaid_text(*_diagram_and_mark(refused))
    # No bundle for the front end's Mermaid: Voilà, VS Code, a Lab without it showed code.
    assert not any(k in o for o in (verdict, drawn, copy)
                   for k in ("text/vnd.mermaid", "text/markdown"))
    assert "HTTP 400" in verdict["text/html"]
    # The bar after the copy, outside it: renderer.css hides the copy alone below a live widget.
    static_part, bar = copy["text/html"].split("<p>Ce que l’appel portait", 1)
    assert "harness-static" in static_part and "harness-static" not in bar
    assert copy["text/plain"] == "Contexte refusé par l’API, jamais reçu par le modèle"
    widget = _instances[drawn["application/vnd.jupyter.widget-view+json"]["model_id"]]
    state = widget.get_state()
    assert state["part"] == "figure" and state["mermaid"] == mermaid
    assert state["library"] == f"IPY_MODEL_{library().model_id}"  # the page's one Mermaid
    assert state["_esm"] == stepper._stepper_class()._esm.default_value  # one drawing code
    assert "renderFigure" in state["_esm"]
    # Viewers without widgets read the text version; an export, the static copy.
    assert drawn["text/plain"] == state["transcript"] and "API → Harness" in state["transcript"]
    page = copy["text/html"]
    assert page.startswith('<div class="harness-static harness-reopen" lang="fr"')  # its note
    assert '<div class="harness-static" lang="fr">' in page and "Version texte" in page
    assert f'<pre class="harness-mermaid" hidden="hidden">{html.escape(mermaid)}</pre>' in page
    assert html.escape(state["transcript"]) in page
    assert "document.currentScript" in page  # static.js, which draws it offline


def _diagram_and_mark(messages: list[dict[str, Any]]) -> tuple[Any, Mark | None]:
    """The diagram and mark send() draws for a conversation the API refuses."""
    problems = check_conversation(messages)
    mark = locate(problems, problems[0].as_api_error())
    result = problems[0].as_api_error()
    return conversation_diagram(messages, default_tools(), str(result), True,
                                mark.index if mark else None), mark


def test_a_diagram_whose_widget_fails_leaves_its_text_version(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from harness_lib.course.player import figure

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("pas de widget ici")

    monkeypatch.setattr(figure, "bundles", broken)
    verdict, drawn, bar = displayed(asked()[:3])
    assert "HTTP 400" in verdict["text/html"] and "Ce que l’appel portait" in bar["text/html"]
    assert list(drawn) == ["text/plain"] and "API → Harness" in drawn["text/plain"]
