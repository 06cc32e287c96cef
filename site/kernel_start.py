"""What a kernel of the site loads at start: one batch while Pyodide starts, nothing it
does not need. Used by site/build.py on the lock the lock add-on solved.

A kernel loads, at each start, every package of `PREFETCH` and their dependencies, unpacked
into a file system that is new each time: each wheel listed costs its unpacking at every
start, even one never imported. The others stay in the lock and load when a cell imports
them (pyodide-kernel runs `loadPackagesFromImports` on each cell's code).

The kernel's worker also goes into the notebooks' folder only once its own imports are done
(`drive_after_imports`): each look-up there is a synchronous request to the page.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from precompile import rewrite

# Loaded while Pyodide starts, in one batch, before the first cell: the course, and what the
# kernel would otherwise install one at a time after Pyodide (micropip, piplite, jedi).
PREFETCH = ["harness-lib", "ipywidgets", "anywidget", "fastjsonschema", "micropip", "piplite",
            "jedi"]
# What harness_lib needs in the browser at start, httpx included: the real model imports it
# inside harness_lib, where the kernel's loading by a cell's imports does not see it. Its other
# dependencies stay in the lock, loaded only if a cell imports them (mermaid-py and requests
# never: they draw through mermaid.ink, online): four wheels fewer at each kernel start.
BROWSER_DEPENDS = ["anywidget", "fastjsonschema", "httpx", "ipywidgets"]
# jedi's stubs of other packages than the standard library (typeshed's `stubs/`, Django's):
# 4 792 of its 5 626 files, unpacked at each kernel start (about 0.6 s of it) for packages the
# site does not have. jedi reads them only when such a package is imported, and does without
# them (a missing folder or file is an empty answer there); the standard library's stay.
JEDI_LEFT_OUT = ("jedi/third_party/typeshed/stubs/", "jedi/third_party/django-stubs/")
# pyodide-kernel's worker (its source, as built) mounts the drive (the notebooks' files, each
# look-up a synchronous request to the page) at /drive and makes it the current folder at
# once, before it imports micropip, piplite and IPython: Python looks in the current folder
# before each top-level module, so every kernel start asked the drive about 48 times. Changed
# so: mounted as before, entered after those imports, straight into the notebook's folder.
WORKERS = "extensions/@jupyterlite/pyodide-kernel-extension/static"
EARLY_CHDIR = re.compile(r"(\w+)\.mount\((\w+),\{\},(\w+)\),\1\.chdir\(\3\),")
LATE_CHDIR = re.compile(r'(\w+)\.mountDrive&&this\._localPath&&(\w+)\.push\("import os",'
                        r'`os\.chdir\("\$\{this\._localPath\}"\)`\)')
LATE = r'\1.mountDrive&&\2.push("import os",`os.chdir("/drive/${this._localPath}")`)'
# pyodide-kernel's empty widgetsnbextension, in the folder its piplite index serves.
SHIM = ("extensions/@jupyterlite/pyodide-kernel-extension/static/pypi/"
        "widgetsnbextension-4.0.999-py3-none-any.whl")


def trim_lock(lock_file: Path) -> None:
    """harness-lib's entry depends on BROWSER_DEPENDS only; widgetsnbextension is
    pyodide-kernel's empty stand-in (SHIM): the real one is the classic notebook's JavaScript,
    9 MB unpacked at each kernel start for nothing in JupyterLab; jedi's wheel is written
    again without JEDI_LEFT_OUT (its RECORD too)."""
    lock = json.loads(lock_file.read_text(encoding="utf-8"))
    entry = lock["packages"]["harness-lib"]
    missing = set(BROWSER_DEPENDS) - set(entry["depends"])
    if missing:
        raise SystemExit(f"site/kernel_start.py : harness_lib ne dépend plus de "
                         f"{sorted(missing)}")
    entry["depends"] = BROWSER_DEPENDS
    shim = lock_file.parent.parent.parent / SHIM
    if not shim.exists():
        raise SystemExit(f"site/kernel_start.py : pyodide-kernel n'a plus {SHIM}")
    lock["packages"]["widgetsnbextension"].update(
        file_name=f"../../{SHIM}", version=shim.name.split("-")[1],
        sha256=hashlib.sha256(shim.read_bytes()).hexdigest())
    jedi = lock["packages"]["jedi"]
    wheel = (lock_file.parent / jedi["file_name"]).resolve()
    rewrite(wheel, wheel, leave_out=JEDI_LEFT_OUT, record=True)
    jedi["sha256"] = hashlib.sha256(wheel.read_bytes()).hexdigest()
    lock_file.write_text(json.dumps(lock), encoding="utf-8")


def drop_unlisted_wheels(lock_file: Path) -> None:
    """The wheels the lock no longer lists (the real widgetsnbextension) leave the site."""
    lock = json.loads(lock_file.read_text(encoding="utf-8"))
    listed = {(lock_file.parent / e["file_name"]).resolve() for e in lock["packages"].values()}
    for wheel in lock_file.parent.glob("*.whl"):
        if wheel.resolve() not in listed:
            wheel.unlink()


def drive_after_imports(out: Path) -> list[str]:
    """Each worker script of pyodide-kernel that enters the drive at once, changed (WORKERS,
    above; a worker may hold two ways of mounting it, both changed); their names. Stops the
    build if the worker's source is no longer the one expected."""
    changed = []
    for script in sorted((out / WORKERS).glob("*.js")):
        source = script.read_text(encoding="utf-8")
        source, early = EARLY_CHDIR.subn(r"\1.mount(\2,{},\3),", source)
        source, late = LATE_CHDIR.subn(LATE, source)
        if early == late == 0:
            continue
        if not early or late != 1:
            raise SystemExit(f"site/kernel_start.py : {script.name} n'entre plus dans le lecteur "
                             "comme prévu (pyodide-kernel a changé)")
        script.write_text(source, encoding="utf-8")
        changed.append(script.name)
    if not changed:
        raise SystemExit(f"site/kernel_start.py : aucun worker de noyau dans {WORKERS}")
    return changed
