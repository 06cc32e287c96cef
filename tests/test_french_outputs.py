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
import re
from pathlib import Path

import pytest
from executed_notebooks import executed, texts, visible, widget_texts

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


def unquoted(text: str) -> str:
    """Text without what it quotes « like this »: the API's own words may be English."""
    return re.sub(r"«[^«»]*»", "«»", text)


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
