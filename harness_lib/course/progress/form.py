"""The progress file's form: `Item`, `Progress`, and the check of a file read back.

What is written is what `read_progress` accepts (progress-format: version 1). A file that
is not in this form raises `ProgressError`, in French, naming the file and the field;
a key this version does not know is ignored (a newer course may add some).

>>> item = from_json({"kind": "question", "notebook": "04", "answer": 1, "correct": True,
...                   "verdict": "Juste.", "at": "2026-12-02T10:15:00+00:00"}, "items.04-x")
>>> item.correct, item.score
(True, None)
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from ...errors import HarnessError
from ...messages import got

FORMAT = "la-boucle-agentique/progression"
VERSION = 1
KINDS = ("question", "prediction", "exercise", "grade", "assessment")
NOTEBOOK = re.compile(r"\d\d|annexe")
LEARNER_LIMIT = 80  # characters of the learner's name


class ProgressError(HarnessError):
    """A progress file that cannot be read or written, said in French: which file, which field."""


@dataclass(frozen=True)
class Item:
    """What a learner did on one question, exercise or grading, and when."""

    kind: str  # one of KINDS
    notebook: str  # "04", or "annexe"
    answer: Any = None  # a choice's index, a text, a number (JSON), or None
    correct: bool | None = None  # None: not gradable (an open question, a prediction)
    verdict: str = ""  # the French one-line verdict the learner read
    score: float | None = None  # 08's missions passed, 09's score…
    out_of: float | None = None
    at: str = ""  # ISO 8601, with its time zone


@dataclass(frozen=True)
class Progress:
    """A learner's whole progress: their optional name, when it last changed, each item by id."""

    learner: str = ""
    updated: str = ""
    items: dict[str, Item] = field(default_factory=dict)


def to_json(progress: Progress) -> dict[str, Any]:
    """`progress` as the file holds it (the keys in the spec's order)."""
    return {"format": FORMAT, "version": VERSION, "learner": progress.learner,
            "updated": progress.updated,
            "items": {name: asdict(item) for name, item in progress.items.items()}}


class _Checker:
    """Reads one JSON object's fields, each checked; `where` names it in the errors."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise _wrong(where, "un objet JSON { … }", data)
        self.data, self.where = data, where

    def get(self, key: str, kinds: tuple[type, ...], said: str, optional: bool = False) -> Any:
        value = self.data.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
            field_name = f"{self.where}.{key}" if self.where else key
            raise _wrong(field_name, said, value, missing=key not in self.data)
        return value

    def time(self, key: str) -> str:
        value = self.get(key, (str,), "une date ISO 8601 (texte)")
        try:
            datetime.fromisoformat(value)
        except ValueError:
            raise _wrong(f"{self.where}.{key}" if self.where else key,
                         "une date ISO 8601, comme 2026-12-02T10 :15:00+00:00", value) from None
        return value


def _wrong(field_name: str, expected: str, value: Any, missing: bool = False) -> ProgressError:
    """The error for one field: « le champ « x » doit être …, reçu : … » (the file is added)."""
    seen = "absent" if missing else got(value)["got_fr"]
    return ProgressError(f"le champ « {field_name} » doit être {expected} (reçu : {seen})")


NUMBER = (int, float)


def from_json(data: Any, where: str) -> Item:
    """The `Item` in `data` (the object at `where` in the file); ProgressError if it is not one."""
    check = _Checker(data, where)
    kind = check.get("kind", (str,), f"l’un de : {', '.join(KINDS)}")
    if kind not in KINDS:
        raise _wrong(f"{where}.kind", f"l’un de : {', '.join(KINDS)}", kind)
    notebook = check.get("notebook", (str,), "deux chiffres (« 04 ») ou « annexe »")
    if not NOTEBOOK.fullmatch(notebook):
        raise _wrong(f"{where}.notebook", "deux chiffres (« 04 ») ou « annexe »", notebook)
    return Item(kind=kind, notebook=notebook, answer=data.get("answer"),
                correct=check.get("correct", (bool,), "true, false ou null", optional=True),
                verdict=check.get("verdict", (str,), "un texte", optional=True) or "",
                score=check.get("score", NUMBER, "un nombre ou null", optional=True),
                out_of=check.get("out_of", NUMBER, "un nombre ou null", optional=True),
                at=check.time("at"))


def progress_from_json(data: Any) -> Progress:
    """The `Progress` in a file's parsed JSON; ProgressError (without the file's name) if not."""
    check = _Checker(data, "")
    if data.get("format") != FORMAT:
        raise _wrong("format", f"« {FORMAT} »", data.get("format"), "format" not in data)
    if data.get("version") != VERSION or isinstance(data.get("version"), bool):
        raise _wrong("version", f"{VERSION} (ce cours lit la version {VERSION})",
                     data.get("version"), "version" not in data)
    learner = check.get("learner", (str,), "un texte", optional=True) or ""
    if len(learner) > LEARNER_LIMIT:
        raise ProgressError(f"le champ « learner » dépasse {LEARNER_LIMIT} caractères")
    items = _Checker(check.get("items", (dict,), "un objet JSON { … }"), "items").data
    return Progress(learner=learner, updated=check.time("updated"),
                    items={name: from_json(value, f"items.{name}")
                           for name, value in items.items()})
