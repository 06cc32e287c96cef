"""Exercise widgets: a question to check, a prediction to reveal, the harness to play.

Each call builds its own widgets: re-running a cell gives a fresh, independent exercise.
The checks themselves are plain functions (tool_message.py), tested without widgets.

>>> q = Question("Qui exécute read_file ?", ["Le modèle", "Le harness"], correct=1,
...              feedback=["Il ne fait que demander.", "Oui : il exécute, puis renvoie."])
>>> q.radio.value = 0
>>> q.button.click()
>>> q.solved, "Le harness" in q.result.value
(False, True)
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

from .tool_message import Feedback, check_tool_message, feedback_html

__all__ = ["Feedback", "HarnessExercise", "Prediction", "Question", "check_tool_message",
           "feedback_html", "harness_exercise"]

SOLUTION = {"role": "tool", "tool_call_id": "call_1", "content": "Erreur : README.md introuvable"}
SKELETON = '{\n  "role": "",\n  "tool_call_id": "",\n  "content": ""\n}'
REQUEST = {"role": "assistant", "content": None, "tool_calls": [{
    "id": "call_1", "type": "function",
    "function": {"name": "read_file", "arguments": "{\"path\": \"README.md\"}"}}]}


class _Exercise:
    """What the three exercises share: a `widget`, shown by Jupyter, with a text fallback."""

    widget: Any
    summary: str = ""

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/plain"] = self.summary  # what an HTML export or a static viewer shows
        return bundle


class Question(_Exercise):
    """A multiple-choice question. `prompt` and `feedback` are HTML, `choices` plain text.

    feedback  one text per choice, shown when that choice is checked; after a wrong
              answer the right one is shown with its own feedback.
    """

    def __init__(self, prompt: str, choices: Sequence[str], correct: int,
                 feedback: Sequence[str]) -> None:
        import ipywidgets as w

        if len(feedback) != len(choices) or not 0 <= correct < len(choices):
            raise ValueError("il faut un feedback par choix, et correct parmi les choix")
        self.choices, self.correct, self.feedback = list(choices), correct, list(feedback)
        self.solved, self.attempts = False, 0
        self.radio = w.RadioButtons(options=[(c, i) for i, c in enumerate(choices)], value=None,
                                    layout=w.Layout(width="auto"))
        self.button = w.Button(description="Vérifier", button_style="primary")
        self.result = w.HTML()
        self.widget = w.VBox([w.HTML(prompt), self.radio, self.button, self.result])
        self.button.on_click(lambda _: self.check())
        self.summary = prompt + "\n" + "\n".join(f"- {c}" for c in choices)

    def check(self) -> bool | None:
        """Show the feedback of the chosen answer; None when nothing is chosen yet."""
        choice = self.radio.value
        if choice is None:
            self.result.value = "<p>Choisissez une réponse, puis « Vérifier ».</p>"
            return None
        self.attempts += 1
        self.solved = choice == self.correct
        if self.solved:
            self.result.value = f"<p>✔ Juste. {self.feedback[choice]}</p>"
        else:
            right = html.escape(self.choices[self.correct])
            self.result.value = (f"<p>✘ Pas tout à fait. {self.feedback[choice]}</p>"
                                 f"<p>La bonne réponse : « {right} ». "
                                 f"{self.feedback[self.correct]}</p>")
        return self.solved


class Prediction(_Exercise):
    """« Prédisez avant de révéler » : a free answer, then `reveal` (HTML) on demand."""

    def __init__(self, prompt: str, reveal: str) -> None:
        import ipywidgets as w

        self.reveal_html = reveal
        self.text = w.Textarea(placeholder="Votre prédiction…", layout=w.Layout(width="100%"))
        self.button = w.Button(description="Révéler")
        self.answer = w.HTML()
        self.widget = w.VBox([w.HTML(prompt), self.text, self.button, self.answer])
        self.button.on_click(lambda _: self.reveal())
        self.summary = prompt

    def reveal(self) -> None:
        guess = self.text.value.strip()
        mine = (f"<p>Votre prédiction : <i>{html.escape(guess)}</i></p>" if guess else
                "<p>(Pas de prédiction écrite : la prochaine fois, écrivez-la d'abord.)</p>")
        self.answer.value = mine + self.reveal_html


class HarnessExercise(_Exercise):
    """Play the harness: write the tool message for read_file("README.md") on a missing file."""

    def __init__(self, skeleton: str = SKELETON) -> None:
        import ipywidgets as w

        self.attempts, self.solved = 0, False
        self.text = w.Textarea(value=skeleton, layout=w.Layout(width="100%", height="8em"))
        self.button = w.Button(description="Vérifier", button_style="primary")
        self.feedback = w.HTML()
        self.summary = ("Jouez le rôle du harness : le modèle a demandé read_file(\"README.md\") "
                        "(call_1), et README.md est absent. Quel message ajoutez-vous ?")
        request = html.escape(json.dumps(REQUEST, ensure_ascii=False, indent=1))
        intro = w.HTML(f"<p>{html.escape(self.summary)}</p><p>La demande du modèle :</p>"
                       f"<pre>{request}</pre>")
        self.widget = w.VBox([intro, self.text, self.button, self.feedback])
        self.button.on_click(lambda _: self.check())

    def check(self) -> list[Feedback]:
        """Check the textarea and show ✔/✘ per field. Never raises."""
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
            return ("<p>Bravo : c'est le message que le harness ajoute. Au prochain appel, le "
                    "modèle lit l'erreur et change de stratégie (list_files).</p>")
        if self.attempts >= 3:  # stuck: show the answer rather than lose the learner
            solution = html.escape(json.dumps(SOLUTION, ensure_ascii=False))
            return f"<p>Une solution : <code>{solution}</code></p>"
        return ""


def harness_exercise() -> HarnessExercise:
    """A fresh « jouez le rôle du harness » exercise (display it as a cell's last line)."""
    return HarnessExercise()
