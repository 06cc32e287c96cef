"""`import harness_lib` has no side effect: no printing, and none of the heavy imports
(httpx, ipywidgets, mermaid-py, requests, fastjsonschema, subprocess) until they are used."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from pathlib import Path

import harness_lib

CODE = """
import sys
import harness_lib
heavy = ('httpx', 'ipywidgets', 'IPython', 'mermaid', 'requests', 'fastjsonschema',
         'subprocess')
heavy = sorted(m for m in sys.modules if m.split('.')[0] in heavy)
print(heavy)
"""


def test_import_is_quiet_and_light():
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]" and done.stderr == ""


def imports_of_each_module() -> dict[str, set[str]]:
    """harness_lib's modules -> the modules of ours each one imports (type-only ones too)."""
    root = Path(harness_lib.__file__).parent
    graph: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        package = parts[:-1]
        name = ".".join(package if parts[-1] == "__init__" else parts)
        found = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = ".".join(package[:len(package) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
                # `from .tools import Tool` imports tools; `from . import shell` imports shell.
                found |= {f"{module}.{alias.name}" for alias in node.names}
                found |= {module} if node.module else set()
    return {name: {m for m in found if m in graph and m != name} for name, found in graph.items()}


def test_no_import_cycle_between_modules():
    graph = imports_of_each_module()

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(d == goal or (d not in seen and reaches(d, goal, seen | {d}))
                   for d in graph[start])

    assert "harness_lib.loop" not in graph["harness_lib.recorder"]
    assert [name for name in graph if reaches(name, name, {name})] == []


def test_no_bare_verbs_at_package_level():
    assert not {"check", "parse", "execute"} & set(harness_lib.__all__)


def test_public_api_is_explicit():
    for name in harness_lib.__all__:
        assert getattr(harness_lib, name) is not None
    assert len(set(harness_lib.__all__)) == len(harness_lib.__all__)


# Each folder of harness_lib/course/ and the course folders it may import: one direction.
COURSE_LAYERS = {
    "drawing": set(),
    "missions": set(),
    "progress": set(),  # the learner's progress file: read by the teacher's side too
    "player": {"drawing"},
    "playground": {"drawing", "missions", "player"},  # send()'s figure is a player widget
    "exercises": {"drawing", "missions", "player", "playground", "progress"},
    "lessons": {"drawing", "missions", "player", "playground", "exercises", "progress"},
    "grader": {"drawing", "missions", "player", "exercises", "progress"},
    "teaching": {"exercises", "progress"},  # 09's score, the teacher's guide and class
}


def course_folder(module: str) -> str | None:
    """'harness_lib.course.player.state' -> 'player'; a harness module -> None."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["harness_lib", "course"] and len(parts) > 2 else None


def test_the_harness_never_imports_the_course():
    # The command line is the one exception: `demo` replays the incidents, `diagram` draws.
    graph = imports_of_each_module()
    wrong = {name: sorted(d for d in deps if d.startswith("harness_lib.course"))
             for name, deps in graph.items()
             if not name.startswith(("harness_lib.course", "harness_lib.cli"))}
    assert {name: deps for name, deps in wrong.items() if deps} == {}


def pulled_in(start: str, graph: dict[str, set[str]]) -> set[str]:
    """Every module of ours that `start` imports, directly or not (lazy imports included)."""
    seen: set[str] = set()
    waiting = [start]
    while waiting:
        for dep in graph[waiting.pop()] - seen:
            seen.add(dep)
            waiting.append(dep)
    return seen - {start}


def longest_chain(graph: dict[str, set[str]]) -> list[str]:
    """The longest chain of imports a → b → c … (the graph has no cycle)."""
    best: dict[str, list[str]] = {}

    def chain(name: str) -> list[str]:
        if name not in best:
            best[name] = [name, *max((chain(d) for d in graph[name]), key=len, default=[])]
        return best[name]

    return max((chain(name) for name in graph), key=len)


def test_the_harness_is_as_small_as_its_lesson():
    """Issue 31: loop.py pulls in at most 14 modules of the harness, none of the mock or the
    course, and at most 12 modules sit at the top level."""
    graph = imports_of_each_module()
    loop = sorted(pulled_in("harness_lib.loop", graph))
    assert not any(name.startswith(("harness_lib.course", "harness_lib.mock")) for name in loop)
    assert len(loop) <= 14, loop
    root = Path(harness_lib.__file__).parent
    top = sorted(p.name for p in root.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert len(top) <= 12, top


def test_no_import_chain_is_longer_than_ten_modules():
    chain = longest_chain(imports_of_each_module())
    assert len(chain) <= 10, " → ".join(chain)


def test_the_chapter_s_loop_is_written_once_in_the_course():
    """At most one function of course/ calls `.complete(` and loops over `tool_calls`: the
    course uses the harness's minimal loop (minimal_loop.boucle) instead of writing its own."""
    course = Path(harness_lib.__file__).parent / "course"
    loops = []
    for path in course.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inside = list(ast.walk(node))
                calls = any(isinstance(n, ast.Attribute) and n.attr == "complete" for n in inside)
                loops_over = any(isinstance(n, ast.For) and isinstance(n.iter, ast.Attribute)
                                 and n.iter.attr == "tool_calls" for n in inside)
                if calls and loops_over:
                    loops.append(f"{path.name}:{node.name}")
    assert len(loops) <= 1, loops


def test_run_keeps_messages_and_its_two_appends_in_sight():
    """The loop a learner opens shows messages[] and the chapter's two pushes (issue 31)."""
    from harness_lib import loop

    source = inspect.getsource(loop.run)
    lines = source.splitlines()
    assert re.search(r"^\s+messages = \[system\(", source, re.M)
    for rule in ("RULE 1", "RULE 2"):
        at = next(i for i, line in enumerate(lines) if f"# {rule}" in line)
        assert any("messages.append(" in line for line in lines[at + 1:at + 3]), rule
    assert "getattr(model" not in source


def test_course_imports_go_one_way():
    graph = imports_of_each_module()
    wrong = []
    for name, deps in graph.items():
        here = course_folder(name)
        for dep in deps:
            there = course_folder(dep)
            if here and there and there != here and there not in COURSE_LAYERS[here]:
                wrong.append(f"{name} -> {dep}")
    assert wrong == []


def test_every_course_module_sits_in_a_folder_of_its_concept():
    course = Path(harness_lib.__file__).parent / "course"
    flat = [p.name for p in course.glob("*.py") if p.name != "__init__.py"]
    folders = {p.name for p in course.iterdir() if (p / "__init__.py").exists()}
    sizes = {f: len(list((course / f).glob("*.py"))) - 1 for f in folders}
    assert flat == [] and folders == set(COURSE_LAYERS)
    assert max(sizes.values()) <= 10, sizes  # a folder a newcomer can read at a glance


def test_the_course_front_door_names_what_notebooks_import():
    import harness_lib.course as course

    assert all(getattr(course, name) is not None for name in course.__all__)
    code = "import sys, harness_lib.course; print('ipywidgets' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr
