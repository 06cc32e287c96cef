"""bench/run.py works: each measure runs on tiny inputs and the report is written.

No timing assertion here: speed targets live in bench/ (python bench/run.py),
a loaded test machine must not fail the tests.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import nbformat
import pytest

from harness_lib import MockModel, workspace_tools
from harness_lib.course.missions.tasks import example_workspace
from harness_lib.messages import read_call, tool_call
from harness_lib.tools import run_tool

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "run.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_run", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_quick_run_writes_a_report_with_every_measure(bench, tmp_path, capsys) -> None:
    out = tmp_path / "results" / "latest.json"
    results = bench.main(["--quick", "--out", str(out)])
    report = json.loads(out.read_text(encoding="utf-8"))
    names = [r["name"] for r in report["results"]]
    assert [r.name for r in results] == names
    for prefix in ("import harness_lib", "harness overhead", "diagram,", "player.go",
                   "player jump"):
        assert any(name.startswith(prefix) for name in names), prefix
    assert not any(name.startswith("notebook") for name in names), "--quick skips notebooks"
    assert report["command"] == f"python bench/run.py --quick --out {out}"
    assert report["machine"]["cores"] >= 1
    assert all(len(r["runs"]) == 1 and r["median"] is not None for r in report["results"])
    assert "verdict" in capsys.readouterr().out


def test_timing_proxies_count_only_what_they_wrap(bench) -> None:
    model = bench.TimedModel(MockModel())
    schemas = [t.schema() for t in workspace_tools(example_workspace("mini"))]
    reply = model.complete([{"role": "user", "content": "Lis README.md"}], schemas)
    assert reply.tool_calls and model.seconds > 0 and model.name == "mock"
    clock = [0.0]
    tools = bench.timed_tools(workspace_tools(example_workspace("mini")), clock)
    call = tool_call("call_1", "read_file", {"path": "README.md"})
    assert not run_tool(read_call(call), tools).is_error  # the wrapped tool still does its work
    assert clock[0] > 0


def test_overhead_and_diagrams_on_tiny_traces(bench) -> None:
    overhead = bench.harness_overhead(1, turns=2)
    assert overhead.unit == "ms/turn" and len(overhead.runs) == 1
    assert 0 < overhead.info["harness_share_of_run"] <= 1  # the proxies subtract, never add
    results = bench.diagram_work(1, (1, 2))
    assert results[-1].name.startswith("  growth exponent") and math.isfinite(results[-1].median)
    assert [r.unit for r in bench.player_step(1, (1,))] == ["ms"]


def test_table_says_pass_miss_and_failures(bench) -> None:
    text = bench.table([
        bench.Result("fast", "ms", [1.0, 2.0, 3.0], 10),
        bench.Result("slow", "ms", [30.0], 10),
        bench.Result("figure", "s", [1.5], None),
        bench.Result("broken", "x", [], 2.0, info={"error": "CellExecutionError: boom"}),
    ])
    rows = text.splitlines()
    assert rows[1].split()[1:4] == ["2.000", "1.000", "3.000"] and rows[1].endswith("PASS")
    assert rows[2].endswith("MISS") and rows[3].endswith("-")
    assert rows[4].endswith("MISS") and "boom" in rows[5]


def test_a_worst_case_target_holds_for_every_run(bench) -> None:
    # Run All (issue 38): every round under 3 x, not only the median.
    rows = bench.table([bench.Result("every round", "x", [1.0, 2.0, 4.0], 3.0, worst=True),
                        bench.Result("median", "x", [1.0, 2.0, 4.0], 3.0)]).splitlines()
    assert rows[1].endswith("MISS") and "max < 3 x" in rows[1] and rows[2].endswith("PASS")


def test_notebooks_are_timed_against_an_empty_one(bench, tmp_path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("import harness_lib")]  # the kernel finds it
    nbformat.write(notebook, tmp_path / "a.ipynb")
    empty, result = bench.notebooks(1, tmp_path, warm_up=False)
    assert empty.target is None and empty.unit == "s" and len(empty.runs) == 1
    assert result.name == "notebook a.ipynb" and result.unit == "x" and len(result.runs) == 1
    assert "error" not in result.info


def test_a_failing_notebook_is_a_miss_with_its_error(bench, tmp_path, monkeypatch) -> None:
    def execute(path: Path | None, cwd: Path) -> float:
        if path is not None and path.name == "b.ipynb":
            raise RuntimeError("\x1b[31mAssertionError: cassé\x1b[0m")
        return 1.0

    monkeypatch.setattr(bench, "execute_notebook", execute)
    for name in ("a.ipynb", "b.ipynb"):
        nbformat.write(nbformat.v4.new_notebook(), tmp_path / name)
    empty, a, b = bench.notebooks(3, tmp_path)
    assert a.passed and a.runs == [1.0, 1.0, 1.0]
    assert not b.passed and b.runs == []
    assert b.info["error"] == "RuntimeError: AssertionError: cassé"  # colours stripped


def load_cpu():
    spec = importlib.util.spec_from_file_location("bench_cpu", SCRIPT.with_name("cpu.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cpu_by_process_counts_this_process_and_its_reaped_children() -> None:
    cpu = load_cpu()
    if not Path("/proc/self/stat").exists():
        pytest.skip("no /proc: bench/cpu.py says nothing here")
    import os
    import subprocess

    before = cpu.snapshot()
    me = os.getpid()
    assert before[me][0] == "other"  # pytest: neither a kernel nor a browser
    total, n = 0, 0  # this process's own work, until the clock ticks past 0.05 s
    while cpu.snapshot()[me][1] - before[me][1] < 0.05 and n < 10**8:
        total, n = total + n * n, n + 1
    middle = cpu.snapshot()
    # A child's work (about 0.2 s), waited for: it lands in this process's figure too.
    subprocess.run([sys.executable, "-c", "sum(i * i for i in range(4_000_000))"], check=True)
    after = cpu.snapshot()
    assert after[me][1] - middle[me][1] >= 0.1
    spent = cpu.used(before, after)
    assert spent["other"] >= round(after[me][1] - before[me][1], 2) - 0.01
    assert cpu.kind("chromium --type=gpu-process") == "chromium, other processes"
    assert cpu.kind("python -m jupyterlab --no-browser") == "server"
