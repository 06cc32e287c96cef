"""How wide Mermaid draws the course's sequence diagrams, and the labels that fit.

The browser shrinks a drawing wider than the cell, text included. So the player
(player/state.py) and send()'s figure (playground/conversation.py) cut their labels
to the longest that keep the drawing within `FIT` pixels, estimated here from
Mermaid's own settings (`LOOK`) without a browser.

>>> drawn_width([(0, 1, "Lis README.md")], columns=2, limit=40) <= FIT
True
>>> drawn_width([(0, 1, "x" * 80)], columns=2, limit=80, rows=1) > FIT
True
"""

from __future__ import annotations

import bisect
import json

from ...text import one_line
from .diagram import Diagram, Step
from .mermaid import ASIDE, wrap

# At most this many arrows are drawn: with its controls, note and context bar, the
# player then fits in a laptop's window, and its text keeps about the body's size.
WINDOW = 7
LABEL = 40  # the most characters of a label's line in the player; the note gives it whole
LINES = 2  # a long label wraps onto this many lines before it is cut
# How the player's diagrams are drawn: text at 15 px (the notebook's body is 14 px),
# narrow participant boxes, tight margins, no second row of participants at the
# bottom (the current arrow is the last thing drawn). The browser shrinks a drawing
# wider than the cell, text included: labels are cut so that it stays within FIT px
# (Lab's output area is 588 px wide in an 800 px window: text stays above 13 px),
# estimated with CHAR_PX (measured: within 6 % of Mermaid's own widths).
LOOK = {"mirrorActors": False, "messageFontSize": 15, "actorFontSize": 15, "noteFontSize": 14,
        "width": 100, "height": 40, "actorMargin": 20, "diagramMarginX": 8, "boxMargin": 6,
        "noteMargin": 6, "messageMargin": 24}  # Mermaid's sequence settings, in pixels
FIT, CHAR_PX, PAD = 680, 8.5, 24  # PAD: the room Mermaid leaves around a label
EN_PX = LOOK["messageFontSize"] / 2  # an en space, half an em
DISPLAY = "%%{init: " + json.dumps({"sequence": LOOK}) + "}%%\n"


def shown_cut(step: Step, limit: int) -> bool:
    """Whether the player's drawing cuts this step's label (it wraps it first)."""
    text = one_line(step.text)
    lines = 1 if step.source == step.target else LINES
    return wrap(text, limit, lines).split() != text.split()  # a line break is no cut


def label_limit(diagram: Diagram, k: int) -> int:
    """The longest label line, in characters, that keeps the drawing of step k within FIT px."""
    arrows, columns = drawn_arrows(diagram, k)
    limits = range(14, LABEL + 1, 2)
    # The width grows with the limit: bisect for the first limit too wide (4 tries, not 14).
    too_wide = bisect.bisect_left(limits, True, key=lambda n: drawn_width(arrows, columns, n) > FIT)
    return limits[too_wide - 1] if too_wide else 12


def drawn_arrows(diagram: Diagram, k: int) -> tuple[list[tuple[int, int, str]], int]:
    """The arrows drawn at step k, each as (source column, target column, label), and
    the number of columns: measured once, then tried at every limit."""
    shown = diagram.steps[max(0, k - WINDOW):k]
    involved = {pid for step in shown for pid in (step.source, step.target)}
    # as mermaid.to_mermaid draws a window: only the participants its arrows involve
    order = [p.id for p in diagram.participants if k <= WINDOW or p.id in involved]
    column = {pid: i for i, pid in enumerate(order)}
    return [(column[s.source], column[s.target], one_line(s.text)) for s in shown], len(order)


def line_length(text: str, limit: int, rows: int = LINES) -> int:
    """The longest line of a label as drawn at this limit (wrapped onto `rows`, then cut)."""
    return max(map(len, wrap(text, limit, rows).split("\n")))


def drawn_width(arrows: list[tuple[int, int, str]], columns: int, limit: int,
                rows: int = LINES) -> float:
    """Mermaid's width for these arrows (columns, label), roughly: each label widens the
    gaps it spans."""
    gaps = [LOOK["width"] + LOOK["actorMargin"]] * max(columns - 1, 0)
    edges = [LOOK["width"] / 2 + LOOK["diagramMarginX"]] * 2  # left and right of the ends
    for source, target, text in arrows:
        a, b = sorted((source, target))
        length = line_length(text, limit, rows if a != b else 1)
        need = length * CHAR_PX + PAD
        if a == b:  # a self-arrow's label, set aside (mermaid.aside), centred on its lifeline
            half = (need + length * ASIDE * EN_PX) / 2
            spans = [(gaps, a - 1) if a else (edges, 0), (gaps, a) if a < len(gaps) else (edges, 1)]
            for where, i in spans:
                where[i] = max(where[i], half)
        elif sum(gaps[a:b]) < need:  # widen each spanned gap by an equal share
            extra = (need - sum(gaps[a:b])) / (b - a)
            gaps[a:b] = [gap + extra for gap in gaps[a:b]]
    return sum(gaps) + sum(edges)
