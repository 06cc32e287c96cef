"""The grader's report: one line per mission, ✔ or ✘ and its French explanation.

A failed mission whose explanation was already given says « même problème que pour … »;
a passed one always says what it did. The optional mission is marked ○ until done, and
is not counted. What the loop printed is kept short (its first 2 000 characters).

>>> report = Report([], blocked="Il reste des `...`.")
>>> print(report.text())
✘ Il reste des `...`.
0 / 5 missions réussies.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from ...text import french_number, plural
from ..exercises.targets import PAGE, code_html
from ..missions.own_loop import Watched
from .missions import MISSIONS, Mission


@dataclass(frozen=True)
class Result:
    mission: Mission
    watched: Watched | None  # None: the mission was not run (no time left)
    ok: bool
    explication: str  # French: what went right, or what went wrong and how to fix it

    @property
    def printed(self) -> str:
        """« Votre boucle a affiché … » when it printed something (capped), else ""."""
        guard = self.watched.guard if self.watched else None
        if guard is None or not guard.output.total:
            return ""
        total = guard.output.total
        if total <= guard.output.limit:
            return f"Votre boucle a affiché {plural(total, 'caractère')}."
        return (f"Votre boucle a affiché {french_number(total)} caractères ; le correcteur "
                f"n’en garde que les {french_number(guard.output.limit)} premiers.")


@dataclass(frozen=True)
class Report:
    results: list[Result]
    blocked: str | None = None  # French: why no mission was run (a `...` left, a bad signature)
    loop: Any = None  # the loop graded
    notes: list[str] = field(default_factory=list)  # French: what the grader could not do

    @property
    def counted(self) -> list[Result]:
        return [r for r in self.results if not r.mission.optional]

    @property
    def ok(self) -> bool:
        return self.blocked is None and all(r.ok for r in self.counted) and bool(self.counted)

    def lines(self) -> list[tuple[Result, str]]:
        """Each result and what to say: a failure already explained is not repeated."""
        said: dict[str, str] = {}
        shown = []
        for r in self.results:
            first = said.setdefault(r.explication, r.mission.title) if not r.ok else None
            same = first is not None and first != r.mission.title
            shown.append((r, f"même problème que pour « {first} »." if same else r.explication))
        return shown

    def total(self) -> str:
        passed = sum(r.ok for r in self.counted)
        return f"{passed} / {len(MISSIONS)} missions réussies."

    def text(self) -> str:
        if self.blocked:
            return f"✘ {self.blocked}\n{self.total()}"
        lines = [f"{_mark(r)} {r.mission.title} : {text}" + (f" {r.printed}" if r.printed else "")
                 for r, text in self.lines()]
        return "\n".join([*lines, *self.notes, self.total()])

    def _repr_html_(self) -> str:
        if self.blocked:
            rows = _row("#c62828", "✘", "", self.blocked)
        else:
            rows = "".join(_row(_colour(r), _mark(r), r.mission.title, text, r)
                           for r, text in self.lines())
        notes = "".join(f"<p>{code_html(n)}</p>" for n in self.notes)
        return (f'<div class="harness-grader" style="{PAGE};border:1px solid #ccc;'
                f'border-radius:6px;padding:4px 12px">'
                f'<ul style="list-style:none;padding-left:0">{rows}</ul>{notes}'
                f"<b>{html.escape(self.total())}</b></div>")

    def __repr__(self) -> str:
        return self.text()


def _mark(r: Result) -> str:
    return "✔" if r.ok else ("○" if r.mission.optional else "✘")


def _colour(r: Result) -> str:
    return "#2e7d32" if r.ok else ("#6a737d" if r.mission.optional else "#c62828")


def _row(colour: str, mark: str, title: str, text: str, r: Result | None = None) -> str:
    head = f"<b>{html.escape(title)}</b> : " if title else ""
    printed = ""
    if r is not None and r.printed and r.watched and r.watched.guard:
        printed = (f'<details><summary>{html.escape(r.printed)}</summary><pre style="'
                   f'max-height:12em;overflow:auto">{html.escape(r.watched.guard.output.text)}'
                   "</pre></details>")
    return (f'<li style="margin:4px 0;color:{colour}">{mark} {head}'
            f'<span style="color:#212529">{code_html(text)}</span>{printed}</li>')
