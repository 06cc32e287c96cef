"""The packages of a kernel's start that need no files of their own, in one zip on sys.path.

On a reload, the kernel's worker spent 1.2–1.4 s unpacking the 32 wheels a kernel starts
with: 3 611 files written one by one into Pyodide's file system, new at each start. Most of
those packages only need Python to import their modules, which zipimport reads from a zip
as well: one file, written into that file system in one go. So, at build time:

- BUNDLE: every wheel of the kernel's start but KEEP, unpacked into one zip, each foo.py
  with its foo.pyc beside it (zipimport reads no __pycache__; "unchecked", as in the
  standard library's zip: nothing edits this one), the sources kept (tracebacks,
  `inspect.getsource`), each .dist-info kept (importlib.metadata, hence micropip and piplite,
  see the packages installed); a wheel's .data folder (JupyterLab's JavaScript) left out;
- EARLY_LOCK: the site's lock without the bundled packages, nothing depending on them.

The early start (site/early_kernel.py) loads Pyodide with EARLY_LOCK and the kept packages,
writes BUNDLE at RUNTIME and appends it to sys.path: last, so that a learner's `%pip install`
of a newer version (into site-packages) wins. A kernel started any other way loads the whole
lock, wheel by wheel, as before; both ways import the same files.
"""

from __future__ import annotations

import json
import tempfile
import zipfile
from pathlib import Path

from precompile import LOCK_DIR, bytecode, compile_trees, write_zip

# Unpacked as wheels, because they read their own files as files: harness_lib (its
# workspaces, diagrams, scripts), IPython (its colour themes, JSON files opened by path),
# jedi and parso (typeshed's stubs, the grammars), certifi (`where()` is a path that
# ssl opens).
KEEP = ("harness-lib", "ipython", "jedi", "parso", "certifi")
BUNDLE = f"{LOCK_DIR}/bundled.zip"
EARLY_LOCK = f"{LOCK_DIR}/early-lock.json"
RUNTIME = "/lib/bundled.zip"  # where the early start writes it in Pyodide's file system


def bundle(out: Path, lock_file: Path, start: list[str]) -> dict[str, object]:
    """BUNDLE and EARLY_LOCK from the site's lock (its wheels already with their bytecode)
    and the packages a kernel starts with; what the early start needs to use them."""
    lock = json.loads(lock_file.read_text(encoding="utf-8"))
    needed = closure(lock["packages"], start)
    bundled = sorted(needed - set(KEEP))
    wheels = [(lock_file.parent / lock["packages"][name]["file_name"]).resolve()
              for name in bundled]
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        gather(wheels, tree)
        compile_trees(out / "static" / "pyodide", [("beside", tree, RUNTIME)])
        sources = {p.relative_to(tree).as_posix(): p.read_bytes()
                   for p in sorted(tree.rglob("*")) if p.is_file() and p.suffix != ".pyc"}
        write_zip(out / BUNDLE, sources | bytecode(tree))
    (out / EARLY_LOCK).write_text(json.dumps(early_lock(lock, set(bundled))), encoding="utf-8")
    print(f"Paquets groupés : {len(bundled)} dans {BUNDLE}, "
          f"{(out / BUNDLE).stat().st_size / 1e6:.1f} Mo")
    return {"zip": BUNDLE, "lock": EARLY_LOCK, "path": RUNTIME,
            "packages": sorted(needed & set(KEEP))}


def closure(packages: dict[str, dict[str, object]], names: list[str]) -> set[str]:
    """`names` and everything they depend on, as Pyodide's loadPackage follows the lock."""
    found: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo += packages[name]["depends"]  # type: ignore[arg-type]
    return found


def gather(wheels: list[Path], tree: Path) -> None:
    """Each wheel's files into `tree`, as installing it would lay them out, but its
    __pycache__ (compiled for site-packages) and its .data folder; two wheels writing the same
    path stop the build (one zip cannot hold both)."""
    seen: dict[str, str] = {}
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as source:
            for info in source.infolist():
                name = info.filename
                if (info.is_dir() or "__pycache__/" in name
                        or name.split("/", 1)[0].endswith(".data")):
                    continue
                if name in seen:
                    raise SystemExit(f"site/bundle.py : {name} dans {seen[name]} et {wheel.name}")
                seen[name] = wheel.name
                (tree / name).parent.mkdir(parents=True, exist_ok=True)
                (tree / name).write_bytes(source.read(info))


def early_lock(lock: dict[str, object], bundled: set[str]) -> dict[str, object]:
    """The lock without the bundled packages: Pyodide neither unpacks them (as a dependency)
    nor loads them again when a cell imports them (pyodide-kernel's loadPackagesFromImports)."""
    packages = {name: {**entry, "depends": [d for d in entry["depends"] if d not in bundled]}
                for name, entry in lock["packages"].items()  # type: ignore[attr-defined]
                if name not in bundled}
    return {**lock, "packages": packages}
