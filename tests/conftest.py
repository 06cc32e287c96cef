"""Shared pytest fixtures (each test module may add its own; others append here).

Every test gets, without asking:
- an environment without a real key or model name (`clean_environment`): a test
  never talks to a real provider by accident, and never depends on the shell it
  was started from. Tests marked `live` (tests/test_live.py) keep them;
- its temporary files in pytest's own temporary folder (`temporary_files`): the
  example workspaces that `example_workspace()` copies, the folders of a replayed
  incident, go where pytest cleans up, not into /tmp for ever.
- its own empty progress file (`fresh_progress`, $HARNESS_PROGRESSION): an answer a test
  gives is never shown again by another test, and no progression.json lands in the
  checkout (nbval's kernels, started before any fixture, get the session's one: the
  root conftest.py).

The browser tests' fixtures (browser, lab, open_notebook, site, served, context…) come from
the plugin tests/browsing/fixtures.py, loaded here: no test module imports them.

Hypothesis runs without its per-example deadline (200 ms by default): on a busy CI
machine a slow example is not a failure; speed targets live in bench/.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_server import FakeServer
from hypothesis import settings

pytest_plugins = ["browsing.fixtures"]

settings.register_profile("course", deadline=None)
settings.load_profile("course")

ROOT = Path(__file__).resolve().parent.parent
# The chapter the course is written from, byte for byte: CI copies shared/ beside the project.
CHAPTER = ROOT.parent / "shared" / "seeds" / "000_b076fb5510848e2b.txt"
SECRET_VARIABLES = ("OPENROUTER_API_KEY", "OPENAI_API_KEY", "HARNESS_MODEL", "HARNESS_LIVE")


@pytest.fixture(autouse=True)
def clean_environment(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("live") is None:
        for name in SECRET_VARIABLES:
            monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def temporary_files(tmp_path_factory: pytest.TempPathFactory,
                    monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """tempfile.mkdtemp() and the subprocesses' TMPDIR point into pytest's temporary folder."""
    folder = tmp_path_factory.mktemp("tempfiles")
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("TMPDIR", str(folder))
    yield folder


@pytest.fixture(autouse=True)
def fresh_progress(tmp_path_factory: pytest.TempPathFactory,
                   monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty progress file for each test (and the kernels and servers it starts)."""
    path = tmp_path_factory.mktemp("progression") / "progression.json"
    monkeypatch.setenv("HARNESS_PROGRESSION", str(path))
    return path


@pytest.fixture
def chapter() -> str:
    """The chapter's text. Missing: a failure in CI (CI=true), a skip with the reason elsewhere."""
    if not CHAPTER.is_file():
        where = f"le chapitre est introuvable : {CHAPTER} (shared/ doit être à côté du projet)"
        if os.environ.get("CI") == "true":
            pytest.fail(where)
        pytest.skip(where)
    return CHAPTER.read_text(encoding="utf-8")


@pytest.fixture
def fake_openai() -> Iterator[FakeServer]:
    """A fake OpenAI-compatible server on 127.0.0.1 (see fake_server.py), stopped after."""
    with FakeServer() as server:
        yield server


@pytest.fixture
def unconfined(monkeypatch: pytest.MonkeyPatch) -> None:
    """bash as on a machine where no sandbox can start: its program is not installed."""
    from harness_lib.tools import sandbox

    monkeypatch.setattr(sandbox, "PROGRAM", "bwrap-absent-pour-ce-test")


@pytest.fixture
def sandboxed() -> None:
    """The sandbox must start: skipped with the reason where it cannot, but a failure in CI
    (CI=true), whose machine installs bubblewrap (.ci/run)."""
    from harness_lib.tools import sandbox

    why = sandbox.problem()
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"le bac à sable doit démarrer en CI : {why}")
        pytest.skip(f"pas de bac à sable ici : {why}")


@pytest.fixture(params=["bac à sable", "sans bac à sable"])
def bash_mode(request: pytest.FixtureRequest) -> str:
    """Each of bash's process tests, in the sandbox and as on a machine without one."""
    request.getfixturevalue("sandboxed" if request.param == "bac à sable" else "unconfined")
    return str(request.param)
