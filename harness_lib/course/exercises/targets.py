"""Targets for a ✏️ cell: « obtenez l'erreur … », ticked by themselves when reached.

A `Targets` list shows each goal with ○, then ✔ once a result reaches it: `check(result)`
reads what send() returned (the API's refusal, or the model's reply) or the `reason` a
run stopped for. The learner never ticks anything by hand: the result says it. A course's
targets (`name` given) are kept in the learner's progress file as they are reached, and
ticked again when the cell runs again (`recommencer("02")` starts them over).

>>> from harness_lib.errors import ApiError
>>> goals = Targets([Target("obtenez un refus", lambda r: isinstance(r, ApiError))])
>>> goals.check("pas un refus"), goals.check(ApiError(400, "non"))
([], ['obtenez un refus'])
>>> print(goals.text())
✔ obtenez un refus
1 / 1 cible atteinte.
Dernier essai : une nouvelle cible atteinte.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import ApiError
from ...models.model import Completion
from ..progress.form import Item
from ..progress.keep import keep, recall, when

# The own page of an output that colours its text (the targets, 08's report): white whatever
# Lab's theme, its green, red and grey chosen for white (4.5:1 at least); under a dark theme
# they would sit on Lab's #111.
PAGE = "background:#fff;color:#212529"


@dataclass(frozen=True)
class Target:
    label: str  # French, with `code` between backquotes
    reached: Callable[[object], bool]  # does this result reach the target?


def refusal(text: str) -> Callable[[object], bool]:
    """Reached by an API refusal whose provider text contains `text`."""
    return lambda result: isinstance(result, ApiError) and text in result.message


def stop(reason: str) -> Callable[[object], bool]:
    """Reached by a run (or its reason) that stopped for `reason`."""
    return lambda result: getattr(result, "reason", result) == reason


def final_answer(result: object) -> bool:
    return isinstance(result, Completion) and not result.tool_calls


class Targets:
    """The goals of one ✏️ cell, each ✔ once reached; a widget that updates itself."""

    def __init__(self, targets: Sequence[Target], name: str | None = None) -> None:
        self.targets = list(targets)
        self.done: set[int] = set()
        self.last = ""  # what the last result did: a learner must know a run reached nothing
        self._view: Any = None  # the HTML widget, built when first displayed
        self.name = name  # "02-cibles": kept in the progress file under this id
        self.problem = ""  # why the progress file could not be read or written, in French
        if name is not None:
            self._recall(name)

    def _recall(self, name: str) -> None:
        """Tick again the targets reached in an earlier session (kept in progression.json)."""
        item, self.problem = recall(name)
        if item is not None and isinstance(item.answer, list):
            self.done = {i for i in item.answer
                         if isinstance(i, int) and 0 <= i < len(self.targets)}
            self.last = f"Cibles déjà atteintes, gardées dans votre progression {when(item)}."

    def _keep(self) -> None:
        if self.name is None:
            return
        n, total = len(self.done), len(self.targets)
        self.problem = keep(self.name, Item(
            "exercise", self.name[:2], answer=sorted(self.done), correct=n == total,
            verdict=self.text().splitlines()[total], score=n, out_of=total))

    def check(self, result: object) -> list[str]:
        """Tick what `result` reaches; return the labels newly ticked. Never raises."""
        hits = [i for i, target in enumerate(self.targets) if _reaches(target, result)]
        new = [self.targets[i].label for i in hits if i not in self.done]
        self.done.update(hits)
        self.last = _last(len(new), bool(hits))
        if new:
            self._keep()
        if self._view is not None:
            self._view.value = self.html()
        return new

    def text(self) -> str:
        lines = [f"{'✔' if i in self.done else '○'} {t.label}" for i, t in enumerate(self.targets)]
        plural = "s" if len(self.done) > 1 else ""
        lines.append(f"{len(self.done)} / {len(self.targets)} cible{plural} atteinte{plural}.")
        return "\n".join(lines + [line for line in (self.last, self.problem) if line])

    def html(self) -> str:
        rows = "".join(
            f'<li style="color:{"#2e7d32" if i in self.done else "#555"}">'
            f'{"✔" if i in self.done else "○"} {code_html(t.label)}</li>'
            for i, t in enumerate(self.targets))
        summary = self.text().splitlines()[len(self.targets):]  # the count, the last try
        return (f'<div class="harness-targets" style="{PAGE};border:1px solid #ccc;'
                f'border-radius:6px;padding:4px 12px;margin:4px 0"><b>Cibles</b>'
                f'<ul style="list-style:none;padding-left:0;margin:4px 0">{rows}</ul>'
                f"{'<br>'.join(html.escape(line) for line in summary)}</div>")

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """Displayed as a widget that ticks by itself; as text where there is no kernel."""
        from ..playground.live import live_html

        if self._view is None:
            # Announced as each goal is reached (live.py).
            self._view = live_html(self.html(), _dom_classes=["harness-targets-view"])
        view = {"version_major": 2, "version_minor": 0, "model_id": self._view.model_id}
        return {"application/vnd.jupyter.widget-view+json": view, "text/plain": self.text()}

    def _ipython_display_(self) -> None:
        """The widget, then what a notebook reopened without its kernel says instead."""
        from ..player import static

        static.show(self._repr_mimebundle_())


def _reaches(target: Target, result: object) -> bool:
    try:
        return bool(target.reached(result))
    except Exception:  # a strange result reaches nothing, and breaks nothing
        return False


def _last(new: int, hit: bool) -> str:
    """What the last try did, in a sentence: a new target, one already reached, or none."""
    if new:
        return "Dernier essai : une nouvelle cible atteinte." if new == 1 else \
            f"Dernier essai : {new} nouvelles cibles atteintes."
    if hit:
        return "Dernier essai : cette cible était déjà atteinte. Visez-en une autre."
    return ("Dernier essai : aucune cible atteinte. Changez une limite, la mission ou un "
            "message, puis relancez.")


def code_html(label: str) -> str:
    """HTML of a French text whose `code` stands between backquotes, as in Markdown."""
    parts = html.escape(label).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def api_targets() -> Targets:
    """Notebook 02's ✏️ messages[] cell: break the conversation in each way the API refuses."""
    return Targets([
        Target("obtenez une réponse finale du modèle (la conversation intacte)", final_answer),
        Target("obtenez l’erreur `…not found in 'tool_calls' of previous message` : un "
               "tool_call_id qui ne répond à aucune demande", refusal("not found in 'tool_calls'")),
        Target("obtenez l’erreur `Missing parameter 'tool_call_id'`",
               refusal("Missing parameter 'tool_call_id'")),
        Target("obtenez un résultat sans demande : `…must be a response to a preceeding "
               "message with 'tool_calls'`", refusal("preceeding message")),
        Target("obtenez une demande sans résultat : `…did not have response messages`",
               refusal("did not have response messages")),
        Target("obtenez un rôle refusé : `Invalid value: '…'`", refusal("Supported values are")),
    ], name="02-cibles")


def stop_targets() -> Targets:
    """Notebook 05's ✏️ Limits(...) cell: make the harness stop for each of its reasons."""
    return Targets([
        Target(f"obtenez l’arrêt `{reason}` : {why}", stop(reason)) for reason, why in (
            ("budget", "le budget de tokens ou de coût"),
            ("failures", "des échecs d’outil d’affilée"),
            ("max_turns", "la limite de tours"),
            ("timeout", "un délai dépassé, pour le modèle ou pour un outil"))],
        name="05-cibles")
