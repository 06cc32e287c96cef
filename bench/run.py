"""Benchmarks: what a learner waits for, measured on this machine.

    python bench/run.py                       # everything, 5 runs of each measure
    python bench/run.py --quick               # 1 run, small traces, no notebooks
    python bench/run.py --repeat 9 --out bench/results/latest.json

Each figure is the median of several runs of the wall-clock time (what a learner
waits for), with min and max beside it. On a shared machine wall time also counts
the moments other processes held the core, so the CPU time of the same runs is
shown too: a MISS whose CPU time is under target means "busy machine, run again".
Notebooks are ratios to an empty notebook run in the same rounds.
Standard library only, plus nbclient for the notebooks. Targets: bench/README.md.
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # works from a checkout, installed or not

from harness_lib import Limits, MockModel, run, workspace_tools  # noqa: E402
from harness_lib.course.drawing.mermaid import parse, to_mermaid  # noqa: E402
from harness_lib.course.drawing.trace_diagram import from_trace  # noqa: E402
from harness_lib.course.missions.tasks import WAIT_TASK, example_workspace  # noqa: E402
from harness_lib.limits import MAX_TURNS, MODEL_TIMEOUT  # noqa: E402
from harness_lib.tools import Tool  # noqa: E402
from harness_lib.trace import Trace  # noqa: E402

HEAVY = ("httpx", "ipywidgets", "IPython")  # must not load with `import harness_lib`
IMPORT_CODE = f"""
import json, sys, time
wall, cpu = time.perf_counter(), time.process_time()
import harness_lib
wall, cpu = 1000 * (time.perf_counter() - wall), 1000 * (time.process_time() - cpu)
heavy = sorted({{m.split(".")[0] for m in sys.modules}} & set({HEAVY!r}))
print(json.dumps({{"wall": wall, "cpu": cpu, "heavy": heavy}}))
"""


@dataclass
class Result:
    name: str
    unit: str  # ms, ms/turn, s, x (a ratio), exponent
    runs: list[float]  # wall-clock figures
    target: float | None  # passes when the median is below it (None: a figure, no target)
    cpu: list[float] = field(default_factory=list)  # the same runs in CPU time, if measured
    info: dict[str, Any] = field(default_factory=dict)
    worst: bool = False  # the target holds for every run (the max), not only the median

    @property
    def median(self) -> float:
        return statistics.median(self.runs) if self.runs else math.nan  # nan: it failed

    @property
    def passed(self) -> bool:
        judged = max(self.runs, default=math.nan) if self.worst else self.median
        return self.target is None or judged < self.target  # nan < target is False


def clocks(fn: Callable[..., object], *args: Any) -> tuple[float, float]:
    """Milliseconds one call fn(*args) takes: (wall clock, CPU time of this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*args)
    return 1000 * (time.perf_counter() - wall), 1000 * (time.process_time() - cpu)


def measure(name: str, target: float, repeat: int, fn: Callable[..., object], *args: Any
            ) -> Result:
    wall, cpu = zip(*(clocks(fn, *args) for _ in range(repeat)), strict=True)
    return Result(name, "ms", list(wall), target, list(cpu))


def import_time(repeat: int) -> Result:
    """`import harness_lib` in a fresh interpreter, which must not pull in httpx or widgets."""
    seen = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", IMPORT_CODE], cwd=ROOT, capture_output=True,
                             text=True, check=True, timeout=120)
        seen.append(json.loads(out.stdout))
        assert not seen[-1]["heavy"], f"import harness_lib loads {seen[-1]['heavy']}"
    return Result("import harness_lib (fresh process)", "ms", [s["wall"] for s in seen], 100,
                  [s["cpu"] for s in seen])


class TimedModel:
    """A model that adds the time spent inside `complete` to `seconds`."""

    def __init__(self, model: MockModel) -> None:
        self.model, self.name, self.price, self.seconds = model, model.name, model.price, 0.0

    def complete(self, messages: list, tools: list, timeout: float = MODEL_TIMEOUT) -> Any:
        start = time.perf_counter()
        try:
            return self.model.complete(messages, tools, timeout)
        finally:
            self.seconds += time.perf_counter() - start


def timed_tools(tools: Sequence[Tool], clock: list[float]) -> list[Tool]:
    """The same tools, each adding its own running time to clock[0]."""

    def wrap(function: Callable[..., str]) -> Callable[..., str]:
        def timed(**kwargs: Any) -> str:
            start = time.perf_counter()
            try:
                return function(**kwargs)
            finally:
                clock[0] += time.perf_counter() - start

        return timed

    return [replace(tool, function=wrap(tool.function)) for tool in tools]


def harness_overhead(repeat: int, turns: int = MAX_TURNS, target: float | None = 1.0) -> Result:
    """ms per turn spent in the harness itself: the run minus the model's and the tools' time.

    The tools' argument parsing and checks (tools.run_tool) count as harness work.
    """
    runs, shares = [], []
    for _ in range(repeat):
        model, clock = TimedModel(MockModel()), [0.0]
        tools = timed_tools(workspace_tools(example_workspace("attente")), clock)
        start = time.perf_counter()
        done = run(WAIT_TASK, model, tools, limits=Limits(max_turns=turns))
        total = time.perf_counter() - start
        assert done.reason == "max_turns", done.reason
        runs.append(1000 * (total - model.seconds - clock[0]) / turns)
        shares.append((total - model.seconds - clock[0]) / total)
    return Result(f"harness overhead, {turns}-turn run", "ms/turn", runs, target,
                  info={"harness_share_of_run": round(statistics.median(shares), 3)})


def wait_trace(turns: int) -> Trace:
    """A real run of the WAIT mission: it polls until Limits(max_turns) stops it."""
    tools = workspace_tools(example_workspace("attente"))
    return run(WAIT_TASK, MockModel(), tools, limits=Limits(max_turns=turns)).trace


def whole_diagram(trace: Trace) -> str:
    return to_mermaid(from_trace(trace))


def diagram_work(repeat: int, sizes: Sequence[int]) -> list[Result]:
    """trace -> annotated Mermaid, its parse, and the text at step k, for growing traces."""
    results, whole = [], {}
    for turns in sizes:
        trace = wait_trace(turns)
        diagram = from_trace(trace)
        text, steps, k = to_mermaid(diagram), len(diagram.steps), len(diagram.steps) // 2
        whole[steps] = measure(f"diagram, {turns} turns ({steps} steps)", 20, repeat,
                               whole_diagram, trace)
        results += [whole[steps], measure(f"  parse, {turns} turns", 20, repeat, parse, text),
                    measure(f"  to_mermaid(upto={k}), {turns} turns", 10, repeat,
                            to_mermaid, diagram, k)]
    if len(whole) >= 2:  # cost ~ steps**b between the two largest traces: b = 1 is linear
        (small, a), (large, b) = sorted(whole.items())[-2:]
        slope = math.log(large / small)
        results.append(Result(
            f"  growth exponent, {small} -> {large} steps", "exponent",
            [math.log(b.median / a.median) / slope], 1.3,
            [math.log(statistics.median(b.cpu) / statistics.median(a.cpu)) / slope]))
    return results


def long_trace(steps: int) -> Trace:
    """About `steps` events: a real polling run, its last turn repeated (built in no time)."""
    base = wait_trace(3)
    trace = Trace(system=base.system, tools_tokens=base.tools_tokens, tools=base.tools)
    for event in base.events[:-1]:  # all but the stop
        trace.add(event)
    turn = [e for e in base.events if e.turn == 3 and e.kind != "stop"]
    number = 4
    while len(trace.events) < steps:
        for event in turn:
            trace.add(replace(event, turn=number))
        number += 1
    return trace


def long_diagrams(repeat: int, sizes: Sequence[int] = (5_000, 20_000)) -> list[Result]:
    """Diagram and transcript of very long runs: every per-step function must stay linear."""
    from harness_lib.course.drawing.diagram import transcript

    results, whole = [], {}
    for steps in sizes:
        trace = long_trace(steps)
        diagram = from_trace(trace)
        whole[steps] = measure(f"diagram, {steps} steps", 0.05 * steps, repeat, whole_diagram,
                               trace)
        results += [whole[steps], measure(f"  transcript, {steps} steps", 0.02 * steps, repeat,
                                           transcript, diagram)]
    (small, a), (large, b) = sorted(whole.items())[-2:]
    slope = math.log(large / small)
    results.append(Result(f"  growth exponent, {small} -> {large} steps", "exponent",
                          [math.log(b.median / a.median) / slope], 1.3,
                          [math.log(statistics.median(b.cpu) / statistics.median(a.cpu)) / slope]))
    return results


JUMP_CODE = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
import run as bench
from harness_lib.course.player.player import Player
steps, repeat = int(sys.argv[2]), int(sys.argv[3])
player = Player(bench.long_trace(steps))
walls, cpus = [], []
for i in range(1, repeat + 1):  # forward, far from what is prepared: each jump prepares anew
    wall, cpu = bench.clocks(player.go, player.total * i // (repeat + 1))
    walls.append(wall)
    cpus.append(cpu)
mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes
print(json.dumps({"wall": walls, "cpu": cpus, "mb": mb, "total": player.total}))
"""


def player_jump(repeat: int, steps: int = 50_000) -> list[Result]:
    """A slider jump on a very long run (the kernel prepares the steps around the new one),
    and the most memory the process holds, trace and player included: a fresh process."""
    out = subprocess.run([sys.executable, "-c", JUMP_CODE, str(ROOT / "bench"), str(steps),
                          str(max(repeat, 1))], cwd=ROOT, capture_output=True, text=True,
                         check=True, timeout=600)
    found = json.loads(out.stdout)
    return [Result(f"player jump, {found['total']} steps", "ms", found["wall"], 1000,
                   found["cpu"]),
            Result(f"  memory, {found['total']} steps", "MB", [found["mb"]], 1024)]


def hostile_inputs(repeat: int) -> list[Result]:
    """What a model could send to slow the harness: a 40 000-character mission to the mock,
    10 000-character commands (the cap) to the policy. The worst of the hostile commands."""
    from harness_lib.messages import ToolCall
    from harness_lib.policy import DEFAULT_POLICY, MAX_COMMAND, check_permission

    tools = [t.schema() for t in workspace_tools(example_workspace("mini"))]
    mission = [{"role": "user", "content": "Lis " + "a/" * 20_000 + "b.txt"}]
    size = MAX_COMMAND - 10
    commands = ["git " + "-a " * (size // 3), "a;" * (size // 2), "$(" * (size // 2),
                "`" * size, "x" * size, "rm -rf " + "a " * (size // 2 - 5) + "/"]

    def worst() -> None:
        for command in commands:
            check_permission(ToolCall("bash", {"command": command}), DEFAULT_POLICY)

    return [measure("MockModel, 40 000-character mission", 100, repeat,
                    MockModel().complete, mission, tools),
            measure(f"check_permission, 6 hostile {MAX_COMMAND}-char commands", 600, repeat, worst)]


def otlp_file(spans: int) -> str:
    """OTLP/JSON of `spans` GenAI spans, one trace: a chat span, then two tools, repeated."""
    def one(i: int) -> dict[str, Any]:
        operation = "chat" if i % 3 == 0 else "execute_tool"
        values = {"gen_ai.operation.name": operation, "gen_ai.tool.name": "bash",
                  "gen_ai.tool.call.id": f"call_{i}", "gen_ai.request.model": "m",
                  "gen_ai.usage.input_tokens": 100 + i, "gen_ai.usage.output_tokens": 20}
        return {"traceId": "ab" * 16, "spanId": f"{i + 1:016x}", "parentSpanId": "f" * 16,
                "name": f"{operation} m", "kind": 1, "startTimeUnixNano": str(10**18 + i),
                "endTimeUnixNano": str(10**18 + i + 1), "attributes": [
                    {"key": k, "value": {"intValue": str(v)} if isinstance(v, int)
                     else {"stringValue": v}} for k, v in values.items()]}
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [one(i) for i in
                                                                     range(spans)]}]}]})


def otlp_import(repeat: int, spans: int = 100_000) -> list[Result]:
    """An OTLP/JSON file of `spans` GenAI spans read into a Trace (harness_lib.otel): its
    time, and the peak of Python's memory while reading it (tracemalloc, one run)."""
    import tracemalloc

    from harness_lib.otel import loads_otlp

    text = otlp_file(spans)
    timed = measure(f"OTLP import, {spans} spans ({len(text) / 1e6:.0f} MB)",
                    0.05 * spans, repeat, loads_otlp, text)
    tracemalloc.start()
    loads_otlp(text)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return [timed, Result(f"  peak memory, {spans} spans", "MB", [peak],
                          8 * len(text) / 1e6, info={"file_mb": len(text) / 1e6})]


def player_step(repeat: int, sizes: Sequence[int]) -> list[Result]:
    """Python time of a learner's step, per trace size: the browser switches the step
    itself; the kernel hears of it and, on a long run, prepares the steps ahead."""
    from harness_lib.course.player.player import Player  # imports ipywidgets: only here

    results = []
    for turns in sizes:
        rounds = []
        for _ in range(repeat):
            player = Player(wait_trace(turns))  # a fresh one: the steps ahead not prepared
            rounds.append([clocks(player.go, k) for k in range(1, player.total + 1)])
        results.append(Result(
            f"player.go(k+1), {turns} turns ({player.total} steps)", "ms",
            [statistics.mean(wall for wall, _ in steps) for steps in rounds], 10,
            [statistics.mean(cpu for _, cpu in steps) for steps in rounds]))
    return results


def execute_notebook(path: Path | None, cwd: Path) -> float:
    """Seconds to run a notebook under nbclient, kernel start and stop included (None: empty)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4) if path else nbformat.v4.new_notebook()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")]).rstrip(os.pathsep)}  # the kernel imports harness_lib from here
    client = NotebookClient(nb, kernel_name="python3", timeout=120,
                            resources={"metadata": {"path": str(cwd)}})
    start = time.perf_counter()
    client.execute(env=env, stderr=subprocess.DEVNULL)  # quiet: cell errors still raise
    return time.perf_counter() - start


def notebooks(repeat: int, folder: Path = ROOT / "notebooks", warm_up: bool = True
              ) -> list[Result]:
    """Each notebook's run time over an empty notebook's (the kernel's start), same rounds.

    A notebook that fails is a MISS with its error, and is not run again.
    """
    times: dict[Path | None, list[float]] = {None: [], **{
        path: [] for path in sorted(folder.glob("*.ipynb"))}}
    errors: dict[Path | None, str] = {}
    if warm_up:  # the session's first kernel start is slower: not a fair reference
        execute_notebook(None, folder)
        # A learner's harness_lib is compiled once, at its first import; with
        # PYTHONDONTWRITEBYTECODE set (some shells, CI) every kernel would compile it again.
        compileall.compile_dir(ROOT / "harness_lib", quiet=1)
    for _ in range(repeat):  # interleaved, so that a busy minute weighs on all alike
        for path in [p for p in times if p not in errors]:
            try:
                times[path].append(execute_notebook(path, folder))
            except Exception as err:  # a notebook being written may fail: say so, go on
                lines = re.sub(r"\x1b\[[0-9;]*m", "", str(err)).strip().splitlines()
                errors[path] = f"{type(err).__name__}: {lines[-1][:160] if lines else ''}"
    empty = times.pop(None)
    base = statistics.median(empty)
    results = [Result("empty notebook (kernel start)", "s", empty, None)]
    return results + [Result(f"notebook {path.name}", "x", [t / base for t in runs], 2.0,
                             info={"error": errors[path]} if path in errors else
                             {"median_s": round(statistics.median(runs), 3),
                              "beyond_kernel_s": round(statistics.median(runs) - base, 3)})
                      for path, runs in times.items()]


def player_in_browser(repeat: int) -> Result:
    """A step of the chapter's third diagram over a re-display of it (bench/browser.py)."""
    import browser  # bench/browser.py: needs Playwright and Debian's chromium

    try:
        found = browser.measure(repeat)
    except Exception as err:  # no browser, Lab did not start...: a MISS that says why
        return Result("player step / re-display (browser)", "x", [], 0.4,
                      info={"error": f"{type(err).__name__}: {err}"[:200]})
    return Result("player step / re-display (browser)", "x", found["ratios"], 0.4,
                  info={k: round(v, 1) for k, v in found.items() if k != "ratios"})


def run_all_in_browser(repeat: int) -> list[Result]:
    """« Run All » to the last drawing, per notebook, over an empty notebook in the same
    page; each player's first drawing after its output (bench/browser.py)."""
    import browser

    try:
        found = browser.run_all(repeat)
    except Exception as err:
        return [Result("Run All, drawn (browser)", "x", [], 3.0,
                       info={"error": f"{type(err).__name__}: {err}"[:200]})]
    empties = found["runs_s"][""]  # each round: first in its page, then last
    results = [Result("empty notebook, Run All (browser)", "s", [found["empty_s"]], None,
                      info={"cpu_s": found["cpu_s"].get(""),
                            "first_in_page_s": [round(t, 3) for t in empties[0::2]],
                            "last_in_page_s": [round(t, 3) for t in empties[1::2]]})]
    # Issue 38: every round under 3 x (the worst, not the median), send()'s figures included.
    results += [Result(f"Run All, drawn: {name}", "x", runs, 3.0, worst=True,
                       info={"median_s": round(found["seconds"][name], 3),
                             "over_last_empty": [round(r, 2)
                                                 for r in found["over_last_empty"][name]],
                             "kernel_done_s": round(found["ran_s"][name], 3),
                             "players": found["players"][name],
                             "figures": found["figures"][name],
                             "drawings": found["drawings"].get(name),
                             "cpu_s": found["cpu_s"].get(name)})
                for name, runs in found["ratios"].items()]
    slowest = {"slowest": [(n, round(t, 3)) for n, t in found["slowest_first"]]}
    # The median says what most players do; issue 25 asks it of every one: the slowest too.
    return results + [Result("player's first drawing after its output", "s",
                             found["first_drawing_s"], 0.5, info=slowest),
                      Result("slowest first drawing", "s",
                             [max(found["first_drawing_s"], default=math.nan)], 0.5)]


def table(results: Sequence[Result]) -> str:
    lines = [f"{'measure':44} {'median':>8} {'min':>8} {'max':>8} {'cpu':>8} "
             f"{'target':>14}  verdict"]
    for r in results:
        low, high = min(r.runs, default=math.nan), max(r.runs, default=math.nan)
        cpu = f"{statistics.median(r.cpu):8.3f}" if r.cpu else f"{'-':>8}"
        target = "-" if r.target is None else f"{'max ' if r.worst else ''}< {r.target:g} {r.unit}"
        verdict = "-" if r.target is None else "PASS" if r.passed else "MISS"
        lines.append(f"{r.name:44} {r.median:8.3f} {low:8.3f} {high:8.3f} {cpu} {target:>14}"
                     f"  {verdict}")
        lines += [f"    ! {r.info['error']}"] if "error" in r.info else []
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> list[Result]:
    parser = argparse.ArgumentParser(description="What a learner waits for.")
    parser.add_argument("--quick", action="store_true", help="1 run, small traces, no notebooks")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measure (default 5)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "latest.json")
    parser.add_argument("--browser", action="store_true", help="also a player's step against "
                        "a re-display, in Chromium (bench/browser.py)")
    args = parser.parse_args(argv)
    repeat, sizes = (1, (2, 15)) if args.quick else (max(1, args.repeat), (2, 15, 100))
    results = [import_time(repeat), harness_overhead(repeat)]
    # A figure without target: how the per-turn cost grows in a run 100 turns long.
    results += [] if args.quick else [harness_overhead(repeat, 100, None)]
    results += diagram_work(repeat, sizes) + player_step(repeat, sizes)
    results += long_diagrams(repeat, (200, 800) if args.quick else (5_000, 20_000))
    results += player_jump(repeat, 2_000 if args.quick else 50_000)
    results += hostile_inputs(repeat)
    results += otlp_import(repeat, 2_000 if args.quick else 100_000)
    results += [] if args.quick else notebooks(repeat)
    results += [player_in_browser(repeat), *run_all_in_browser(repeat)] if args.browser else []
    print(table(results))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["python", "bench/run.py", *(sys.argv[1:] if argv is None else argv)]),
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "load": os.getloadavg()},
        "results": [{**asdict(r), "median": r.median if r.runs else None, "passed": r.passed}
                    for r in results],
    }, indent=1), encoding="utf-8")
    targets = [r for r in results if r.target is not None]
    print(f"\n{sum(r.passed for r in targets)} PASS, {sum(not r.passed for r in targets)} MISS"
          f" (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores) -> {args.out}")
    return results


if __name__ == "__main__":
    sys.exit(1 if any(not r.passed for r in main()) else 0)
