"""How long `python -m harness_lib classe` takes on a class of 1,000 progress files.

    python bench/classe.py            # 1,000 files (two broken), 5 runs
    python bench/classe.py --files 30 --repeat 1

Two measures, each the median of the runs with its CPU time: the whole command in a fresh
process (`python -m harness_lib classe DOSSIER --csv F`, Python's start and imports
included: what the teacher waits for), and the same work in this process (read every file,
both tables, the CSV). Target: the command under 1 s for 1,000 files. Prints the machine's
load average and the date: write the figures in bench/README.md (section « classe »).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # a checkout, installed or not; the generator

from class_files import make_class  # noqa: E402

from harness_lib.course.teaching.classroom import (  # noqa: E402
    learner_table,
    question_table,
    read_class,
    write_csv,
)

TARGET = 1.0  # seconds, the whole command, 1,000 files


def command(folder: Path, table: Path) -> tuple[float, float]:
    """Wall and CPU time (of the child) of the command in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before, start = os.times(), time.perf_counter()
    subprocess.run([sys.executable, "-m", "harness_lib", "classe", str(folder), "--csv",
                    str(table)], env=env, capture_output=True, check=False)
    wall, after = time.perf_counter() - start, os.times()
    return wall, (after.children_user - before.children_user
                  + after.children_system - before.children_system)


def in_process(folder: Path, table: Path) -> tuple[float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    room = read_class(folder)
    learner_table(room), question_table(room)
    write_csv(room, table)
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--files", type=int, default=1000)
    options.add_argument("--repeat", type=int, default=5)
    args = options.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder, table = Path(tmp) / "classe", Path(tmp) / "classe.csv"
        folder.mkdir()
        make_class(folder, args.files, broken=2)
        size = sum(p.stat().st_size for p in folder.iterdir())
        print(f"{args.files} fichiers ({size / 1e6:.1f} Mo), {args.repeat} passages, "
              f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, charge {os.getloadavg()}")
        verdict = 0
        for what, measure in (("commande", command), ("dans le processus", in_process)):
            runs = [measure(folder, table) for _ in range(args.repeat)]
            wall = statistics.median(w for w, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            low, high = min(w for w, _ in runs), max(w for w, _ in runs)
            line = f"{what:18} médiane {wall * 1000:6.0f} ms (min {low * 1000:.0f}, " \
                   f"max {high * 1000:.0f}), CPU {cpu * 1000:.0f} ms"
            if what == "commande":
                ok = wall < TARGET
                verdict |= not ok
                line += f"  cible < {TARGET:g} s : {'PASS' if ok else 'MISS'}"
            print(line)
    return verdict


if __name__ == "__main__":
    sys.exit(main())
