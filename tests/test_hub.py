"""The hub view: the same Diagram as a flowchart, the harness at the centre."""

from __future__ import annotations

import re

import pytest

from harness_lib.course.drawing.hub import hub_mermaid, hub_nodes, step_tool, step_tools
from harness_lib.course.drawing.mermaid import CHAPTER, chapter_diagram, parse
from harness_lib.course.drawing.trace_diagram import from_trace
from harness_lib.course.missions.scenarios import INCIDENTS, replay

EDGE = re.compile(r"^  (n\d+) -->(?:\|\"([^\"]*)\"\|)? (n\d+)$", re.MULTILINE)


def edges(text: str) -> list[tuple[str, str, str]]:
    return [(a, label, b) for a, label, b in EDGE.findall(text)]


@pytest.mark.parametrize("name", CHAPTER)
def test_every_exchange_goes_through_the_harness(name: str) -> None:
    diagram = chapter_diagram(name)
    centre = next(n.id for n in hub_nodes(diagram) if n.kind == "centre")
    found = edges(hub_mermaid(diagram))
    assert found and all(centre in (a, b) for a, _, b in found)
    assert f"{centre}((\"Harness\"))" in hub_mermaid(diagram)  # drawn as the hub


@pytest.mark.parametrize("name", sorted(INCIDENTS))
def test_a_run_shows_each_tool_around_the_harness(name: str) -> None:
    diagram = from_trace(replay(name).run.trace)
    used = {e.data["tool"] for e in replay(name).run.trace.events if e.kind == "tool_call"}
    tools = {n.label for n in hub_nodes(diagram) if n.kind == "tool"}
    assert tools == used or (not used and tools <= {"Outils"})
    # Steps that share an exchange share one drawing: a long run needs only a few.
    texts = {hub_mermaid(diagram, k) for k in range(len(diagram.steps) + 1)}
    assert len(texts) <= 2 * len(tools) + 6


def test_the_tool_of_each_step() -> None:
    diagram = chapter_diagram("boucle_complete")
    tools = step_tools(diagram)
    # « H->>T: npm test » names no tool: it runs the one the model asked for, bash.
    npm = next(i for i, s in enumerate(diagram.steps) if s.text == "npm test")
    assert tools[npm] == tools[npm + 1] == "bash"
    assert [n.label for n in hub_nodes(diagram)] == [
        "Personne", "Harness", "Modèle", "read_file", "edit_file", "bash"]


DIAGRAMS = [*(chapter_diagram(n) for n in CHAPTER),
            *(from_trace(replay(n).run.trace) for n in sorted(INCIDENTS)),
            parse("sequenceDiagram\n  H->>T: npm test\n  T-->>H: ok\n  M-->>H: ls(\".\")\n"
                  "  H->>T: ls\n  T-->>H: a b")]  # a call before any tool was named


@pytest.mark.parametrize("diagram", DIAGRAMS)
def test_one_step_s_tool_is_the_whole_pass_s(diagram) -> None:
    """step_tool reads back from its step only; the whole pass (step_tools) is its reference."""
    assert [step_tool(diagram, i) for i in range(len(diagram.steps))] == step_tools(diagram)


def test_the_current_exchange_is_highlighted() -> None:
    diagram = chapter_diagram("deux_tours")
    assert "linkStyle" not in hub_mermaid(diagram, 0) and "class " not in hub_mermaid(diagram, 0)
    step5 = hub_mermaid(diagram, 5)  # H->>T: read_file("README.md")
    found = edges(step5)
    index = int(re.search(r"linkStyle (\d+) ", step5)[1])
    source, label, target = found[index]
    nodes = {n.id: n.label for n in hub_nodes(diagram)}
    assert (nodes[source], label, nodes[target]) == ("Harness", "appel", "read_file")
    assert f"class {source},{target} now" in step5
    assert "Échange en cours : Harness → read_file" in step5
    step4 = hub_mermaid(diagram, 4)  # H->>H: the permission check, no exchange
    assert "linkStyle" not in step4 and re.search(r"class n\d+ now", step4)


def test_labels_are_escaped() -> None:
    diagram = parse('sequenceDiagram\n  participant A as a"b;c#d\n  participant H as Harness\n'
                    '  A->>H: x')
    text = hub_mermaid(diagram, 1)
    assert '("a#quot;b#59;c#35;d")' in text and 'a"b' not in text
