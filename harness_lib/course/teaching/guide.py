"""The teacher's guide, docs/guide-enseignant.md: its part per notebook, generated.

Per notebook, what the notebook itself says (title, duration, objectives) and every question
of the bank it asks, with its answer and, for each wrong answer, why it is wrong: the
feedback the learner reads. The guide holds this between two markers; `update(guide)`
writes it again after a change to the bank or to a notebook's first cell
(`python -m harness_lib.course.teaching.guide docs/guide-enseignant.md`), and
tests/test_guide.py checks that the guide and the bank agree.

>>> print(plain("<p>Que sait le <b>modèle</b>\u202f? <code>messages[]</code></p>"))
Que sait le **modèle**\u202f? `messages[]`
>>> "✘ 1\\u202f515 tokens →" in question_markdown("09-contexte")
True
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

from ...text import french_number
from ..exercises.answers import MultipleChoice, Numeric, Open, ShortText, Spec
from ..exercises.final_questions import ASSESSED
from ..exercises.french import typography
from ..exercises.questions import QUESTIONS

ROOT = Path(__file__).resolve().parents[3]  # the repository (this module in a checkout)
BEGIN = "<!-- début de la partie générée : python -m harness_lib.course.teaching.guide -->"
END = "<!-- fin de la partie générée -->"
NB = "\u00a0"  # before a colon, French typography
TO = " → "  # between an answer and what the learner reads about it (answers hold colons)


def plain(page: str) -> str:
    """A bank text (HTML) as one Markdown paragraph, in French typography (as the widgets
    show it): bold, code and lists kept."""
    text = re.sub(r"</?(b|strong)>", "**", typography(page))
    text = re.sub(r"</?code>", "`", text)
    text = re.sub(r"<li>", " • ", text)
    text = re.sub(r"<br\s*/?>|</p>\s*<p>|</?ul>|</li>", " ", text)
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return re.sub(r"[ \t\r\n]+", " ", text).strip()  # not split(): it cuts no-break spaces


def question_markdown(name: str) -> str:
    """One question of the bank, its answer, and why each wrong answer is wrong."""
    spec: Spec = QUESTIONS[name]
    points = next((f" ({a.points} point{'s' if a.points > 1 else ''})" for a in ASSESSED
                   if a.id == name), "")  # a question of the final assessment (09)
    lines = [f"**`{name}`**{points} · {plain(spec.prompt)}", ""]
    if isinstance(spec, MultipleChoice):
        lines += [f"- {'✔' if i == spec.correct else '✘'} {_choice(choice)}{TO}"
                  f"{plain(spec.feedback[i])}" for i, choice in enumerate(spec.choices)]
    elif isinstance(spec, Numeric):
        unit = f" {spec.unit}" if spec.unit else ""
        worked = f"{TO}{plain(spec.explanation)}" if spec.explanation else ""
        lines.append(f"- ✔ {french_number(spec.answer)}{unit}{worked}")
        lines += [f"- ✘ {french_number(wrong)}{unit}{TO}{plain(text)}"
                  for wrong, text in spec.mistakes.items()]
        lines += [f"- ✘ {said}{TO}{plain(text)}" for said, text in
                  (("trop bas", spec.too_low), ("trop haut", spec.too_high)) if text]
    elif isinstance(spec, ShortText):
        lines.append(f"- ✔ {' ou '.join(f'`{a}`' for a in spec.answers)}{TO}"
                     f"{plain(spec.feedback or spec.explanation)}")
        lines += [f"- ✘ `{wrong}`{TO}{plain(text)}" for wrong, text in spec.mistakes.items()]
    else:
        assert isinstance(spec, Open)
        lines.append(f"- Question ouverte, réponse modèle : {plain(spec.model_answer)}")
    return "\n".join(lines)


def _choice(text: str) -> str:
    """A choice as the guide shows it: a line of Python (« for _ in range(n): ») as code."""
    source = "def _():\n    " + text + ("\n        pass" if text.endswith(":") else "")
    try:
        compile(source, "<choix>", "exec")
    except SyntaxError:
        return plain(text)
    return f"`{text}`" if re.search(r"[(\[._]", text) else plain(text)


def first_cell(path: Path) -> tuple[str, str, list[str]]:
    """A notebook's title, its « **Durée** » line and its objectives, as its first cell says."""
    cell = json.loads(path.read_text(encoding="utf-8"))["cells"][0]
    lines = "".join(cell["source"]).splitlines()
    title = lines[0].lstrip("# ").strip()
    duration = next((ln for ln in lines if ln.startswith("**Durée**")), "")
    start = next((i for i, ln in enumerate(lines) if ln.startswith("**À la fin")), len(lines))
    goals = []
    for line in lines[start + 1:]:
        if line.startswith("- "):
            goals.append(line)
        elif goals:
            break
    return title, duration, goals


def generated(root: Path = ROOT) -> str:
    """The guide's part per notebook: 01 to the last numbered one."""
    parts = []
    for path in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))[1:]:
        title, duration, goals = first_cell(path)
        asked = [n for n in QUESTIONS if n.startswith(f"{path.name[:2]}-")]
        parts += [f"### {path.name[:2]} · {title}", "", f"[`{path.name}`](../notebooks/"
                  f"{path.name}) · {duration}", "", f"**Objectifs**{NB}:", "", *goals, ""]
        parts += [f"**Questions ({len(asked)})**{NB}:", ""] if asked else []
        parts += [block for n in asked for block in (question_markdown(n), "")]
    return "\n".join(parts).rstrip() + "\n"


def update(guide: Path, root: Path = ROOT) -> bool:
    """Write the generated part again between its markers; whether it changed."""
    text = guide.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    new = f"{text[:start]}\n\n{generated(root)}\n{text[end:]}"
    guide.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":  # python -m harness_lib.course.teaching.guide docs/guide-enseignant.md
    target = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "docs" / "guide-enseignant.md")
    print(f"{target} : {'mis à jour' if update(target) else 'déjà à jour'}")
