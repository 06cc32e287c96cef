"""A course question's widget: one anywidget model, `question.js` (readable, no build step).

A question built from ipywidgets took 13 widget models (radio buttons, two buttons, two
HTML, their boxes, layouts and styles): 13 messages to send, 13 models for the page to
build, about 7 ms per question in a kernel. This one is a model and its layout. The
browser shows the prompt, the answer field, the buttons and the feedback; a click sends
the answer to the kernel, which grades it (exercises.py) and writes `feedback`.

>>> w = question_widget(kind="choice", prompt="Qui exécute ?", choices=["Le modèle", "Le harness"])
>>> w.kind, w.value, w.choices, w.feedback
('choice', None, ['Le modèle', 'Le harness'], '')
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


@cache
def _question_class() -> type:
    # anywidget (and ipywidgets under it) load only when a first question is shown.
    import anywidget
    import ipywidgets as widgets
    import traitlets

    class QuestionWidget(anywidget.AnyWidget):  # type: ignore[misc]
        # Class traits, as in stepper.py: AnyWidget.__init__ would build a class per instance.
        _esm = traitlets.Unicode((HERE / "question.js").read_text("utf-8")).tag(sync=True)
        _css = traitlets.Unicode((HERE / "question.css").read_text("utf-8")).tag(sync=True)
        _anywidget_id = traitlets.Unicode("harness_lib.course.question").tag(sync=True)
        kind = traitlets.Unicode("choice").tag(sync=True)  # "choice", "text" or "open"
        prompt = traitlets.Unicode().tag(sync=True)  # HTML
        choices = traitlets.List(traitlets.Unicode()).tag(sync=True)  # plain text
        placeholder = traitlets.Unicode().tag(sync=True)
        check_label = traitlets.Unicode().tag(sync=True)  # "": no « Vérifier » button
        show_label = traitlets.Unicode().tag(sync=True)
        value = traitlets.Any(None).tag(sync=True)  # the answer: a choice's index, or text
        feedback = traitlets.Unicode().tag(sync=True)  # HTML, written by the kernel

        def __init__(self, **kwargs: Any) -> None:
            widgets.DOMWidget.__init__(self, **kwargs)  # the traits are already there

    return QuestionWidget


def question_widget(**traits: Any) -> Any:
    """A question's widget with these traits (kind, prompt, choices, labels...)."""
    return _question_class()(**traits)
