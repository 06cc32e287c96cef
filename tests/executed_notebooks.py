"""A course notebook executed as Lab would (nbclient, mock mode, cached: each runs once per
session) and everything it shows, as a learner reads it: outputs, widgets' saved state, HTML
as its visible text without code. For tests/test_french_outputs.py, test_notebooks.py and
test_unconfined_notebooks.py.

    for where, text in texts(executed("01_deux_tours.ipynb")): ...   # "cellule 3", "…"
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from harness_lib.course.drawing.mermaid import unescape

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parent.parent


class _Visible(HTMLParser):
    """The text a browser shows, without code (`pre`, `code`, monospace) nor styles."""

    SKIPPED = {"pre", "code", "style", "script", "textarea"}
    VOID = {"br", "img", "hr", "input", "meta", "link", "wbr", "col"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[bool] = []  # per open element: does it hide its text?
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            self.parts.append(" ")
            return
        style = dict(attrs).get("style") or ""
        self.stack.append(tag in self.SKIPPED or "monospace" in style)

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID and self.stack:
            self.stack.pop()
        self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not any(self.stack):
            self.parts.append(data)


def visible(page: str) -> str:
    """>>> visible('<p>Arrêt <code>max_turns</code> &lt;b&gt;</p>')
    'Arrêt  <b> '"""
    parser = _Visible()
    parser.feed(page)
    parser.close()
    return "".join(parser.parts)


def mermaid_labels(text: str) -> str:
    """The words a sequence diagram shows: its labels as drawn (`<br>` a line break,
    `#35;` a `#`), not its settings."""
    lines = [line for line in text.splitlines() if not line.strip().startswith("%%")]
    return "\n".join(unescape(line.split(":", 1)[1]) for line in lines if ":" in line)


def output_texts(output: dict[str, Any]) -> Iterator[str]:
    """What one output shows: its richest form only (Lab shows one)."""
    if output.get("output_type") == "stream":
        yield "".join(output["text"])
        return
    data = output.get("data") or {}
    text = {k: "".join(v) if isinstance(v, list) else v for k, v in data.items()}
    if "application/vnd.jupyter.widget-view+json" in text:
        return  # the widget's state is read below
    if "text/html" in text:
        yield visible(text["text/html"])
    elif "text/vnd.mermaid" in text:
        yield mermaid_labels(text["text/vnd.mermaid"])
    elif "text/markdown" in text:  # its `code` spans are code
        yield re.sub(r"`[^`]*`", "", text["text/markdown"])
    elif "text/plain" in text:
        yield text["text/plain"]
    if output.get("output_type") == "error":
        yield f"{output.get('ename')}: {output.get('evalue')}"


HTML_TRAITS = {"texts", "knowns", "messages", "captions", "prompt", "feedback", "value", "titles"}
PLAIN_TRAITS = {"choices", "transcript", "placeholder", "description", "check_label",
                "show_label", "tooltip", "alt"}
# What the player draws, per step; what a figure draws (send()'s conversation).
MERMAID_TRAITS = {"sequences", "hubs", "whole", "mermaid"}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def widget_texts(nb: Any) -> Iterator[tuple[str, str]]:
    """(where, text) of every string a widget shows: the saved state of each model."""
    state = nb.metadata.get("widgets", {}).get(
        "application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for model in state.values():
        name, traits = model.get("model_name", "?"), model.get("state", {})
        for trait, value in traits.items():
            if trait == "outputs":  # an Output widget: outputs of their own
                for output in value:
                    for text in output_texts(output):
                        yield f"{name}.outputs", text
            elif trait in HTML_TRAITS and trait != "value" or (
                    trait == "value" and name == "HTMLModel"):
                for text in _strings(value):
                    yield f"{name}.{trait}", visible(text)
            elif trait in PLAIN_TRAITS:
                for text in _strings(value):
                    yield f"{name}.{trait}", text
            elif trait in MERMAID_TRAITS:
                for text in _strings(value):
                    yield f"{name}.{trait}", mermaid_labels(text)


@cache
def executed(name: str, first: str = "") -> Any:
    """The notebook, executed as Lab would (its folder as working directory, mock mode);
    `first`: a code cell run before the notebook's own (test_unconfined_notebooks.py)."""
    path = ROOT / "notebooks" / name
    nb = nbformat.read(path, as_version=4)
    if first:
        nb.cells.insert(0, nbformat.v4.new_code_cell(first))
    env = {k: v for k, v in os.environ.items() if k not in ("OPENROUTER_API_KEY",
                                                             "HARNESS_MODEL")}
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=300,
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute(env=env)
    return nb


def texts(nb: Any) -> Iterator[tuple[str, str]]:
    """(where, text) of everything the executed notebook shows."""
    for i, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            for text in output_texts(output):
                yield f"cellule {i}", text
    yield from widget_texts(nb)
