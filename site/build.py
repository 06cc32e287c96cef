"""Build the course as a JupyterLite site: plain static files, no server, no CDN at run time.

    python3 site/build.py OUT              # then: python3 -m http.server -d OUT

Any Python 3 runs this script; the build itself needs Python >= 3.12 (the lock add-on's
pyodide-lock[uv]), so the script makes `.site-venv` with one (found on PATH or under pyenv),
installs site/requirements.txt into it, and runs its second half there. What it does:

1. the wheel of harness_lib, built from this checkout (no dependency: the lock solves them);
2. Pyodide from the npm package `pyodide` (runtime and standard library, no package wheels),
   its lock emptied of packages: every entry of the stock lock points at a CDN;
3. `jupyter lite build` with the lock add-on, which solves our lock from the package index
   (harness_lib and what the kernel starts with) and copies every wheel into the site, and the
   course's JupyterLab plugin from the wheel (jupyter-config/labextension);
4. the notebooks and the harness's source in the site's files, and an index.html that
   opens the course: one notebook (the learner's last, 00 the first time), not every tab of
   the last visit (site/one-notebook.js);
5. the lock trimmed to what a kernel needs at start, then Python's bytecode added to the
   standard library and to every wheel (site/precompile.py; Node runs the site's Pyodide);
   the kernel's worker enters the notebooks' folder after its own imports (kernel_start.py),
   and starts with the page, loading Pyodide while JupyterLab loads (early_kernel.py), the
   packages that need no files of their own from one zip instead of unpacked (bundle.py);
6. our service worker (site/offline.js) in front of JupyterLite's: after the first visit the
   whole site is in the browser's cache, and it works with no network;
7. course updates (site/updates.js): each notebook stamped with the version it is published
   as, the current ones listed in notebook-versions.json; a learner's older saved copy is
   told, and offered the new version, theirs kept under another name;
8. below the NameError of a course name used before a notebook's first cell ran, the
   French sentence JupyterLab's IPython extension says (site/fresh-kernel.js: Pyodide's
   kernel reads no IPython configuration).

The site loads nothing from another host: the kernel's pip fallback to PyPI is off.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from bundle import bundle
from early_kernel import start_early, startup_options
from kernel_start import PREFETCH, drive_after_imports, drop_unlisted_wheels, trim_lock
from precompile import precompile

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VENV = ROOT / ".site-venv"
CACHE = ROOT / "build" / "site-cache"  # downloads kept between builds (build/ is ignored)
PYODIDE_VERSION = "314.0.6"  # the one jupyterlite-pyodide-kernel 0.8.6 pins
FIRST = "notebooks/00_bienvenue.ipynb"
# What running the course leaves in notebooks/ (a checkout where someone followed it): never
# published, or every learner of the site would start with that person's answers.
LEARNERS_OWN = (".ipynb_checkpoints", "progression.json", "progression-*.json", "__pycache__")
# Pyodide's files the page never asks for (source maps, its own demo consoles, types).
UNUSED = (".map", ".d.ts", ".html", "README.md")
WORKER = "service-worker.js"  # the URL JupyterLite's page registers: ours goes there
JUPYTERLITE_WORKER = "jupyterlite-service-worker.js"  # JupyterLite's, which ours imports
# Left out of the precache, never asked for by a browser: build tooling, and the older font
# formats beside a .woff2 (the CSS lists woff2 first; every browser with workers reads it).
TOOLING = {"package.json", "rspack.config.js", "rspack.config.analyze.js",
           "rspack.config.watch.js", "jupyterlite.schema.v0.json", WORKER, JUPYTERLITE_WORKER}
FONT_FALLBACKS = (".eot", ".ttf", ".svg", ".woff")


def main(argv: list[str]) -> int:
    """Check the arguments, then build in .site-venv (made first if needed)."""
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage : python3 site/build.py DOSSIER_DE_SORTIE", file=sys.stderr)
        return 2
    out = Path(argv[0]).resolve()
    if Path(sys.prefix).resolve() != VENV.resolve():
        python = ensure_venv()
        return subprocess.call([str(python), __file__, str(out)])
    build(out)
    return 0


def ensure_venv() -> Path:
    """.site-venv's Python, with site/requirements.txt installed (once per change of it)."""
    python = VENV / "bin" / "python"
    stamp = VENV / "requirements.txt"
    wanted = (HERE / "requirements.txt").read_text(encoding="utf-8")
    if python.exists() and stamp.exists() and stamp.read_text(encoding="utf-8") == wanted:
        return python
    subprocess.run([str(find_python312()), "-m", "venv", "--clear", str(VENV)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q", "-r", str(HERE / "requirements.txt")]
    subprocess.run(pip, check=True)
    stamp.write_text(wanted, encoding="utf-8")
    return python


def find_python312() -> Path:
    """This Python if it is >= 3.12, else the first python3.13/3.12 that runs (PATH, pyenv)."""
    if sys.version_info >= (3, 12):
        return Path(sys.executable)
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [shutil.which(name) for name in ("python3.13", "python3.12")]
    candidates += [str(v / "bin" / "python") for v in sorted(pyenv.glob("3.1[2-9]*"), reverse=True)]
    for candidate in filter(None, candidates):
        # A pyenv shim is on PATH even where its version is not selected: it must run.
        check = [candidate, "-c", "import sys; sys.exit(sys.version_info < (3, 12))"]
        if subprocess.run(check, capture_output=True).returncode == 0:
            return Path(candidate)
    raise SystemExit("site/build.py : il faut Python >= 3.12 (sur le PATH ou sous pyenv)")


def build(out: Path) -> None:
    """Everything below runs in .site-venv."""
    lite = CACHE / "lite"  # the lite dir: config, files, wheels, Pyodide; made anew each time
    shutil.rmtree(lite, ignore_errors=True)
    (lite / "wheels").mkdir(parents=True)
    harness_wheel(lite / "wheels")
    pyodide(lite / "static" / "pyodide")
    course_files(lite / "files")
    write_config(lite)
    shutil.rmtree(out, ignore_errors=True)
    bin_dir = Path(sys.executable).parent
    subprocess.run([str(bin_dir / "jupyter"), "lite", "build", "--lite-dir", str(lite),
                    "--output-dir", str(out)], check=True, cwd=lite)
    open_on_first(out)
    list_versions(out)
    announce_updates(out)
    explain_fresh_kernels(out)
    drive_after_imports(out)
    lock = out / "static" / "pyodide-lock" / "pyodide-lock.json"
    trim_lock(lock)
    precompile(out, lock)  # after the lock's last change of wheels; it writes their hashes
    drop_unlisted_wheels(lock)
    start = startup_options(out)["loadPyodideOptions"]  # what a kernel starts with
    start_kernel_early(out, bundle(out, lock, start["packages"]))  # type: ignore[index]
    offline(out)  # last: the service worker lists every file as it is now, with its hash
    print(f"Site prêt : {out}\nServez-le : python3 -m http.server -d {out}")


def harness_wheel(dest: Path) -> None:
    """harness_lib's wheel, from this checkout; its dependencies come from the lock's solve."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dest),
                    str(ROOT)], check=True)


def pyodide(dest: Path) -> None:
    """The npm package `pyodide`, its lock emptied of packages (they point at a CDN)."""
    tarball = CACHE / f"pyodide-{PYODIDE_VERSION}.tgz"
    if not tarball.exists():
        subprocess.run(["npm", "pack", f"pyodide@{PYODIDE_VERSION}", "--silent",
                        "--pack-destination", str(CACHE)], check=True)
    dest.mkdir(parents=True)
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            name = member.name.removeprefix("package/")
            if member.isfile() and not name.endswith(UNUSED) and "/" not in name:
                (dest / name).write_bytes(tar.extractfile(member).read())  # type: ignore[union-attr]
    lock = json.loads((dest / "pyodide-lock.json").read_text(encoding="utf-8"))
    lock["packages"] = {}
    (dest / "pyodide-lock.json").write_text(json.dumps(lock), encoding="utf-8")


def course_files(dest: Path) -> None:
    """The notebooks, harness_lib's source to read beside them (``../harness_lib/loop.py``),
    and the teacher's guide the annex links (``../docs/guide-enseignant.md``)."""
    shutil.copytree(ROOT / "notebooks", dest / "notebooks",
                    ignore=shutil.ignore_patterns(*LEARNERS_OWN))
    for notebook in sorted((dest / "notebooks").glob("*.ipynb")):
        stamp_version(notebook)
    shutil.copytree(ROOT / "harness_lib", dest / "harness_lib",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (dest / "docs").mkdir(exist_ok=True)  # the annex links the teacher's guide
    shutil.copy2(ROOT / "docs" / "guide-enseignant.md", dest / "docs" / "guide-enseignant.md")


def stamp_version(notebook: Path) -> str:
    """Write in `notebook`'s metadata the version it is published as (`harness_version`, a
    hash of its bytes): a learner's saved copy keeps it, so the site can tell an older copy."""
    data = notebook.read_bytes()
    version = hashlib.sha256(data).hexdigest()[:16]
    parsed = json.loads(data)
    parsed["metadata"]["harness_version"] = version
    notebook.write_text(json.dumps(parsed, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return version


def list_versions(out: Path) -> None:
    """notebook-versions.json: each published notebook's path (as the site names it) and
    version; site/updates.js, at the top of the lab page, compares a copy opened with it."""
    found = {f"notebooks/{p.name}": json.loads(p.read_text(encoding="utf-8"))["metadata"]
             ["harness_version"] for p in sorted((out / "files" / "notebooks").glob("*.ipynb"))}
    (out / "notebook-versions.json").write_text(json.dumps(found, indent=1), encoding="utf-8")


def announce_updates(out: Path) -> None:
    """site/updates.js at the top of the lab page: an older saved copy is told and offered
    the new version."""
    script = (HERE / "updates.js").read_text(encoding="utf-8")
    at_head_top(out / "lab" / "index.html", f"<script>\n{script}</script>")


def explain_fresh_kernels(out: Path) -> None:
    """site/fresh-kernel.js at the top of the lab page: below the NameError of a course name
    used before the notebook's first cell, the sentence JupyterLab's IPython extension says
    (harness_lib/course/playground/fresh_kernel.py, imported here to write it once)."""
    sys.path.insert(0, str(ROOT))
    from harness_lib.course.playground.fresh_kernel import course_names, hint

    script = (HERE / "fresh-kernel.js").read_text(encoding="utf-8")
    if "__NAMES__" not in script or "__SAY__" not in script:
        raise SystemExit("site/build.py : site/fresh-kernel.js inattendu (__NAMES__, __SAY__)")
    script = (script.replace("__NAMES__", json.dumps(sorted(course_names())))
              .replace("__SAY__", json.dumps(" ".join(hint("@@NOM@@", {})), ensure_ascii=False)))
    at_head_top(out / "lab" / "index.html", f"<script>\n{script}</script>")


def start_kernel_early(out: Path, bundled: dict[str, object]) -> None:
    """site/early-kernel.js at the top of the lab page, with the path of the worker it makes
    (site/early_kernel.py changes pyodide-kernel to take it, and to load `bundled`'s way)."""
    script = (HERE / "early-kernel.js").read_text(encoding="utf-8")
    if "__WORKER__" not in script:
        raise SystemExit("site/build.py : site/early-kernel.js inattendu (__WORKER__)")
    script = script.replace("__WORKER__", json.dumps(start_early(out, bundled)))
    at_head_top(out / "lab" / "index.html", f"<script>\n{script}</script>")


def write_config(lite: Path) -> None:
    """jupyter_lite_config.json (the build) and jupyter-lite.json (the page)."""
    # The course's JupyterLab plugin (jupyter-config/labextension), from the wheel's shared data.
    plugin = [str(w.relative_to(lite)) for w in (lite / "wheels").glob("harness_lib-*.whl")]
    build_config = {
        "LiteBuildConfig": {"apps": ["lab"], "no_sourcemaps": True,
                            "federated_extensions": plugin},
        "PyodideLockAddon": {"enabled": True, "wheels": ["wheels"],
                             "specs": ["harness-lib", "micropip"],
                             "prefetch_extra": PREFETCH},
    }
    kernel = "@jupyterlite/pyodide-kernel-extension:kernel"
    page = {"jupyter-lite-schema-version": 0, "jupyter-config-data": {
        # window.jupyterapp: what the site's test and bench drive, as for JupyterLab's.
        "exposeAppInBrowser": True,
        "litePluginSettings": {kernel: {"disablePyPIFallback": True}}}}
    (lite / "jupyter_lite_config.json").write_text(json.dumps(build_config, indent=2))
    (lite / "jupyter-lite.json").write_text(json.dumps(page, indent=2))


def open_on_first(out: Path) -> None:
    """The site's address opens the course: on the notebook the learner was on, 00 the first
    time (site/one-notebook.js, at the top of lab/index.html, chooses; one notebook, one
    kernel). The root index.html stays (every page reads its configuration there); a line at
    the top of its <head> goes on to the course."""
    go = ('<script>location.replace("lab/index.html")</script>'
          f'<noscript><a href="lab/index.html?path={FIRST}">Ouvrir le cours</a></noscript>')
    at_head_top(out / "index.html", go, must_hold='id="jupyter-config-data"')
    one = (HERE / "one-notebook.js").read_text(encoding="utf-8")
    if "__FIRST__" not in one:
        raise SystemExit("site/build.py : site/one-notebook.js inattendu (__FIRST__)")
    script = one.replace("__FIRST__", json.dumps(FIRST))
    at_head_top(out / "lab" / "index.html", f"<script>\n{script}</script>")


def at_head_top(page: Path, html: str, must_hold: str = "<head>") -> None:
    """`html` first in `page`'s <head>, before JupyterLite's own code; a page that is not
    the one expected (no <head>, or without `must_hold`) stops the build."""
    text = page.read_text(encoding="utf-8")
    if "<head>" not in text or must_hold not in text:
        raise SystemExit(f"site/build.py : {page.name} de JupyterLite inattendu ({must_hold})")
    page.write_text(text.replace("<head>", "<head>" + html, 1), encoding="utf-8")


def offline(out: Path) -> None:
    """Our service worker in place of JupyterLite's (moved beside it, and imported by it), and
    the page's note that keeps JupyterLite from registering the worker again
    (site/offline-page.js)."""
    note = (HERE / "offline-page.js").read_text(encoding="utf-8")
    app_version = json.loads((out / "jupyter-lite.json").read_text(encoding="utf-8"))[
        "jupyter-config-data"]["appVersion"]
    if "__APP_VERSION__" not in note:
        raise SystemExit("site/build.py : site/offline-page.js inattendu (__APP_VERSION__)")
    script = note.replace("__APP_VERSION__", json.dumps(app_version))
    at_head_top(out / "lab" / "index.html", f"<script>\n{script}</script>")
    (out / WORKER).rename(out / JUPYTERLITE_WORKER)
    write_worker(out)


def write_worker(out: Path) -> None:
    """site/offline.js as the site's service-worker.js, SITE written in: every file to
    precache with a hash of its bytes (a file a new build left as it was comes from the
    previous build's cache, not from the host again), and the build's version, a hash of it
    all (a new build, a new cache)."""
    files = {name: hashlib.sha256((out / name).read_bytes()).hexdigest()[:16]
             for name in precached(out)}
    worker = (HERE / "offline.js").read_text(encoding="utf-8")
    digest = hashlib.sha256(worker.encode() + json.dumps(files).encode())
    digest.update((out / JUPYTERLITE_WORKER).read_bytes())
    site = json.dumps({"version": digest.hexdigest()[:16], "files": files})
    (out / WORKER).write_text(worker.replace("__SITE__", site, 1), encoding="utf-8")
    size = sum((out / name).stat().st_size for name in files)
    print(f"Hors ligne : {len(files)} fichiers, {size / 1e6:.1f} Mo mis en cache à la 1re visite")


def precached(out: Path) -> list[str]:
    """Every file of the site (paths from its root), but those no browser asks for."""
    found = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    woff2 = {name.removesuffix(".woff2") for name in found if name.endswith(".woff2")}
    return [name for name in found if Path(name).name not in TOOLING
            and not (name.endswith(FONT_FALLBACKS) and name.rsplit(".", 1)[0] in woff2)]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
