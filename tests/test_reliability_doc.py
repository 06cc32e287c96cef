"""docs/reliability.md cannot rot: every proof it names is a test that exists.

The table's last column names tests as `tests/<file>.py::<function>`. Each one must be
a test function defined in that file; each row must name at least one; and the faults
and attacks the issue asks for must all have their row.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "reliability.md"
PROOF = re.compile(r"tests/(test_\w+\.py)::(test_\w+)")
# What the issue asks the table to cover: one row at least mentions each of these.
REQUIRED = [
    "400", "401", "402", "403", "408", "429 with", "429 without", "500", "502", "503",
    "connection refused", "model slower", "truncated body", "non-JSON body", "no `choices`",
    '`finish_reason: "length"`', "not valid JSON", "missing a required field",
    "unknown tool name", "duplicate tool-call ids", "one of them fails", "prints megabytes",
    "binary or non-UTF-8", "tool slower", "`../`", "absolute path", "`~`", "symlink file",
    "symlinked folder", "swap between check and use", "NUL byte", "newline",
    "very long path", "edit_file outside", "working directory", "dangerous commands",
    "Learners' input", "Secrets", "No loss",
    # Reliability II (issue 11): each class of faults has its rows.
    "Reply shape", "`NaN`", "lone surrogate", "`Content-Encoding` that lies",
    "any exception httpx can raise", "Replies without text", "`content_filter`", "Deadlines",
    "trickles one byte", "bigger than 10 MB", "`Retry-After` longer", "UTF-8",
    "not UTF-8", "terminal in ASCII", "shell reads them", "10 000 characters",
    "two results for one `tool_call_id`", "`name` outside", "content parts",
    "`tool_calls[].type`", "maximum length", "malformed `tools`", "was not given",
    "40 000-character", "`serveur & echo prêt`", "URL with a password", "**200** reply",
    "CLI", "`--max-turns 0`", "malformed line", "`Limits` with turns", "`transcript()`",
]


def test_the_unconfirmed_provider_texts_are_listed() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "## Provider texts not confirmed" in text
    section = text.split("## Provider texts not confirmed", 1)[1]
    for words in ("empty list of content parts", "(harness)", "Missing required parameter",
                  "DeepSeek"):
        assert words in section, words


def rows() -> list[list[str]]:
    """The cells of every body row of the table (header and separator left out)."""
    table = [line for line in DOC.read_text(encoding="utf-8").splitlines()
             if line.startswith("|")]
    cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in table]
    return [row for row in cells[2:] if row != cells[0]]


@cache
def defined_tests(name: str) -> set[str]:
    """Names of the test functions defined at the top level of tests/<name>."""
    tree = ast.parse((REPO / "tests" / name).read_text(encoding="utf-8"))
    return {node.name for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_the_table_has_four_columns_and_a_proof_on_every_row() -> None:
    body = rows()
    assert len(body) >= 40
    for row in body:
        assert len(row) == 4, row
        assert PROOF.search(row[3]), f"ligne sans preuve : {row[:2]}"


@pytest.mark.parametrize("proof", sorted({m.group(0) for row in rows()
                                          for m in PROOF.finditer(row[3])}))
def test_every_proof_is_an_existing_test(proof: str) -> None:
    file, function = PROOF.fullmatch(proof).groups()  # type: ignore[union-attr]
    assert (REPO / "tests" / file).exists(), f"{file} n’existe pas"
    assert function in defined_tests(file), f"{function} n’est pas défini dans tests/{file}"


@pytest.mark.parametrize("words", REQUIRED)
def test_every_required_fault_has_its_row(words: str) -> None:
    assert any(words in " ".join(row[:2]) for row in rows()), f"pas de ligne pour : {words}"


def test_the_sandbox_limits_link_to_the_readme() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "(../README.md#ce-que-le-bac-à-sable-ne-protège-pas)" in text
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "## Ce que le bac à sable ne protège pas" in readme
    assert "bash runs with the learner's rights" in text  # where no sandbox can start
    assert "**Where bubblewrap starts**" in text and "**Where no sandbox can start**" in text
    assert "Tests/test_sandbox.py".lower() in readme.lower()
