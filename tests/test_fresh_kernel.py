"""A later cell run first in a new kernel (playground/fresh_kernel.py, the IPython
extension every kernel of the install loads): its NameError names the cell to run."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

from harness_lib.course.playground import fresh_kernel


def plain(lines: list[str]) -> str:
    """As read, whatever the line breaks and French typography's no-break spaces."""
    return " ".join("\n".join(lines).split())


@pytest.fixture
def shell(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A fresh IPython shell with the extension loaded; what it shows, kept in `shown`."""
    config = Config()
    config.HistoryManager.enabled = False  # no history file, no saving thread
    ipython = InteractiveShell(config=config)
    ipython.shown = []
    monkeypatch.setattr(ipython, "_showtraceback",
                        lambda etype, value, lines: ipython.shown.append(plain(lines)))
    fresh_kernel.load_ipython_extension(ipython)
    return ipython


def test_a_course_name_unknown_to_a_new_kernel_names_the_cell_to_run(shell: Any) -> None:
    result = shell.run_cell('question("01-inconnu-etape-5")')
    assert isinstance(result.error_in_exec, NameError)
    said, = shell.shown
    assert "NameError" in said and "name 'question' is not defined" in said  # the traceback
    assert "Ce noyau ne connaît pas encore « question »" in said
    assert "première cellule de code du notebook" in said and "Run › Run All Cells" in said


def test_another_name_after_the_imports_keeps_its_traceback_alone(shell: Any) -> None:
    shell.run_cell("from harness_lib.course import question")
    shell.run_cell("mon_resultat + 1")
    said, = shell.shown
    assert "name 'mon_resultat' is not defined" in said and "Ce noyau" not in said


def test_any_name_before_the_imports_gets_the_hint(shell: Any) -> None:
    shell.run_cell("dossier")  # defined by a cell above, which this new kernel never ran
    said, = shell.shown
    assert "Ce noyau ne connaît pas encore « dossier »" in said
