"""The hub view: the same `Diagram`, drawn as a Mermaid flowchart with the harness at the centre.

A sequence diagram reads in time; the hub reads in space. The person, the model and
each tool sit around the harness, one edge per kind of exchange that the diagram
holds (the model asks, the harness runs a tool…), and the current step's exchange
is highlighted. Every edge touches the harness: the model and the tools never talk
to each other. Steps that share an exchange share the same picture, so a long run
needs only a few drawings (`hub_mermaid` returns the same text for them).

>>> from harness_lib.course.drawing.mermaid import chapter_diagram
>>> d = chapter_diagram("deux_tours")
>>> [node.label for node in hub_nodes(d)]
['Personne', 'Harness', 'Modèle', 'read_file']
>>> [(a.label, b.label) for a, b in hub_edges(d)][:2]
[('Personne', 'Harness'), ('Harness', 'Modèle')]
>>> print(hub_mermaid(d, 5).splitlines()[-1])
  linkStyle 3 stroke:#c92a2a,stroke-width:4px
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .diagram import Diagram
from .mermaid import escape

TOOLS_ID = "T"  # the participant that stands for the tools, in the course's diagrams
CALL = re.compile(r"\b([A-Za-z_][\w.-]*)\(")  # « read_file(" »: a tool named by a call
CURRENT = "fill:#ffd43b,stroke:#c92a2a,stroke-width:3px,color:#000"
# What flows on an edge, by who sends it to whom (the centre is the harness).
FLOWS = {("person", "centre"): "demande", ("centre", "person"): "réponse",
         ("centre", "model"): "messages[]", ("model", "centre"): "réponse ou tool_call",
         ("centre", "tool"): "appel", ("tool", "centre"): "résultat"}


@dataclass(frozen=True)
class Node:
    id: str  # n0, n1…: Mermaid flowchart ids, whatever the participants are called
    label: str
    kind: str  # centre, person, model, tool or other


def _centre(diagram: Diagram) -> str:
    """The harness: the participant called Harness (or H), else the one in most arrows."""
    for p in diagram.participants:
        if p.label == "Harness" or p.id == "H":
            return p.id
    ends = [end for s in diagram.steps for end in (s.source, s.target)]
    return max((p.id for p in diagram.participants), key=ends.count, default="H")


def step_tools(diagram: Diagram) -> list[str | None]:
    """For each step, the tool it calls or that answers it (None if no tool is involved).

    A call names its tool (« read_file("a") »); a call that does not (« npm test »)
    runs the tool the model last asked for; a result comes from the last tool called.
    """
    asked = called = None
    tools: list[str | None] = []
    for step in diagram.steps:
        named = CALL.search(step.text)
        asked = named[1] if named else asked
        if step.target == TOOLS_ID:
            called = named[1] if named else asked
        tools.append(called if TOOLS_ID in (step.source, step.target) else None)
    return tools


def step_tool(diagram: Diagram, index: int) -> str | None:
    """`step_tools(diagram)[index]`, read back from that step only: a step's name does not
    walk the whole run (a player of a long run names the steps around the one shown).

    >>> from harness_lib.course.drawing.mermaid import chapter_diagram
    >>> d = chapter_diagram("boucle_complete")
    >>> [step_tool(d, i) for i in range(len(d.steps))] == step_tools(d)
    True
    """
    steps = diagram.steps
    if TOOLS_ID not in (steps[index].source, steps[index].target):
        return None
    # The last call to the tools up to this step: its own name, else the last one asked.
    called = next((i for i in range(index, -1, -1) if steps[i].target == TOOLS_ID), None)
    if called is None:
        return None
    named = (CALL.search(steps[i].text) for i in range(called, -1, -1))
    return next((found[1] for found in named if found), None)


def hub_nodes(diagram: Diagram) -> list[Node]:
    """The person first, the harness, the model, then one node per tool."""
    centre, names = _centre(diagram), [t for t in dict.fromkeys(step_tools(diagram)) if t]
    nodes: list[Node] = []
    for p in diagram.participants:
        if p.id == TOOLS_ID and names:  # one node per tool the diagram uses
            nodes += [Node("", name, "tool") for name in names]
            continue
        kind = ("centre" if p.id == centre else "model" if p.label == "Modèle" or p.id == "M"
                else "tool" if p.id == TOOLS_ID else "person" if p.kind == "actor" or p.id == "U"
                else "other")
        nodes.append(Node("", p.label, kind))
    return [Node(f"n{i}", n.label, n.kind) for i, n in enumerate(nodes)]


def _ends(diagram: Diagram, nodes: list[Node]) -> list[tuple[Node, Node]]:
    """Each step's (source, target) nodes: participant T becomes the tool in use."""
    by_label = {(n.kind, n.label): n for n in nodes}
    names = {p.id: p.label for p in diagram.participants}

    def node(pid: str, tool: str | None) -> Node:
        label = tool if pid == TOOLS_ID and tool else names.get(pid, pid)
        return next(n for (kind, lab), n in by_label.items() if lab == label and
                    (kind == "tool") == (pid == TOOLS_ID))

    return [(node(s.source, t), node(s.target, t))
            for s, t in zip(diagram.steps, step_tools(diagram), strict=True)]


def hub_edges(diagram: Diagram) -> list[tuple[Node, Node]]:
    """Each kind of exchange once, in order of appearance: (who sends, who receives)."""
    return _edges(_ends(diagram, hub_nodes(diagram)))


def _edges(ends: list[tuple[Node, Node]]) -> list[tuple[Node, Node]]:
    return list(dict.fromkeys((a, b) for a, b in ends if a != b))


def _quoted(text: str) -> str:
    return '"' + escape(text).replace('"', "#quot;") + '"'


def hub_mermaid(diagram: Diagram, k: int | None = None) -> str:
    """The flowchart; with k, the exchange of step k highlighted (k = 0: nothing yet)."""
    nodes = hub_nodes(diagram)
    ends = _ends(diagram, nodes)
    edges = [(a.id, b.id) for a, b in _edges(ends)]
    kinds = {n.id: n.kind for n in nodes}
    now = ends[k - 1] if k else None
    what = f"{now[0].label} → {now[1].label}" if now and now[0] != now[1] \
        else f"{now[0].label} seul" if now else "aucun échange pour l’instant"
    lines = ["flowchart LR", "  accTitle: Vue hub : le harness au centre",
             f"  accDescr: Échange en cours : {escape(what).replace(chr(34), chr(39))}"]
    lines += [f"  {n.id}(({_quoted(n.label)}))" if n.kind == "centre" else
              f"  {n.id}({_quoted(n.label)})" for n in nodes]
    for a, b in edges:
        flow = FLOWS.get((kinds[a], kinds[b]), "")
        lines.append(f"  {a} -->|{_quoted(flow)}| {b}" if flow else f"  {a} --> {b}")
    if now is not None:
        lines.append(f"  classDef now {CURRENT}")
        lines.append(f"  class {now[0].id},{now[1].id} now" if now[0] != now[1]
                     else f"  class {now[0].id} now")
        if now[0] != now[1]:
            lines.append(f"  linkStyle {edges.index((now[0].id, now[1].id))} "
                         "stroke:#c92a2a,stroke-width:4px")
    return "\n".join(lines) + "\n"
