"""Every player the course's notebooks build, as diagrams, built here the way the notebooks
build them (the mock model, the bundled workspaces): the chapter's three diagrams, 00's
demo, the five incidents of 07, and the missions of 01 to 06.

`python tests/course_players.py` prints every note once, as a list, for a teacher to read.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness_lib import MockModel, run, workspace_tools  # noqa: E402
from harness_lib.course.drawing.diagram import Diagram  # noqa: E402
from harness_lib.course.drawing.mermaid import CHAPTER, chapter_diagram, parse  # noqa: E402
from harness_lib.course.drawing.trace_diagram import from_trace  # noqa: E402
from harness_lib.course.lessons.react import fixed_pipeline  # noqa: E402
from harness_lib.course.missions.scenarios import INCIDENTS, replay  # noqa: E402
from harness_lib.course.missions.tasks import PRICE_TASK, README_TASK, example_workspace  # noqa: E402


def demo_00() -> Diagram:
    """00's hand-written demo, read from the notebook's own cell."""
    cells = json.loads((ROOT / "notebooks" / "00_bienvenue.ipynb").read_text(encoding="utf-8"))
    source = next("".join(c["source"]) for c in cells["cells"]
                  if c["cell_type"] == "code" and "demo = " in "".join(c["source"]))
    namespace: dict = {}
    exec(source.split("lecteur =")[0], namespace)
    return parse(namespace["demo"])


def _mission(task: str, workspace: str, names: tuple[str, ...] = ()) -> Callable[[], Diagram]:
    def build() -> Diagram:
        tools = workspace_tools(example_workspace(workspace))
        tools = [t for t in tools if t.name in names] if names else tools
        return from_trace(run(task, MockModel(), tools).trace)
    return build


def three_files_02() -> Diagram:
    folder = example_workspace("mini")
    for name, text in [("a.txt", "Alpha, le premier fichier."), ("b.txt", "Bêta, le deuxième "
                       "fichier."), ("c.txt", "Gamma, le troisième fichier.")]:
        (folder / name).write_text(text, encoding="utf-8")
    return from_trace(run("Lis a.txt, b.txt et c.txt", MockModel(), workspace_tools(folder)).trace)


def fixed_06() -> Diagram:
    tools = workspace_tools(example_workspace("mini"))
    return from_trace(fixed_pipeline(README_TASK, tools, MockModel(), say=None).trace)


PLAYERS: dict[str, Callable[[], Diagram]] = {
    "00 : la démo": demo_00,
    **{f"diagramme du chapitre : {name}": (lambda n=name: chapter_diagram(n)) for name in CHAPTER},
    **{f"07 : incident {name}": (lambda n=name: from_trace(replay(n).run.trace))
       for name in INCIDENTS},
    "01 : la mission README (run_live)": _mission(README_TASK, "mini"),
    "02 : trois fichiers (run_live)": three_files_02,
    "03 : fichier absent, récupération (run_live)": _mission(README_TASK, "docs"),
    "04 : la mission formatPrice (run_live)": _mission(PRICE_TASK, "prix"),
    "04 : l’essai « Lis price.py et résume-le »": _mission("Lis price.py et résume-le", "prix"),
    "06 : la machine à états (fixed_pipeline)": fixed_06,
}


def main() -> None:
    from harness_lib.course.player.state import state
    from harness_lib.text import one_line

    for title, build in PLAYERS.items():
        diagram = build()
        names = {p.id: p.label for p in diagram.participants}
        print(f"\n===== {title} ({len(diagram.steps)} étapes)")
        for k in range(len(diagram.steps) + 1):
            s = state(diagram, k)
            step = diagram.steps[k - 1] if k else None
            arrow = f"{names[step.source]} → {names[step.target]} : {one_line(step.text)}" \
                if step else "(départ)"
            print(f"[{k}] {arrow}")
            print(f"    statut : {s.status}") if s.status else None
            for line in s.note.split("\n"):
                print(f"    note : {line}")


if __name__ == "__main__":
    main()
