"""How the tests are laid out: a test module imports no other test module (what several
share lives in plain helper modules of tests/, or in the browser tests' package
tests/browsing/), and no module imports the fixtures of browsing.fixtures, a pytest plugin
(tests/conftest.py loads it): a test names a fixture as a parameter, nothing more.

A fixture imported by name reads as an unused import (every import carried its `noqa`), and
a test module that others import cannot be changed, split or run alone without them.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
BENCH = TESTS.parent / "bench"
TEST_MODULES = {path.stem for path in TESTS.glob("test_*.py")}
PLUGIN = "browsing.fixtures"


def imported(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import in `source`, at any depth (in a function too)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def wrong_imports(path: Path) -> list[str]:
    """The imports of `path` that reach a test module or the fixtures' plugin, once each."""
    where, found = path.relative_to(TESTS.parent), []
    for line, module in imported(path.read_text(encoding="utf-8")):
        if module.split(".")[0] in TEST_MODULES:
            found.append(f"{where}:{line} importe {module.split('.')[0]}")
        elif module == PLUGIN or module.startswith(PLUGIN + "."):
            found.append(f"{where}:{line} importe {PLUGIN}")
    return list(dict.fromkeys(found))


def test_the_check_sees_every_kind_of_import() -> None:
    source = ("import test_cli\nimport test_grader as g\nfrom test_browser import lab\n"
              "def f():\n    from test_site import site\n"
              "from browsing import fixtures\nfrom browsing.fixtures import lab\n"
              "import browsing.notebook\nfrom real_traffic import BY_NAME\n")
    modules = {module.split(".")[0] for _, module in imported(source)}
    assert {"test_cli", "test_grader", "test_browser", "test_site"} <= modules
    reached = [m for _, m in imported(source) if m == PLUGIN or m.startswith(PLUGIN + ".")]
    assert reached == [PLUGIN, PLUGIN, f"{PLUGIN}.lab"]  # both spellings of the plugin


def test_no_module_imports_a_test_module_or_the_fixtures() -> None:
    modules = sorted([*TESTS.rglob("*.py"), *BENCH.rglob("*.py")])
    assert len([m for m in modules if m.stem.startswith("test_")]) == len(TEST_MODULES) > 50
    found = [line for path in modules for line in wrong_imports(path)]
    assert found == [], "\n".join(found)
