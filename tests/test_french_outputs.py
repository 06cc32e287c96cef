"""What a learner reads in the executed course is French: outputs and widgets included.

Each notebook 00-07 is executed once with nbclient (about 2 s each, mock mode: no key),
then every output it shows and every string its widgets hold (the executed notebook's
saved widget state: the players' notes, captions and « Que sait le modèle ? » panels,
the questions' prompts and choices, the Output widgets' own outputs) is read as the
learner reads it: HTML as its visible text, code left out (a `<pre>`, a `<code>`, the
code views' monospace lines: Python and JSON keep their English names). In that text,
nothing of the harness's English internals (stop reasons, policy verdicts), no number
in English format, no « (s) » or disagreeing plural, no « .. », no escape sequence, no
HTML shown as text. The API's own English texts are allowed, quoted: they are in
`<code>` or between « ».
"""

from __future__ import annotations

import json
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
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
REASONS = ("answer|max_turns|timeout|api_error|denied|failures|human|length|"
           "content_filter|dead_end")
NOUNS = ("appels|messages|outils|tours|tokens|fichiers|résultats|erreurs|échecs|secondes|"
         "problèmes|demandes|caractères|lignes|occurrences|étapes|dollars|essais")
# What must not be read, each with the name the failure gives it.
FAULTS = {
    # « Arrêt : budget de 1 500 tokens atteint » is French: « budget » only after terminé/raison.
    "raison en anglais": re.compile(rf"(?:terminé|raison|arrêt)\s*:\s*(?:{REASONS})\b|"
                                    r"(?:terminé|raison)\s*:\s*budget\b", re.I),
    # Allowed as code: a Python string ('max_turns'), a keyword argument (max_turns=15).
    "nom interne": re.compile(r"(?<!['\"`])\b(?:api_error|max_turns|max_failures|content_filter|"
                              r"dead_end)\b(?!['\"`=])"),
    "verdict en anglais": re.compile(r"\b(?:allow|deny|ask) \(|\((?:allow|deny|ask)\)"),
    "usage « réel » d’un modèle simulé": re.compile(r"Usage réel"),
    # Allowed as code: a keyword argument (model_timeout=120.0), a call's argument (f(1234)).
    "nombre à l’anglaise": re.compile(r"(?<![\w.,=])\d+\.\d+(?![\w.])"),
    "nombre sans espace des milliers": re.compile(r"(?<![\w.,:/#(=\u202f\u00a0-])\d{4,}(?![\w])"),
    "(s)": re.compile(r"\w\(s\)"),
    "pluriel après 0 ou 1": re.compile(rf"(?<![\d,.\u202f\u00a0])\b[01] (?:{NOUNS})\b"),
    "accord avec « message »": re.compile(r"\b[01] message, envoyés"),
    "« .. »": re.compile(r"(?<![.\w/])\w+\.\.(?![./\w])|[^.\s]\.\.(?:\s|$)"),
    "séquence d’échappement": re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})"),
    "HTML affiché en texte": re.compile(r"</?(?:b|i|p|br|code|pre|div|span|ul|li|table)\b[^<]*>"),
}


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


def unquoted(text: str) -> str:
    """Text without what it quotes « like this »: the API's own words may be English."""
    return re.sub(r"«[^«»]*»", "«»", text)


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


def faults(where: str, text: str) -> list[str]:
    text = unquoted(text)
    found = []
    for fault, pattern in FAULTS.items():
        for hit in pattern.finditer(text):
            around = text[max(0, hit.start() - 50):hit.end() + 30].replace("\n", " ")
            found.append(f"{where} — {fault} : …{around}…")
    return found


def test_the_scan_sees_each_fault() -> None:
    seen = {fault for sample in [
        "terminé : answer", "raison : api_error", "allow (read_file : ok (allow))",
        "Usage réel selon l’API", "0.01 s", "1097 tokens", "appel(s)", "1 appels",
        "0 message, envoyés", "l’heure..", "Fichier\\xa0: x", "<b>gras</b>"]
        for fault in (f.split(" — ")[1].split(" : …")[0] for f in faults("x", sample))}
    assert seen == set(FAULTS)
    # Not faults: French numbers, a quoted English text, code, a path, an ellipsis.
    fine = ("1\u202f097 tokens, 0,01 s, 2 messages, 1 message « Invalid value: 'robot'. » "
            "../docs … fin. 3.")
    assert faults("x", fine + visible("<code>max_turns 0.5 (allow)</code>")) == []


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_what_the_learner_reads_is_french(name: str) -> None:
    found = [f for where, text in texts(executed(name)) for f in faults(where, text)]
    unique = list(dict.fromkeys(found))
    assert not unique, f"{len(unique)} problèmes dans {name} :\n" + "\n".join(unique[:40])


def test_widget_state_is_scanned() -> None:
    """The players' notes and drawings live in the widget state, not in the outputs: read."""
    where = {w for w, _ in widget_texts(executed("01_deux_tours.ipynb"))}
    assert {"AnyModel.texts", "AnyModel.sequences", "AnyModel.hubs"} <= where, where
    # send()'s diagrams too: each is a widget that draws one Mermaid text (figure.py).
    where = {w for w, _ in widget_texts(executed("02_deux_regles.ipynb"))}
    assert {"AnyModel.mermaid", "AnyModel.transcript"} <= where, where


if __name__ == "__main__":  # python tests/test_french_outputs.py NAME: the list, to read
    import sys

    for where, text in texts(executed(sys.argv[1])):
        print(json.dumps([where, text[:300]], ensure_ascii=False))
