"""The site's Python as bytecode, made at build time, so that no kernel start compiles it.

Pyodide never keeps bytecode: its standard library ships as sources in python_stdlib.zip,
the wheels too, `sys.dont_write_bytecode` is set, and the in-memory file system is new at
each kernel start. So every start compiled every module it imported: `import _pyodide_core`
alone (the start of Pyodide) spent 1.4 s compiling. This step adds the .pyc beside the
sources (site/compile.mjs makes them with the site's own Pyodide, under Node):

- in python_stdlib.zip, foo.pyc next to foo.py (zipimport prefers it), never checked
  against its source (nothing edits that zip);
- in each wheel of the lock, __pycache__/foo.cpython-314.pyc, listed in its RECORD, checked
  against the hash of its source at import (an edited file is compiled again); the lock's
  sha256 follows, and a wheel the lock took from pyodide-kernel's folder is written beside
  the others (that folder is also piplite's index, with its own hashes).

The sources stay: tracebacks show their lines, and the course's `inspect.getsource` works.

    >>> record_line("a/__pycache__/b.cpython-314.pyc", b"")
    'a/__pycache__/b.cpython-314.pyc,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\\n'
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
STDLIB_ZIP = "static/pyodide/python_stdlib.zip"
STDLIB_RUNTIME = "/lib/python314.zip"  # where Pyodide mounts it (sys.path)
SITE_PACKAGES = "/lib/python3.14/site-packages"
LOCK_DIR = "static/pyodide-lock"


def precompile(out: Path, lock_file: Path) -> None:
    """Bytecode into the site's standard library and into every wheel its lock lists."""
    lock = json.loads(lock_file.read_text(encoding="utf-8"))
    wheels = {name: (lock_file.parent / entry["file_name"]).resolve()
              for name, entry in lock["packages"].items()}
    with tempfile.TemporaryDirectory() as tmp:
        stdlib = unpacked(out / STDLIB_ZIP, Path(tmp) / "stdlib")
        trees = {name: unpacked(wheel, Path(tmp) / name) for name, wheel in wheels.items()}
        compile_trees(out / "static" / "pyodide", [("beside", stdlib, STDLIB_RUNTIME)]
                      + [("cache", tree, SITE_PACKAGES) for tree in trees.values()])
        rewrite(out / STDLIB_ZIP, out / STDLIB_ZIP, add=bytecode(stdlib))
        for name, wheel in wheels.items():
            dest = out / LOCK_DIR / wheel.name
            rewrite(wheel, dest, add=bytecode(trees[name]), record=True)
            entry = lock["packages"][name]
            entry["file_name"] = f"../../{LOCK_DIR}/{wheel.name}"
            entry["sha256"] = hashlib.sha256(dest.read_bytes()).hexdigest()
    lock_file.write_text(json.dumps(lock), encoding="utf-8")


def unpacked(archive: Path, tree: Path) -> Path:
    with zipfile.ZipFile(archive) as source:
        source.extractall(tree)
    return tree


def compile_trees(pyodide: Path, trees: list[tuple[str, Path, str]]) -> None:
    """site/compile.mjs over every tree, in one Node process (Pyodide starts once)."""
    specs = [f"{kind}:{tree}:{runtime}" for kind, tree, runtime in trees]
    try:
        done = subprocess.run(["node", str(HERE / "compile.mjs"), str(pyodide), *specs],
                              capture_output=True, text=True)
    except FileNotFoundError:
        raise SystemExit("site/precompile.py : il faut Node.js (la commande node)") from None
    if done.returncode:
        raise SystemExit(f"site/precompile.py : site/compile.mjs a échoué\n{done.stderr[-2000:]}")
    failed = [line for line in done.stdout.splitlines() if "not compiled" in line]
    print(f"Bytecode : {len(trees) - len(failed)} archives entièrement compilées"
          + "".join(f"\n  {line}" for line in failed))


def rewrite(archive: Path, dest: Path, *, add: dict[str, bytes] | None = None,
            leave_out: tuple[str, ...] = (), record: bool = False) -> None:
    """`archive` written again as `dest`: its entries as they were, but those whose path
    starts with one of `leave_out`, then `add`'s; for a wheel (`record`), its RECORD moved
    last, its lines matching the entries."""
    with zipfile.ZipFile(archive) as source:
        entries = {info.filename: source.read(info) for info in source.infolist()
                   if not info.is_dir() and not info.filename.startswith(leave_out)}
    added = {name: data for name, data in (add or {}).items() if name not in entries}
    entries |= added
    if record:
        name = next(name for name in entries if name.endswith(".dist-info/RECORD"))
        lines = [line for line in entries.pop(name).decode().splitlines()
                 if line and not line.startswith(leave_out)]
        listed = "".join(f"{line}\n" for line in lines) + "".join(map(record_line, added,
                                                                      added.values()))
        entries[name] = listed.encode()
    write_zip(dest, entries)


def write_zip(dest: Path, entries: dict[str, bytes]) -> None:
    """`entries` (path inside -> bytes), in that order, deflated, as the archive `dest`."""
    with zipfile.ZipFile(dest.with_suffix(".tmp"), "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in entries.items():
            # One date for all: the .pyc are checked by no date, and the build stays the same.
            target.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data,
                            compress_type=zipfile.ZIP_DEFLATED)
    dest.with_suffix(".tmp").replace(dest)


def bytecode(tree: Path) -> dict[str, bytes]:
    """Every .pyc under `tree`, by its path inside it."""
    return {path.relative_to(tree).as_posix(): path.read_bytes()
            for path in sorted(tree.rglob("*.pyc"))}


def record_line(name: str, data: bytes) -> str:
    """A wheel's RECORD line: path, urlsafe base64 sha256 without padding, size."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"

