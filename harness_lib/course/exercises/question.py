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
from typing import Any

from ..player.browser_widget import browser_widget
from ..player.renderer import library


@cache
def _question_class() -> type:
    import traitlets

    class QuestionWidget(browser_widget(__file__)):  # type: ignore[misc]
        kind = traitlets.Unicode("choice").tag(sync=True)  # "choice", "text" or "open"
        prompt = traitlets.Unicode().tag(sync=True)  # HTML
        choices = traitlets.List(traitlets.Unicode()).tag(sync=True)  # plain text
        placeholder = traitlets.Unicode().tag(sync=True)
        check_label = traitlets.Unicode().tag(sync=True)  # "": no « Vérifier » button
        show_label = traitlets.Unicode().tag(sync=True)
        restart_label = traitlets.Unicode().tag(sync=True)  # shown once there is feedback
        value = traitlets.Any(None).tag(sync=True)  # the answer: a choice's index, or text
        feedback = traitlets.Unicode().tag(sync=True)  # HTML, written by the kernel

    return QuestionWidget


def question_widget(**traits: Any) -> Any:
    """A question's widget with these traits (kind, prompt, choices, labels...)."""
    library()  # the drawing library reaches the page now, before a player needs it
    return _question_class()(**traits)
