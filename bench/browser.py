"""Opt-in browser measures (`python bench/run.py --browser`): a player's step, against a
re-display of the same diagram; and « Run All » of each notebook until every drawing is
drawn (`run_all`, below).

JupyterLab in Debian's headless Chromium (the browser tests' server, tests/browsing/lab_server.py)
opens a notebook holding the chapter's third diagram as a player, and a cell that
displays one step's Mermaid text: what the old player did on every step, a kernel
round trip and then Lab's render. For each step k, forward (1..N) then back (N-1..0):

- step: click « Suivante » (« Précédente »), until the new diagram image is drawn;
- re-display: run the cell that displays step k's text, a second time (« that cell run
  again »), until its image is drawn.

Both are timed in the page with performance.now(): from the click (or the run
command) to the first animation frame after the image is in place. The figure is
the median of the N x 2 ratios, per round; target < 0.4 (bench/README.md).

`run_all` also says who used the cores during each notebook's run: CPU seconds of the
page, the kernel, the server and the rest (bench/cpu.py, from Linux's /proc).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser test's Lab server

from browsing.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from browsing.lab_server import running_lab  # noqa: E402
from cpu import snapshot, used  # noqa: E402  (bench/cpu.py)

from harness_lib.course.drawing.mermaid import chapter_diagram  # noqa: E402

SETUP = '''from IPython.display import display
from harness_lib.course.player.player import Player
from harness_lib.course.player.state import diagram_output, state

lecteur = Player("boucle_complete")

def montrer(k):  # one step's diagram, displayed as the old player did on every step
    display(diagram_output(state(lecteur.diagram, k).mermaid)["data"], raw=True)

lecteur'''
# In the page: wait for `ready()` to hold, then for the next frame (the one that paints).
DRAWN = """(ready) => new Promise((resolve) => {
  const check = () => {
    if (!ready()) return false;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.now()));
    return true;
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, {subtree: true, childList: true, attributes: true});
  check();
})"""
STEP = f"""async (label) => {{
  const player = document.querySelector('.harness-player');
  const shown = () => [...player.querySelectorAll('.harness-diagram .harness-drawing img')]
    .find((img) => img.checkVisibility() && img.complete && img.naturalWidth > 0);
  const before = shown();
  const button = [...player.querySelectorAll('.harness-controls button')]
    .find((b) => b.textContent.includes(label));
  const start = performance.now();
  button.click();
  return (await ({DRAWN})(() => shown() && shown() !== before)) - start;
}}"""
REDISPLAY = f"""async (k) => {{
  const app = window.jupyterapp, panel = app.shell.currentWidget, cell = panel.content.widgets[1];
  cell.model.sharedModel.setSource(`montrer(${{k}})`);
  panel.content.activeCellIndex = 1;
  const image = () => cell.node.querySelector('.jp-OutputArea .jp-RenderedMermaid img');
  let times = [];
  for (const _ of [1, 2]) {{  // the second run is the one timed: the cell run again
    const before = image();
    const start = performance.now();
    await app.commands.execute('notebook:run-cell');
    times.push((await ({DRAWN})(() => image() && image() !== before && image().complete)) - start);
  }}
  return times[1];
}}"""
IDLE = """() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status
  === 'idle'"""


def write_notebook(folder: Path) -> Path:
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SETUP),
                                         nbformat.v4.new_code_cell("montrer(0)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / "mesure.ipynb")
    return folder / "mesure.ipynb"


def one_round(page: Any, steps: int) -> list[dict[str, float]]:
    """Every step forward then back: the step's time, the re-display's, in ms."""
    rows = []
    for k, label in [*((k, "Suivante") for k in range(1, steps + 1)),
                     *((k, "Précédente") for k in range(steps - 1, -1, -1))]:
        page.wait_for_function(IDLE)
        step = page.evaluate(STEP, label)
        page.wait_for_function(IDLE)
        rows.append({"k": k, "step": step, "redisplay": page.evaluate(REDISPLAY, k)})
    return rows


def measure(repeat: int) -> dict[str, Any]:
    """Ratios step / re-display over `repeat` rounds; raises RuntimeError without Chromium."""
    if not CHROMIUM.exists():
        raise RuntimeError(f"pas de navigateur : {CHROMIUM} est absent (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, \
            running_lab(Path(folder), Path(folder) / "root") as lab:
        write_notebook(lab.root / "bench")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                                 args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{lab.url}/lab/tree/bench/mesure.ipynb?reset&token={lab.token}")
            page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell"
                                   ".currentWidget && window.jupyterapp.shell.currentWidget"
                                   ".sessionContext.session?.kernel")
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_selector(".harness-diagram .harness-drawing img", state="visible",
                                   timeout=120_000)
            page.wait_for_function(IDLE, timeout=120_000)
            steps = len(chapter_diagram("boucle_complete").steps)
            rounds = [one_round(page, steps) for _ in range(repeat)]
            browser.close()
    return {"ratios": [statistics.median(r["step"] / r["redisplay"] for r in rows)
                       for rows in rounds],
            "step_ms": statistics.median(r["step"] for rows in rounds for r in rows),
            "redisplay_ms": statistics.median(r["redisplay"] for rows in rounds for r in rows)}


# A learner opens a notebook and runs it all: from the opening (the kernel's start
# included, as in bench/run.py's notebooks) until everything is drawn, in one Lab page:
# an empty notebook, then each course notebook in turn, then the empty one again (each
# round's ratios are to that round's empty notebook: the load drifts between rounds).
# In the page, every animation frame: each player's first appearance (its output has
# arrived) and its first drawing; done when every cell has run, the kernel is idle, each
# Lab Mermaid block is drawn or refused, `players` players have a drawing, every output of
# the notebook's model is in the page (Lab renders far cells later, in idle time) with its
# view if a widget (none still « Loading widget... »), and every figure outside a player
# (send()'s conversation, `.harness-figure`) is drawn or refused.
OPEN = """async (path) => {
  const app = window.jupyterapp, start = performance.now();
  const panel = await app.commands.execute('docmanager:open', {path});
  await panel.context.ready;
  await panel.sessionContext.ready;
  while (!panel.sessionContext.session?.kernel || panel.sessionContext.session.kernel.status
         !== 'idle') await new Promise((r) => setTimeout(r, 50));
  app.shell.activateById(panel.id);
  return start;
}"""
RUN_ALL = """async ([start, players]) => {
  const app = window.jupyterapp, panel = app.shell.currentWidget, root = panel.node;
  const seen = new Map(), first = [];
  let ranAt = null; // when every cell had run and the kernel was idle: the rest is drawing
  const WIDGET = 'application/vnd.jupyter.widget-view+json';
  // Every widget output of the notebook has its view (Lab's WidgetRenderer, a Lumino Panel),
  // those in an Output widget's outputs too (send()'s figures in a hand-made harness).
  // Lab renders a long notebook's far cells later, in idle time: each cell's outputs first.
  const views = () => {
    const areas = panel.content.widgets.map((c) => c.outputArea).filter(Boolean);
    if (areas.some((a) => a.layout.widgets.length < a.model.length)) return false;
    const stack = [...areas];
    while (stack.length) {
      const w = stack.pop();
      if (w.mimeType === WIDGET && !w.isHidden && w.widgets.length === 0) return false;
      stack.push(...(w.children ? w.children() : []));
    }
    return true;
  };
  // The drawings the kernel sent: each player and each send() figure is a widget output
  // followed by its static copy (player/static.py), whose drawing sits in a
  // class="harness-static" block; every other course widget is followed by the note alone
  // (class="harness-static harness-reopen"). Lab may not have rendered them yet.
  const sent = () => {
    let n = 0;
    for (let i = 0; i < panel.content.model.cells.length; i++) {
      const outputs = panel.content.model.cells.get(i).outputs;
      for (let j = 0; outputs && j + 1 < outputs.length; j++) {
        const html = String(outputs.get(j + 1).data['text/html'] || '');
        if (outputs.get(j).data[WIDGET] && html.includes('class="harness-static"')) n++;
      }
    }
    return n;
  };
  const drawn = (el) => {
    const img = el.querySelector('.harness-drawing img');
    return (img && img.complete && img.naturalWidth > 0)
      || !!el.querySelector('.harness-drawing.harness-refused');
  };
  app.commands.execute('notebook:run-all-cells');
  await new Promise((r) => setTimeout(r, 0));
  return await new Promise((resolve) => {
    const frame = () => {
      const now = performance.now();
      for (const p of root.querySelectorAll('.harness-player')) {
        if (!seen.has(p)) seen.set(p, now);
        if (seen.get(p) !== null && drawn(p)) {
          first.push(now - seen.get(p));
          seen.set(p, null);
        }
      }
      const cells = panel.content.model.cells;
      let ran = true;
      for (let i = 0; i < cells.length; i++) {
        const c = cells.get(i);
        const source = c.type === 'code' && c.sharedModel.getSource().trim();
        if (source && c.executionCount === null) ran = false;
      }
      const blocks = [...root.querySelectorAll('.jp-RenderedMermaid')];
      const lab = blocks.every((b) => b.querySelector('img')
                                      || b.classList.contains('jp-mod-warning'));
      const idle = panel.sessionContext.session.kernel.status === 'idle';
      const figures = [...root.querySelectorAll('.harness-figure')];
      if (ran && idle && ranAt === null) ranAt = now;
      const all = ran && idle && lab && first.length >= players && views()
        && figures.every(drawn) && figures.length + first.length >= sent();
      if (all) {
        // How many drawings Mermaid made in this page so far (renderer.js), if installed.
        const slot = globalThis.__harnessDrawer;
        const drawings = slot?.started ? slot.ready.then((d) => (d.drawn ? d.drawn() : null)) : 0;
        Promise.resolve(drawings).then((made) => resolve({
          ms: now - start, ran: ranAt - start, first, figures: figures.length, made}));
      } else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
}"""
CLOSE = """async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  await panel.sessionContext.shutdown();
  panel.context.model.dirty = false;
  panel.dispose();
}"""


def run_all(repeat: int) -> dict[str, Any]:
    """Per notebook and round: its « Run All » to the last drawing over the empty
    notebook's in the same round (the mean of its two runs, first and last;
    `over_last_empty`: over the last one alone); and every player's time from its output
    to its first drawing."""
    import re
    import shutil

    import nbformat
    from playwright.sync_api import sync_playwright

    notebooks = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    players = {p.name: sum(1 for c in nbformat.read(p, as_version=4).cells if c.cell_type
                           == "code" and re.search(r"\b(?:Player|run_live)\(", c.source))
               for p in notebooks}
    times: dict[str, list[float]] = {"": [], **{p.name: [] for p in notebooks}}
    ratios: dict[str, list[float]] = {p.name: [] for p in notebooks}
    # The empty notebook first in its page is the page's first notebook: slower (0.9-1.5 s
    # against 0.6-0.7 s at the end, 3 December). The same ratios over the last one alone:
    warm: dict[str, list[float]] = {p.name: [] for p in notebooks}
    figures: dict[str, int] = {}
    drawings: dict[str, int] = {}  # Mermaid drawings made during each notebook's Run All
    ran: dict[str, list[float]] = {p.name: [] for p in notebooks}  # the kernel done, in s
    first: list[tuple[str, float]] = []
    cpu: dict[str, list[dict[str, float]]] = {}  # CPU seconds by process, each run (bench/cpu.py)
    with tempfile.TemporaryDirectory() as folder, \
            running_lab(Path(folder), Path(folder) / "root") as lab:
        shutil.copytree(ROOT / "notebooks", lab.root / "notebooks")
        # One cell that does nothing: Lab sends no request for an empty one.
        empty = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
        empty.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}
        nbformat.write(empty, lab.root / "notebooks" / "vide.ipynb")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                                 args=CHROMIUM_ARGS)
            for _ in range(repeat):
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(f"{lab.url}/lab?reset&token={lab.token}")
                page.wait_for_function("() => !!window.jupyterapp", timeout=120_000)
                page.evaluate("() => window.jupyterapp.restored")
                found_round: dict[str, float] = {}
                made = 0
                for name in [*times, ""]:
                    before = snapshot()
                    start = page.evaluate(OPEN, f"notebooks/{name or 'vide.ipynb'}")
                    found = page.evaluate(RUN_ALL, [start, players.get(name, 0)])
                    cpu.setdefault(name, []).append(used(before, snapshot()))
                    times[name].append(found["ms"] / 1000)
                    found_round[name] = found["ms"] / 1000
                    figures[name] = found["figures"]
                    if name and found["made"] is not None:  # the page's count, cumulative
                        drawings[name] = found["made"] - made
                        made = found["made"]
                    ran.get(name, []).append(found["ran"] / 1000)
                    first += [(name, t / 1000) for t in found["first"]]
                    page.evaluate(CLOSE)
                base = statistics.mean(times[""][-2:])
                for name in ratios:
                    ratios[name].append(found_round[name] / base)
                    warm[name].append(found_round[name] / times[""][-1])
                page.close()
            browser.close()
    return {"runs_s": {n: list(runs) for n, runs in times.items()},
            "empty_s": statistics.median(times.pop("")), "ratios": ratios,
            "over_last_empty": warm,
            "seconds": {n: statistics.median(runs) for n, runs in times.items()},
            "figures": figures, "players": players, "drawings": drawings,
            "ran_s": {n: statistics.median(runs) for n, runs in ran.items()},
            "first_drawing_s": sorted(t for _, t in first),
            "cpu_s": {n: median_by_kind(runs) for n, runs in cpu.items()},
            "slowest_first": sorted(first, key=lambda f: -f[1])[:5]}


def median_by_kind(runs: list[dict[str, float]]) -> dict[str, float]:
    """Per kind of process, its median CPU seconds over the runs (0 where it used none)."""
    kinds = sorted({k for run in runs for k in run}, key=lambda k: -max(r.get(k, 0) for r in runs))
    return {k: round(statistics.median(r.get(k, 0.0) for r in runs), 2) for k in kinds}
