"""The JupyterLite site's Python as bytecode (site/precompile.py), its lock, its kernel's start,
the zip of the packages a kernel starts with that need no files of their own (site/bundle.py).

`rewrite` on a small wheel made here; then, if the site is built ($HARNESS_SITE or
build/site, the `site` fixture of tests/browsing/), its files as Pyodide will read them:
each wheel with a .pyc beside every source, listed in its RECORD, checked against its
source's hash at import; the standard library's zip with its .pyc, unchecked; the lock's
hashes those of the files served.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
import zipfile
from pathlib import Path

import pytest
from browsing import ROOT

sys.path.insert(0, str(ROOT / "site"))
from bundle import BUNDLE, EARLY_LOCK, KEEP, RUNTIME, closure, early_lock  # noqa: E402
from early_kernel import EARLY_RUNTIME, IMPORTS, TAKE_WORKER, start_early  # noqa: E402
from kernel_start import JEDI_LEFT_OUT, WORKERS, drive_after_imports  # noqa: E402
from precompile import LOCK_DIR, STDLIB_ZIP, bytecode, record_line, rewrite  # noqa: E402

CHECKED, UNCHECKED = 0b11, 0b01  # a hash-based .pyc's flags (PEP 552)
TAG = "cpython-314"


def pyc_flags(data: bytes) -> int:
    return int.from_bytes(data[4:8], "little")


def records(wheel: zipfile.ZipFile) -> dict[str, str]:
    """A wheel's RECORD: path -> "sha256=…,size" (RECORD's own line has no hash)."""
    name = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
    lines = wheel.read(name).decode().splitlines()
    return {line.rsplit(",", 2)[0]: line.split(",", 1)[1] for line in lines if line}


def test_rewrite_adds_the_bytecode_and_lists_it_last_in_record(tmp_path: Path) -> None:
    wheel = tmp_path / "pkg-1.0-py3-none-any.whl"
    source = b"VALUE = 42\n"
    with zipfile.ZipFile(wheel, "w") as made:
        made.writestr("pkg/__init__.py", source)
        made.writestr("pkg-1.0.dist-info/RECORD", record_line("pkg/__init__.py", source)
                      + "pkg-1.0.dist-info/RECORD,,")  # no newline at its end
    tree = tmp_path / "tree"
    (tree / "pkg" / "__pycache__").mkdir(parents=True)
    (tree / "pkg" / "__pycache__" / f"__init__.{TAG}.pyc").write_bytes(b"bytecode")
    rewrite(wheel, tmp_path / "out.whl", add=bytecode(tree), record=True)
    with zipfile.ZipFile(tmp_path / "out.whl") as out:
        assert out.namelist() == ["pkg/__init__.py", f"pkg/__pycache__/__init__.{TAG}.pyc",
                                  "pkg-1.0.dist-info/RECORD"]
        assert out.read("pkg/__init__.py") == source
        listed = records(out)
    digest = base64.urlsafe_b64encode(hashlib.sha256(b"bytecode").digest()).rstrip(b"=")
    assert listed[f"pkg/__pycache__/__init__.{TAG}.pyc"] == f"sha256={digest.decode()},8"
    assert listed["pkg/__init__.py"] == f"{record_line('pkg/__init__.py', source)}".split(
        ",", 1)[1].strip()
    assert listed["pkg-1.0.dist-info/RECORD"] == ","


def test_rewrite_leaves_out_a_folder_and_its_record_lines(tmp_path: Path) -> None:
    wheel = tmp_path / "pkg-1.0-py3-none-any.whl"
    files = {"pkg/keep.py": b"x = 1\n", "pkg/stubs/other.pyi": b"def f() -> int: ...\n"}
    with zipfile.ZipFile(wheel, "w") as made:
        for name, data in files.items():
            made.writestr(name, data)
        made.writestr("pkg-1.0.dist-info/RECORD", "".join(map(record_line, files, files.values()))
                      + "pkg-1.0.dist-info/RECORD,,\n")
    rewrite(wheel, wheel, leave_out=("pkg/stubs/",), record=True)
    with zipfile.ZipFile(wheel) as out:
        assert out.namelist() == ["pkg/keep.py", "pkg-1.0.dist-info/RECORD"]
        assert set(records(out)) == {"pkg/keep.py", "pkg-1.0.dist-info/RECORD"}


def test_jedi_keeps_the_standard_librarys_stubs_only(site: Path) -> None:
    jedi = next((site / LOCK_DIR).glob("jedi-*.whl"))
    with zipfile.ZipFile(jedi) as wheel:
        names = wheel.namelist()
    assert not [n for n in names if n.startswith(JEDI_LEFT_OUT)]
    assert "jedi/third_party/typeshed/stdlib/builtins.pyi" in names  # completion of str, list…


def test_every_wheel_of_the_lock_has_checked_bytecode(site: Path) -> None:
    lock_file = site / LOCK_DIR / "pyodide-lock.json"
    lock = json.loads(lock_file.read_text(encoding="utf-8"))
    for name, entry in lock["packages"].items():
        path = (lock_file.parent / entry["file_name"]).resolve()
        assert path.parent == lock_file.parent, f"{name} : hors de {LOCK_DIR}"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"], name
        with zipfile.ZipFile(path) as wheel:
            names = set(wheel.namelist())
            for source in (n for n in names if n.endswith(".py")):
                folder, _, file = source.rpartition("/")
                pyc = f"{folder}/__pycache__/{file[:-3]}.{TAG}.pyc".lstrip("/")
                assert pyc in names, f"{name} : {source} sans bytecode"
                assert pyc_flags(wheel.read(pyc)) == CHECKED, f"{name} : {pyc}"
            for member, line in records(wheel).items():
                if not member.endswith("RECORD"):
                    assert record_line(member, wheel.read(member)).strip() == \
                        f"{member},{line}", f"{name} : RECORD faux pour {member}"


def test_the_standard_library_zip_has_unchecked_bytecode(site: Path) -> None:
    with zipfile.ZipFile(site / STDLIB_ZIP) as stdlib:
        names = set(stdlib.namelist())
        sources = [n for n in names if n.endswith(".py")]
        assert len(sources) > 500
        for source in sources:
            assert source + "c" in names, f"{source} sans bytecode"
        assert pyc_flags(stdlib.read("json/decoder.pyc")) == UNCHECKED
        # Tracebacks: the code names its file where Pyodide mounts the zip, whose source stays.
        assert b"/lib/python314.zip/json/decoder.py" in stdlib.read("json/decoder.pyc")
        assert b"class JSONDecodeError" in stdlib.read("json/decoder.py")


def test_the_kernel_starts_from_one_batch_of_packages(site: Path) -> None:
    config = json.loads((site / "jupyter-lite.json").read_text(encoding="utf-8"))
    kernel = config["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    # What pyodide-kernel would otherwise install one at a time after Pyodide's start.
    assert {"micropip", "piplite", "jedi"} <= set(kernel["loadPyodideOptions"]["packages"])
    lock = json.loads((site / LOCK_DIR / "pyodide-lock.json").read_text(encoding="utf-8"))
    shim = lock["packages"]["widgetsnbextension"]
    assert shim["version"] == "4.0.999", "le paquet vide de pyodide-kernel, pas 9 Mo de JS"
    assert not list((site / LOCK_DIR).glob("widgetsnbextension-4.0.1*.whl"))


# pyodide-kernel's worker as built (minified), reduced to the lines kernel_start.py changes:
# the base class, and a subclass that mounts the drive its own way.
WORKER = (
    'async initialize(e){await this.initRuntime(e),await this.initFilesystem(e),'
    'await this.initPackageManager(e),await this.initKernel(e)}'
    'async initKernel(e){let t=[],i=[];i.push("import pyodide_kernel"),'
    'e.mountDrive&&this._localPath&&i.push("import os",`os.chdir("${this._localPath}")`),'
    'await this._pyodide.runPythonAsync(i.join(`\n`))}'
    'async initFilesystem(e){if(e.mountDrive){let t="/drive",{FS:i}=this._pyodide;'
    'i.mkdirTree(t),i.mount(o,{},t),i.chdir(t),this._driveFS=o}}'
    'ke=class extends fe{async initFilesystem(e){if(e.mountDrive){let t="/drive",'
    '{FS:i}=this._pyodide;i.mkdirTree(t),i.mount(a,{},t),i.chdir(t),this._driveFS=a}}}')


def test_the_kernel_enters_the_drive_after_its_own_imports(tmp_path: Path) -> None:
    """Mounted as before; entered once the kernel's imports are done, straight into the
    notebook's folder, even when the notebook sits at the drive's root."""
    folder = tmp_path / WORKERS
    folder.mkdir(parents=True)
    (folder / "comlink.worker.abc.js").write_text(WORKER, encoding="utf-8")
    (folder / "style.js").write_text("/* nothing */", encoding="utf-8")
    assert drive_after_imports(tmp_path) == ["comlink.worker.abc.js"]
    changed = (folder / "comlink.worker.abc.js").read_text(encoding="utf-8")
    assert "chdir(t)" not in changed and changed.count("i.mount(") == 2  # both still mount it
    assert 'e.mountDrive&&i.push("import os",`os.chdir("/drive/${this._localPath}")`)' in changed
    (folder / "comlink.worker.abc.js").write_text(WORKER.replace("i.chdir(t),", ""), "utf-8")
    with pytest.raises(SystemExit, match="pyodide-kernel a changé"):
        drive_after_imports(tmp_path)  # a worker no longer as expected stops the build


def test_the_built_workers_enter_the_drive_after_their_imports(site: Path) -> None:
    workers = [p for p in (site / WORKERS).glob("*.js") if "initFilesystem" in p.read_text("utf-8")]
    assert workers
    for worker in workers:
        source = worker.read_text(encoding="utf-8")
        assert ".chdir(t)" not in source and 'os.chdir("/drive/${this._localPath}")' in source


# pyodide-kernel's comlink worker and its page code as built, reduced to what early_kernel.py
# changes; and the site's configuration of the kernel.
COMLINK = ('async initialize(e){await this.initRuntime(e),await this.initFilesystem(e)}'
           'async initRuntime(e){this._pyodide=1}},ku=new rr;Nt(ku);'
           'export{rr as PyodideComlinkKernel};\n')
MAKES = ('initWorker(e){let t=e=>new Worker(e,{type:"module"});return crossOriginIsolated?'
         't(new URL(s(831),s.b)):t(new URL(s(932),s.b))}')
KERNEL_CONFIG = {"pyodideUrl": "./static/pyodide/pyodide.mjs", "loadPyodideOptions": {
    "lockFileURL": "./static/pyodide-lock/pyodide-lock.json", "packages": ["harness-lib"]}}


def fake_kernel(root: Path, worker: str = COMLINK) -> Path:
    folder = root / WORKERS
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "comlink.worker.abc.js").write_text(worker, encoding="utf-8")
    (folder / "393.def.js").write_text(MAKES, encoding="utf-8")
    (root / "jupyter-lite.json").write_text(json.dumps({"jupyter-config-data": {
        "litePluginSettings": {"@jupyterlite/pyodide-kernel-extension:kernel": KERNEL_CONFIG}}}))
    return folder


EARLY = {"zip": BUNDLE, "lock": EARLY_LOCK, "path": RUNTIME, "packages": ["harness-lib"]}


def test_the_kernel_s_worker_starts_loading_with_the_page(tmp_path: Path) -> None:
    """The worker loads Pyodide as soon as it runs, the early way (site/bundle.py), and keeps
    the site's options to compare; `initialize` goes through that load; pyodide-kernel takes
    the page's worker instead of making one."""
    folder = fake_kernel(tmp_path)
    assert start_early(tmp_path, EARLY) == f"{WORKERS}/comlink.worker.abc.js"
    worker = (folder / "comlink.worker.abc.js").read_text(encoding="utf-8")
    assert worker.count(EARLY_RUNTIME) == 1 and "await this.initRuntime(e)," not in worker
    assert worker.index("export{rr as PyodideComlinkKernel};") < worker.index(
        "ku.initRuntime(early)")  # once the kernel object is exposed
    assert json.dumps(KERNEL_CONFIG) in worker and json.dumps(EARLY) in worker
    assert "key(e)===key(opts)" in worker  # compared with the configuration's, not the early
    assert worker.index("sys.path.append") < worker.index(json.dumps(IMPORTS))  # zip first
    assert (folder / "393.def.js").read_text(encoding="utf-8").startswith(TAKE_WORKER)
    fake_kernel(tmp_path, COMLINK.replace("ku=new rr;", "ku=new Rr;"))
    with pytest.raises(SystemExit, match="pyodide-kernel a changé"):
        start_early(tmp_path, EARLY)  # a worker no longer as expected stops the build


def test_the_early_lock_leaves_out_the_bundled_packages_and_what_depends_on_them() -> None:
    packages = {"a": {"depends": ["b", "k"]}, "b": {"depends": []}, "k": {"depends": ["b"]},
                "later": {"depends": ["b", "c"]}, "c": {"depends": []}}
    assert closure(packages, ["a"]) == {"a", "b", "k"}
    lock = early_lock({"info": {"python": "3.14"}, "packages": packages}, {"a", "b"})
    assert lock["info"] == {"python": "3.14"}
    assert lock["packages"] == {"k": {"depends": []}, "later": {"depends": ["c"]},
                                "c": {"depends": []}}


def test_the_bundle_holds_what_a_kernel_starts_with_but_the_kept_wheels(site: Path) -> None:
    """One zip: each source with its unchecked .pyc beside it (naming its file inside the zip,
    for tracebacks), each package's .dist-info, no __pycache__ nor .data; the kept packages
    not in it, but in the early lock, which no longer makes them pull the bundled ones; both
    precached for offline use."""
    from browsing.site_builds import build_module

    full = json.loads((site / LOCK_DIR / "pyodide-lock.json").read_text(encoding="utf-8"))
    early = json.loads((site / EARLY_LOCK).read_text(encoding="utf-8"))
    bundled = set(full["packages"]) - set(early["packages"])
    assert {"traitlets", "pygments", "prompt-toolkit", "micropip", "piplite"} <= bundled
    assert set(KEEP) <= set(early["packages"]) and "requests" in early["packages"]
    assert not [n for n, e in early["packages"].items() if bundled & set(e["depends"])]
    with zipfile.ZipFile(site / BUNDLE) as zipped:
        names = set(zipped.namelist())
        sources = [n for n in names if n.endswith(".py")]
        assert len(sources) > 500 and all(n + "c" in names for n in sources)
        pyc = zipped.read("traitlets/traitlets.pyc")
        assert pyc_flags(pyc) == UNCHECKED and f"{RUNTIME}/traitlets/traitlets.py".encode() in pyc
    assert f"traitlets-{full['packages']['traitlets']['version']}.dist-info/METADATA" in names
    assert not [n for n in names if "__pycache__/" in n or n.split("/")[0].endswith(".data")]
    assert not [n for n in names if n.split("/")[0] in ("harness_lib", "IPython", "jedi", "parso")]
    assert {BUNDLE, EARLY_LOCK} <= set(build_module().precached(site))


def test_the_built_worker_starts_early_and_is_valid_javascript(site: Path, tmp_path: Path
                                                                ) -> None:
    """The worker the lab page makes is the one the site holds, changed, and still parses."""
    import re
    import shutil
    import subprocess

    page = (site / "lab" / "index.html").read_text(encoding="utf-8")
    named = re.search(r'new URL\("([^"]+comlink\.worker\.[0-9a-f]+\.js)"', page)
    assert named, "site/early-kernel.js manque en tête de lab/index.html"
    worker = site / named[1]
    assert EARLY_RUNTIME in worker.read_text(encoding="utf-8")
    node = shutil.which("node")
    if node:  # a module's syntax, as the browser reads it
        copy = tmp_path / "worker.mjs"
        shutil.copy(worker, copy)
        subprocess.run([node, "--check", str(copy)], check=True)


def test_the_readme_says_what_the_first_visit_puts_in_the_cache(site: Path) -> None:
    """« le site entier (N Mo …) »: the files the service worker precaches, as built."""
    import re

    from browsing.site_builds import build_module

    size = sum((site / name).stat().st_size for name in build_module().precached(site))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    said = re.search(r"le site entier \((\d+)\s?Mo", readme)  # a no-break space
    # Rounded to the megabyte; a new release of a wheel in the lock may move it a little.
    assert said and abs(int(said[1]) - size / 1e6) < 1, (said and said[1], size)


def test_the_site_never_publishes_a_learner_s_own_files(tmp_path: Path, monkeypatch) -> None:
    """Built from a checkout where someone followed the course: their progress file, its
    exports and checkpoints stay out of the site (each learner would start with them)."""
    from browsing.site_builds import build_module

    build = build_module()
    root = tmp_path / "checkout"
    (root / "notebooks" / ".ipynb_checkpoints").mkdir(parents=True)
    (root / "notebooks" / "traces").mkdir()
    (root / "harness_lib").mkdir()
    (root / "docs").mkdir()
    notebook = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (root / "notebooks" / "00_bienvenue.ipynb").write_text(json.dumps(notebook), "utf-8")
    for name in ("progression.json", "progression-ada-2026-12-02.json",
                 ".ipynb_checkpoints/00_bienvenue-checkpoint.ipynb"):
        (root / "notebooks" / name).write_text("{}", "utf-8")
    (root / "notebooks" / "traces" / "lecture.jsonl").write_text("{}\n", "utf-8")
    (root / "harness_lib" / "loop.py").write_text("", "utf-8")
    (root / "docs" / "guide-enseignant.md").write_text("# Guide", "utf-8")
    monkeypatch.setattr(build, "ROOT", root)
    build.course_files(tmp_path / "files")
    published = sorted(str(p.relative_to(tmp_path / "files" / "notebooks"))
                       for p in (tmp_path / "files" / "notebooks").rglob("*") if p.is_file())
    assert published == ["00_bienvenue.ipynb", "traces/lecture.jsonl"]
