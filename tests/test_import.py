"""`import harness_lib` has no side effect: no printing, and none of the heavy imports
(httpx, ipywidgets, mermaid-py, requests, fastjsonschema, subprocess) until they are used."""

from __future__ import annotations

import ast
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
