"""Binder's build, replayed without Docker: is binder/ still in step with pyproject.toml?

Facts about repo2docker (the tool Binder uses), as of 2026.4: when a `binder/`
folder exists, every configuration file is read from there only, so the root
pyproject.toml is not installed by itself; `environment.yml` (and Dockerfile,
Pipfile...) would win over `requirements.txt`; `runtime.txt` picks the Python
version (3.10 by default); `postBuild` runs last, from the repository root.
repo2docker runs `pip install --no-cache-dir -r binder/requirements.txt` from the
repository root, where pip reads `.` as that root (see binder/requirements.txt).

The fast tests read the files. The `slow` ones build what Binder builds, in a
clean venv in a temporary folder: the same pip command from a copy of the
repository, then `binder/postBuild`, then every notebook executed with nbclient
in that venv, in mock mode. It takes 1 to 2 minutes with a warm pip cache (we keep
pip's cache, unlike repo2docker) and needs the package index: without network
access to it, the slow tests are skipped.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
LAB_PLUGIN = "jupyter-config/labextension"  # installed in share/jupyter/labextensions


# Files that repo2docker would prefer to requirements.txt (its buildpacks, in order).
WINNERS = ("Dockerfile", "default.nix", "Project.toml", "REQUIRE", "install.R", "DESCRIPTION",
           "environment.yml", "Pipfile", "Pipfile.lock", "setup.py")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def lab_plugin_package() -> dict[str, Any]:
    """The plugin's package.json: its name, version and the file Lab loads."""
    import json

    return dict(json.loads((ROOT / LAB_PLUGIN / "package.json").read_text(encoding="utf-8")))


def requirement_lines() -> list[str]:
    """binder/requirements.txt without comments nor blank lines."""
    text = (BINDER / "requirements.txt").read_text(encoding="utf-8")
    return [line.split(" #")[0].strip() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def runtime_version() -> str:
    """'3.11' for a runtime.txt that says python-3.11."""
    runtime = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    assert runtime.startswith("python-"), f"runtime.txt : {runtime!r} n’est pas python-X.Y"
    return runtime.removeprefix("python-")


# ---------------------------------------------------------------- the files (fast)

def test_requirements_txt_is_what_binder_reads() -> None:
    present = [name for name in WINNERS if (BINDER / name).exists()]
    assert not present, f"{present} dans binder/ : repo2docker ignorerait requirements.txt"
    assert (BINDER / "requirements.txt").is_file()


def test_requirements_install_this_repository_with_the_lab_extra() -> None:
    local = [line for line in requirement_lines()
             if re.match(r"(-e\s+|--editable[=\s]+)?\.\[", line)]
    assert len(local) == 1, "binder/requirements.txt doit installer le dépôt : `-e .[lab]`"
    extras = Requirement("harness_lib" + local[0].split(".", 1)[1]).extras
    assert "lab" in extras
    assert extras <= set(PYPROJECT["project"]["optional-dependencies"]), "extra inconnu"
    lab = [Requirement(r).name for r in PYPROJECT["project"]["optional-dependencies"]["lab"]]
    assert "jupyterlab" in lab, "l’extra [lab] doit apporter JupyterLab (il dessine Mermaid)"


def pins(requirements: list[str]) -> dict[str, str]:
    """{name: specifier} of JupyterLab and Notebook in these requirement lines."""
    found = [Requirement(r) for r in requirements if not r.startswith(("-", "."))]
    return {r.name: str(r.specifier) for r in found if r.name in ("jupyterlab", "notebook")}


def test_binder_and_local_installs_run_the_versions_the_tests_run() -> None:
    """Binder's base image has its own JupyterLab: a `>=` in [lab] would keep it."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    lab, tested = pins(extras["lab"]), pins(extras["test"])
    assert lab == tested and set(lab) == {"jupyterlab", "notebook"}
    assert all(spec.startswith("==") for spec in lab.values()), lab
    assert pins(requirement_lines()) == lab, "binder/requirements.txt : mêmes versions que [lab]"


def test_the_package_turns_the_news_pop_up_off() -> None:
    """Every install (Binder, a learner's, the tests) gets Lab's page config: the
    « official Jupyter news » pop-up off, through a page_config.d file of its own."""
    import json

    shipped = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-data"]
    source = {target: source for source, target in shipped.items()}[
        "etc/jupyter/labconfig/page_config.d/harness_lib.json"]
    config = json.loads((ROOT / source).read_text(encoding="utf-8"))
    assert config["disabledExtensions"]["@jupyterlab/apputils-extension:announcements"] is True


def test_every_kernel_of_the_install_says_which_cell_to_run_first() -> None:
    """IPython reads sys.prefix/etc/ipython: each kernel loads the course's extension
    (playground/fresh_kernel.py), which names the cell to run after a NameError."""
    import importlib
    import json

    shipped = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-data"]
    source = {target: source for source, target in shipped.items()}[
        "etc/ipython/ipython_kernel_config.json"]
    config = json.loads((ROOT / source).read_text(encoding="utf-8"))
    extension, = config["InteractiveShellApp"]["extensions"]
    assert callable(importlib.import_module(extension).load_ipython_extension)


def test_every_server_of_the_install_loads_the_course_s_extension() -> None:
    """Jupyter Server reads sys.prefix/etc/jupyter/jupyter_server_config.d: each server
    (Lab, Notebook 7, Voilà) loads playground/server_extension.py, which reaches a new
    kernel at once (tests/test_server_extension.py)."""
    import importlib
    import json

    shipped = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-data"]
    source = {target: source for source, target in shipped.items()}[
        "etc/jupyter/jupyter_server_config.d/harness_lib.json"]
    config = json.loads((ROOT / source).read_text(encoding="utf-8"))
    module = "harness_lib.course.playground.server_extension"
    assert config == {"ServerApp": {"jpserver_extensions": {module: True}}}
    points = importlib.import_module(module)._jupyter_server_extension_points()
    assert points == [{"module": module}]


def test_the_package_installs_its_lab_plugin_where_lab_looks() -> None:
    """Lab, Notebook 7 and the site load every folder of share/jupyter/labextensions: the
    course's plugin (tests/test_lab_plugin.py) under the name its package.json gives."""
    import json

    shipped = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-data"]
    package = lab_plugin_package()
    assert shipped[LAB_PLUGIN] == f"share/jupyter/labextensions/{package['name']}"
    assert package["version"] == PYPROJECT["project"]["version"]
    install = json.loads((ROOT / LAB_PLUGIN / "install.json").read_text(encoding="utf-8"))
    assert install["packageName"] == PYPROJECT["project"]["name"]  # `jupyter labextension list`
    script = (ROOT / LAB_PLUGIN / package["jupyterlab"]["_build"]["load"]).read_text("utf-8")
    # Lab's bootstrap asks window._JUPYTERLAB[name] for get("./extension").
    assert f'(_JUPYTERLAB = _JUPYTERLAB || {{}})["{package["name"]}"]' in script
    assert package["jupyterlab"]["_build"]["extension"] == "./extension"
    assert 'module === "./extension"' in script


def test_the_lab_plugin_s_file_is_named_after_its_content() -> None:
    """Lab serves the plugin without a version: a browser may keep the file it has. A new
    content must come under a new name, as a bundler's would."""
    import hashlib

    folder = ROOT / LAB_PLUGIN
    load = folder / lab_plugin_package()["jupyterlab"]["_build"]["load"]
    digest = hashlib.sha256(load.read_bytes()).hexdigest()[:12]
    assert load.name == f"remoteEntry.{digest}.js", (
        f"{load.name} a changé : renommez-le remoteEntry.{digest}.js, dans package.json aussi")
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    assert files == ["install.json", "package.json", str(load.relative_to(folder))]


def test_runtime_python_is_one_the_package_supports() -> None:
    version = runtime_version()
    assert len(Version(version).release) == 2, "runtime.txt : python-X.Y (X.Y exact)"
    assert Version(version) in SpecifierSet(PYPROJECT["project"]["requires-python"])


def test_the_badge_opens_the_start_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"mybinder\.org/v2/gh/[^)\s]*\?urlpath=lab/tree/([^)&\s]+)", readme)
    assert found, "README.md : badge Binder avec urlpath=lab/tree/... attendu"
    assert found[1] == "notebooks/00_bienvenue.ipynb"
    assert (ROOT / found[1]).is_file(), f"le badge ouvre {found[1]}, absent du dépôt"


def test_post_build_is_a_strict_bash_script() -> None:
    post_build = BINDER / "postBuild"
    if not post_build.exists():
        pytest.skip("pas de binder/postBuild")
    lines = post_build.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("#!/bin/bash"), "postBuild : ligne #! attendue"
    assert "set -euo pipefail" in lines, "postBuild doit s’arrêter à la première erreur"


# ---------------------------------------------------------------- Binder's build (slow)

@dataclass(frozen=True)
class Env:
    repo: Path  # the copy of the repository that was installed (Binder's $HOME)
    bin: Path  # the venv's bin/ (Binder's ${KERNEL_PYTHON_PREFIX}/bin)
    environ: dict[str, str]


def index_reachable(timeout: float = 5.0) -> str | None:
    """None if the package index answers, else why not (a quick HEAD, no big listing)."""
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
    try:
        request = urllib.request.Request(f"{index}/pip/", method="HEAD")
        urllib.request.urlopen(request, timeout=timeout).close()
    except OSError as err:
        return f"{index} injoignable ({err})"
    return None


def python_for(version: str) -> str | None:
    """An interpreter of that X.Y: the running one, or pythonX.Y on PATH."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return sys.executable
    return shutil.which(f"python{version}")


def repository_files() -> list[str]:
    """What a clone would hold: tracked files plus new ones not ignored (a commit away)."""
    done = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                          capture_output=True, check=False)
    if done.returncode:
        pytest.skip("pas un dépôt git : impossible de savoir ce que Binder clonerait")
    return [name for name in done.stdout.decode().split("\0") if name and (ROOT / name).is_file()]


def copy_repository(target: Path) -> None:
    for name in repository_files():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target / name)  # copy2 keeps postBuild's exec bit


def clean_environ(venv: Path, home: Path) -> dict[str, str]:
    """The venv first on PATH, nothing of ours leaking in, and mock mode (no API key)."""
    drop = {"PYTHONPATH", "VIRTUAL_ENV", "OPENROUTER_API_KEY", "PYTHONHOME"}
    environ = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("JUPYTER")}
    environ.update(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
                   VIRTUAL_ENV=str(venv), PIP_DISABLE_PIP_VERSION_CHECK="1",
                   # Jupyter's per-user folders in the temporary home, not the developer's.
                   JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
                   JUPYTER_RUNTIME_DIR=str(home / "runtime"), IPYTHONDIR=str(home / "ipython"))
    return environ


def run(command: list[str], cwd: Path, environ: dict[str, str], timeout: float) -> str:
    """Run a build step; on failure, fail the test with the step's output."""
    done = subprocess.run(command, cwd=cwd, env=environ, capture_output=True, text=True,
                          timeout=timeout, check=False)
    output = ANSI.sub("", done.stdout + done.stderr)
    if done.returncode:
        pytest.fail(f"$ {' '.join(command)}  (code {done.returncode})\n{output[-4000:]}")
    return output


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    """Binder's build steps, in order, in a temporary folder (built once per module)."""
    why = index_reachable()
    if why:
        pytest.skip(f"pas d’accès à l’index des paquets, build Binder non rejoué : {why}")
    python = python_for(runtime_version())
    if python is None:
        pytest.skip(f"python{runtime_version()} (binder/runtime.txt) absent de cette machine")
    base = tmp_path_factory.mktemp("binder")
    repo, venv, home = base / "repo", base / "venv", base / "home"
    copy_repository(repo)
    # A clean venv, as Binder's own environment: no --system-site-packages.
    subprocess.run([python, "-m", "venv", str(venv)], check=True, timeout=120)
    environ = clean_environ(venv, home)
    run([str(venv / "bin" / "pip"), "install", "-r", "binder/requirements.txt"], repo, environ, 900)
    if (repo / "binder" / "postBuild").exists():
        run(["./binder/postBuild"], repo, environ, 300)
    yield Env(repo, venv / "bin", environ)


@pytest.mark.slow
def test_binder_installs_harness_lib_from_the_repository(binder_env: Env) -> None:
    code = "import harness_lib, ipywidgets, sys; print(sys.prefix); print(harness_lib.__file__)"
    out = run([str(binder_env.bin / "python"), "-c", code], binder_env.repo, binder_env.environ, 60)
    prefix, module = out.split()[-2:]
    assert Path(prefix) == binder_env.bin.parent, "le python du venv n’est pas celui utilisé"
    # Editable: the package is the repository's own folder, which learners may edit.
    assert Path(module).is_relative_to(binder_env.repo / "harness_lib"), module


@pytest.mark.slow
def test_binder_has_jupyterlab_with_widgets_and_no_news_popup(binder_env: Env) -> None:
    jupyter = str(binder_env.bin / "jupyter")
    version = run([jupyter, "lab", "--version"], binder_env.repo, binder_env.environ, 60)
    assert Version(version.split()[-1]) >= Version("4.1"), "Lab >= 4.1 dessine Mermaid"
    listing = run([jupyter, "labextension", "list"], binder_env.repo, binder_env.environ, 60)
    assert re.search(r"@jupyter-widgets/jupyterlab-manager \S+ enabled\s+OK", listing), listing
    # The course's own plugin (jupyter-config/labextension), from the editable install.
    assert re.search(r"harness-lib \S+ enabled\s+OK", listing), listing
    if (BINDER / "postBuild").exists():
        assert "@jupyterlab/apputils-extension:announcements" in listing, listing
    servers = run([jupyter, "server", "extension", "list"], binder_env.repo, binder_env.environ, 60)
    assert re.search(r"jupyterlab \S+ OK", servers), servers


# Runs inside the Binder venv: the notebook as Lab would run it (its folder as working
# directory), plus a last cell that tells which Python the kernel was.
RUNNER = """
import sys, nbformat
from pathlib import Path
from typing import Any
from nbclient import NotebookClient
path = Path(sys.argv[1])
nb = nbformat.read(path, as_version=4)
# One write: a warning on stderr cannot cut the line in two stream outputs.
last = "import sys; sys.stdout.write(f'KERNEL {sys.prefix}\\\\n')"
nb.cells.append(nbformat.v4.new_code_cell(last))
NotebookClient(nb, timeout=180, kernel_name="python3",
               resources={"metadata": {"path": str(path.parent)}}).execute()
print("".join(o["text"] for o in nb.cells[-1].outputs if o.get("name") == "stdout").strip())
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", [p.name for p in NOTEBOOKS])
def test_binder_runs_the_notebook(binder_env: Env, name: str) -> None:
    # nbclient raises on the first error output, except in cells tagged raises-exception.
    out = run([str(binder_env.bin / "python"), "-c", RUNNER, f"notebooks/{name}"],
              binder_env.repo, binder_env.environ, 600)
    assert f"KERNEL {binder_env.bin.parent}" in out, "le noyau n’a pas tourné dans le venv Binder"
