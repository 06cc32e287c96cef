"""Exercise widgets: checked questions, open questions, and « jouez le rôle du harness ».

A checked question (a choice, a number, a short text: answers.py) gives the feedback
of the answer given, and only of it; a wrong answer leaves a second try, and the
answer shows after the second wrong one, or on « Voir la réponse ». The course's
questions live by id in questions.py: a cell says `question("07-normal")`, so its
source shows no answer. A course question's answer is kept in the learner's progress file
(progress/): re-running its cell shows the earlier answer and its feedback, until
« Recommencer »; a file that cannot be read is said in the feedback, and the question works.
A question is one widget model (question.py, its page in question.js): the page sends
the answer given, this module grades it and writes the feedback back.

>>> q = Question("Qui exécute read_file ?", ["Le modèle", "Le harness"], correct=1,
...              feedback=["Il ne fait que demander.", "Oui : il exécute, puis renvoie."])
>>> q.widget.value = 0  # what the learner's click on the first choice sets
>>> q.check()
False
>>> q.solved, "demander" in q.widget.feedback, "Le harness" in q.widget.feedback
(False, True, False)
>>> q.check_answer(1), q.check_answer(0)
(True, False)
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from typing import Any

from ...text import one_line, plural, shorten
from ..progress.form import Item
from ..progress.keep import keep, recall, start_over, when
from .answers import MultipleChoice, Numeric, Open, ShortText, Spec, Verdict
from .french import normalise, parse_number, said, typography
from .tool_message import REQUEST, SKELETON, SOLUTION, Feedback, check_tool_message, feedback_html

__all__ = ["SKELETON", "SOLUTION", "Checked", "Feedback", "HarnessExercise", "MultipleChoice",
           "Numeric", "Open", "Prediction", "Question", "ShortText", "check_answer",
           "check_tool_message", "exercise", "feedback_html", "harness_exercise", "question",
           "solution"]

# a click in question.js -> the method it calls
EVENTS = {"check": "check", "show": "reveal", "restart": "restart"}
TRIES = 2  # wrong answers before the answer shows: one mistake is allowed, and explained
# « Jouez le rôle du harness » is made of ipywidgets: its HTML widget sets innerHTML, so
# this <style> applies (paragraphs at the notebook's line height, not one widget's 28 px).
STYLE = "<style>.harness-exercise .widget-html-content{line-height:1.5}</style>"


class _Exercise:
    """What the exercises share: a `widget`, shown by Jupyter, with a text fallback."""

    widget: Any
    summary: str = ""
    name: str | None = None  # the course's question id: its answer is kept (progress/)
    kind = "question"  # what progression.json calls it

    def _keep(self, correct: bool | None) -> None:
        """Keep the answer and the feedback shown; a problem is added to the feedback."""
        if self.name is None:
            return
        verdict = shorten(one_line(_plain(self.widget.feedback)), 300)
        problem = keep(self.name, Item(self.kind, self.name[:2], answer=self.widget.value,
                                       correct=correct, verdict=verdict))
        if problem:
            self.widget.feedback += f"<p>{html.escape(problem)}</p>"

    def remember(self, name: str) -> None:
        """Tie the widget to the course's question `name`, and show its earlier answer."""
        self.name = name
        item, problem = recall(name)
        if item is not None and item.kind == self.kind:
            self.widget.value = item.answer
            self._shown_again()
            saved = f"Votre réponse enregistrée {when(item)}, montrée à nouveau."
            self.widget.feedback = f"<p><i>{saved}</i></p>" + self.widget.feedback
        if problem:
            self.widget.feedback += f"<p>{html.escape(problem)}</p>"

    def restart(self) -> None:
        """« Recommencer » : the answer forgotten here and in the progress file."""
        problem = start_over([self.name]) if self.name else ""
        self._reset()
        self.widget.value = None
        self.widget.feedback = f"<p>{html.escape(problem)}</p>" if problem else ""

    def _shown_again(self) -> None:
        """Show the feedback of the answer in the widget, as a click would, unkept."""

    def _reset(self) -> None:
        """Forget what was tried here."""

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """The widget, and the text an HTML export or a static viewer shows instead
        (ipywidgets' own bundle would build, and drop, a text repr of the widget)."""
        view = {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id}
        return {"application/vnd.jupyter.widget-view+json": view, "text/plain": self.summary}

    def _ipython_display_(self) -> None:
        """The widget, then what a notebook reopened without its kernel says instead."""
        from ..player import static

        static.show(self._repr_mimebundle_())

    def _clicked(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """A click in a question's page (question.js): {event: "check" or "show", value:
        the answer given}. The answer is kept, then graded or the answer revealed."""
        event = content.get("event") if isinstance(content, dict) else None
        action = getattr(self, EVENTS.get(event, ""), None) if isinstance(event, str) else None
        if action is not None:
            value = content.get("value")  # the page sends a choice's index, or text
            self.widget.value = value if isinstance(value, (int, str)) \
                and not isinstance(value, bool) else None
            action()


def _box(w: Any, prompt: str, children: list[Any], layout: Any) -> Any:
    """The exercise: its prompt (HTML, French typography), then its parts; the last part
    is the feedback, an HTML too, whose style the prompt shares."""
    shared = {"style": children[-1].style} if hasattr(children[-1], "style") else {}
    text = w.HTML(STYLE + typography(prompt), layout=layout, **shared)
    return w.VBox([text, *children], layout=layout, _dom_classes=["harness-exercise"])


def _looks(w: Any) -> tuple[Any, Any, Any]:
    """A plain layout, a width:auto layout and a button style, shared by one exercise's
    parts: each widget would otherwise create its own (one more widget model each). The
    harness-* classes are given at creation too (how the browser test finds each part)."""
    return w.Layout(), w.Layout(width="auto"), w.ButtonStyle()


class Checked(_Exercise):
    """A checked question in a widget: « Vérifier », then « Voir la réponse » if needed."""

    def __init__(self, spec: MultipleChoice | Numeric | ShortText) -> None:
        from .question import question_widget

        self.spec, self.tried, self.solved, self.revealed = spec, [], False, False
        self.attempts = 0
        self.given: list[Any] = []  # each answer graded, in order (the assessment keeps the first)
        self.shown_first = False  # the answer revealed before any was given
        choices = [typography(c) for c in getattr(spec, "choices", [])]
        self.widget = question_widget(
            kind="choice" if isinstance(spec, MultipleChoice) else "text",
            prompt=typography(spec.prompt), choices=choices, placeholder="Votre réponse",
            check_label="Vérifier", show_label="Voir la réponse", restart_label="Recommencer")
        self.widget.on_msg(self._clicked)
        self.summary = _plain(spec.prompt) + "".join(f"\n- {c}" for c in choices)

    @property
    def solution(self) -> Any:
        return self.spec.solution

    def check_answer(self, answer: Any) -> bool:
        """Grade `answer` without touching the widget (for tests and notebook asserts)."""
        return graded(self.spec, answer).ok is True

    def check(self) -> bool | None:
        """Grade the answer in the widget, show its feedback and keep it; None if it is no
        answer. Never raises, whatever the answer."""
        ok = self._grade()
        first = len(self.given) == 1 and not self.shown_first
        if ok is not None and (self.kind != "assessment" or first):
            self._keep(ok)  # 09's questions keep their first answer only
        return ok

    def _shown_again(self) -> None:
        if self.widget.value is None:  # the answer was revealed before any was given
            self.revealed = self.shown_first = True
            self._say(self.spec.reveal())
        else:
            self._grade()

    def _reset(self) -> None:
        self.tried, self.solved, self.revealed, self.attempts = [], False, False, 0
        self.given, self.shown_first = [], False

    def _grade(self) -> bool | None:
        answer = self.widget.value
        verdict = graded(self.spec, answer)
        if verdict.ok is not None:
            self.given.append(answer)
        if verdict.ok is None:
            self._say(verdict.text)
        elif verdict.ok:
            self.attempts += 1
            self.solved = True
            self._say(f"✔ {verdict.text}")
        else:
            self._wrong(answer, verdict)
        return verdict.ok

    def _wrong(self, answer: Any, verdict: Verdict) -> None:
        key = self._key(answer)
        if key in self.tried:  # the same answer again: no try lost, same feedback
            self._say(f"✘ Vous avez déjà essayé cette réponse. {verdict.text}")
            return
        self.attempts += 1
        self.tried.append(key)
        if len(self.tried) >= TRIES or self.revealed:
            self.revealed = True
            self._say(f"✘ {verdict.text}", self.spec.reveal())
        else:
            self._say(f"✘ {verdict.text}", "Essayez encore : la réponse s’affichera après un "
                      "second essai, ou avec « Voir la réponse ».")

    def _key(self, answer: Any) -> Any:
        """Two typings of one wrong answer are one try (« 36 000 » and « 36000 »)."""
        if isinstance(self.spec, Numeric):
            return parse_number(answer)  # graded already: it is a number
        return normalise(said(answer)) if isinstance(self.spec, ShortText) else answer

    def reveal(self) -> None:
        first = not self.given and not self.shown_first
        self.revealed = True
        self.shown_first = self.shown_first or not self.given
        self._say(self.spec.reveal())
        if self.kind != "assessment" or first:  # 09: the first thing done is what counts
            self._keep(self.solved)

    def _say(self, *paragraphs: str) -> None:
        self.widget.feedback = "".join(f"<p>{typography(p)}</p>" for p in paragraphs if p)


class Question(Checked):
    """A multiple-choice question: `prompt` and `feedback` are HTML, `choices` plain text."""

    def __init__(self, prompt: str, choices: Sequence[str], correct: int,
                 feedback: Sequence[str]) -> None:
        super().__init__(MultipleChoice(prompt, tuple(choices), correct, tuple(feedback)))


class Prediction(_Exercise):
    """An open question: the learner writes an answer, then reveals `reveal` (HTML)."""

    def __init__(self, prompt: str, reveal: str, button: str = "Révéler") -> None:
        from .question import question_widget

        self.reveal_html = reveal
        self.widget = question_widget(kind="open", prompt=typography(prompt),
                                      placeholder="Votre réponse…", show_label=button,
                                      restart_label="Recommencer")
        self.widget.on_msg(self._clicked)
        self.summary = _plain(prompt)

    @property
    def solution(self) -> str:
        return self.reveal_html

    kind = "prediction"

    def reveal(self) -> None:
        self._shown_again()
        self._keep(None)

    def _shown_again(self) -> None:
        guess = str(self.widget.value or "").strip()
        mine = (f"<p>Votre réponse : <i>{html.escape(guess)}</i></p>" if guess else
                "<p>(Rien d’écrit : la prochaine fois, écrivez d’abord votre réponse.)</p>")
        self.widget.feedback = mine + typography(self.reveal_html)


def exercise(spec: Spec) -> Checked | Prediction:
    """The widget for a question of answers.py."""
    if isinstance(spec, Open):
        return Prediction(spec.prompt, spec.model_answer, spec.button)
    return Checked(spec)


def question(name: str) -> Checked | Prediction:
    """The course's question `name` (questions.py), as a widget showing the learner's
    earlier answer, if one was kept."""
    shown = exercise(_spec(name))
    shown.remember(name)
    return shown


def check_answer(name: str, answer: Any) -> bool:
    """Whether `answer` is right for the course's question `name`, with no widget built
    (a notebook's asserts: a widget nobody sees would still cost its kernel messages).

    >>> check_answer("04-facture", "234 000"), check_answer("04-facture", 36_000)
    (True, False)
    """
    spec = _spec(name)
    return not isinstance(spec, Open) and graded(spec, answer).ok is True


def graded(spec: MultipleChoice | Numeric | ShortText, answer: Any) -> Verdict:
    """spec.grade(answer), never an exception: an answer no grader reads gets a French
    sentence (answers.py reads any number, text or list; this is the net below it)."""
    try:
        return spec.grade(answer)
    except Exception:  # an object that refuses to be read (its str() or == raises…)
        return Verdict(None, "Cette réponse ne se lit pas : écrivez un nombre ou un texte, "
                       "ou choisissez une réponse, puis « Vérifier ».")


def solution(name: str) -> Any:
    """The answer of the course's question `name`: its model answer for an open one."""
    return _spec(name).solution


def _spec(name: str) -> Spec:
    from .questions import QUESTIONS

    if name not in QUESTIONS:
        raise KeyError(f"question inconnue : {name!r} "
                       "(voir harness_lib/course/exercises/questions.py)")
    return QUESTIONS[name]


def _plain(prompt: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", prompt)).strip()


class HarnessExercise(_Exercise):
    """Play the harness: write the tool message for read_file("README.md") on a missing file."""

    def __init__(self, skeleton: str = SKELETON) -> None:
        import ipywidgets as w

        self.attempts, self.solved = 0, False
        plain, auto, buttons = _looks(w)
        from ..playground.live import live_html

        # Named by its label (ipywidgets ties it to the field): a screen reader says what to type.
        self.text = w.Textarea(value=skeleton, description="Votre message de l’outil",
                               style={"description_width": "initial"},
                               layout=w.Layout(width="100%", height="8em"))
        self.button = w.Button(description="Vérifier", button_style="primary", layout=plain,
                               style=buttons)
        self.show = w.Button(description="Voir la solution", layout=auto, style=buttons)
        self.feedback = live_html(layout=plain)  # the verdict, announced
        self.summary = ("Jouez le rôle du harness : le modèle a demandé read_file(\"README.md\") "
                        "(call_1), et README.md est absent. Quel message ajoutez-vous ?")
        request = html.escape(json.dumps(REQUEST, ensure_ascii=False, indent=1))
        intro = (f"<p>{html.escape(self.summary)}</p><p>La demande du modèle :</p>"
                 f"<pre>{request}</pre>")
        row = w.HBox([self.button, self.show], layout=plain)
        self.widget = _box(w, intro, [self.text, row, self.feedback], plain)
        self.button.on_click(lambda _: self.check())
        self.show.on_click(lambda _: self._reveal())

    kind = "exercise"  # kept in the progress file once `remember`ed (harness_exercise())

    def remember(self, name: str) -> None:
        """Show the message kept from an earlier session, checked again."""
        self.name = name
        item, problem = recall(name)
        if item is not None and isinstance(item.answer, str):
            self.text.value = item.answer
            self._checked()
            self.feedback.value = f"<p><i>Votre message enregistré {when(item)}, vérifié à " \
                                  f"nouveau.</i></p>" + self.feedback.value
        if problem:
            self.feedback.value += f"<p>{html.escape(problem)}</p>"

    def check(self) -> list[Feedback]:
        """Check the textarea, show ✔/✘ per field, keep the message. Never raises."""
        items = self._checked()
        problem = self.name and keep(self.name, Item(
            self.kind, self.name[:2], answer=self.text.value, correct=self.solved,
            verdict=self._verdict(items)))
        if problem:
            self.feedback.value += f"<p>{html.escape(problem)}</p>"
        return items

    @staticmethod
    def _verdict(items: list[Feedback]) -> str:
        wrong = sum(not item.ok for item in items)
        return "Message juste." if not wrong else f"{plural(wrong, 'champ')} à corriger."

    def _checked(self) -> list[Feedback]:
        try:
            items = check_tool_message(self.text.value)
        except Exception as err:  # a bug of ours must not break the exercise
            items = [Feedback(False, "message", f"Vérification impossible ({err!r}).")]
        self.attempts += 1
        self.solved = all(item.ok for item in items)
        self.feedback.value = feedback_html(items) + self._after()
        return items

    def _after(self) -> str:
        if self.solved:
            return ("<p>Bravo : c’est le message que le harness ajoute. Au prochain appel, le "
                    "modèle lit l’erreur et change de stratégie (list_files).</p>")
        return self._solution() if self.attempts >= 3 else ""  # stuck: show, don't lose them

    def _solution(self) -> str:
        return f"<p>Une solution : <code>{html.escape(json.dumps(SOLUTION, ensure_ascii=False))}" \
               "</code></p>"

    def _reveal(self) -> None:
        self.feedback.value = self._solution()


def harness_exercise() -> HarnessExercise:
    """« Jouez le rôle du harness » (display it as a cell's last line), with the message
    kept from an earlier session, if any."""
    shown = HarnessExercise()
    shown.remember("03-message-outil")
    return shown
