"""A player as a learner sees it, read in the page: its step (« étape k sur N »), its
drawing (an SVG data URL, the size of its arrow labels on screen), its note; and the moves
that wait for it to be drawn again.

    view = rewind(player)                      # « Début », then step 0 read
    button(player, "Suivante").click()
    view = moved(player, 1, view)              # step 1, drawn, its note said
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")

CONTROLS = ".harness-controls"  # the row of buttons, slider and « étape k sur N »
STEP = ".harness-step"  # « étape k sur N » (.harness-announce is what a screen reader hears)
TEXT = ".harness-text"  # the current step's status, note and context bar
TOGGLE = ".harness-toggle"  # the mock/real ToggleButtons
STATUS = ".harness-status"  # the HTML under the toggle that says which model answers
MIN_TEXT_PX = 12.5  # the smallest arrow label a player may draw (body text: 14 px, Lab UI: 13 px)
MOCK_STATUS = "Modèle simulé : réponses calculées hors ligne"


@dataclass(frozen=True)
class View:
    """One player as drawn now."""
    step: int
    total: int
    src: str  # the shown drawing's <img> src (an SVG data URL)
    text: str  # the shown status, note and context bar, as read on screen
    text_px: float  # the smallest arrow label, as drawn on screen (0 in the hub view)
    number: int  # the highest arrow number drawn (autonumber): the step shown (0: none)


# In the page: the player's drawing now shown, and the size on screen of its smallest
# arrow label: Mermaid's font size times the scale the browser applied to fit the image
# in the cell.
# `step`, if not null: only a drawing of that step (its highest arrow number, 0 for none):
# the page shows the former step's drawing until the new one is drawn, elsewhere.
SHOWN = """([player, old, step]) => {
  const img = [...player.querySelectorAll('.harness-diagram .harness-drawing img')]
    .find(i => i.checkVisibility() && i.complete && i.src);
  if (img && img.naturalWidth === 0) return {broken: img.src.slice(0, 3000)};  // not an image
  if (!img || img.src === old) return null;
  const svg = decodeURIComponent(img.src.split(',')[1]);
  const sizes = [...svg.matchAll(/class="messageText"[^>]*?font-size: ?([0-9.]+)px/g)]
    .map(m => +m[1]);
  const scale = img.getBoundingClientRect().width / Number(img.getAttribute('width'));
  const numbers = [...svg.matchAll(/class="sequenceNumber"[^>]*>([0-9]+)</g)].map(m => +m[1]);
  const number = Math.max(0, ...numbers);
  if (step !== null && number !== 0 && number !== step) return null;
  return {src: img.src, textPx: sizes.length ? Math.min(...sizes) * scale : 0, number};
}"""


# What the player shows, when its drawing does not come: for the failure message.
SEEN = """(player) => ({
  step: player.querySelector('.harness-step').textContent,
  drawings: player.querySelectorAll('.harness-diagram .harness-drawing img').length,
  shown: [...player.querySelectorAll('.harness-diagram .harness-drawing img')]
    .filter((img) => img.checkVisibility()).map((img) => [img.complete, img.src.length,
      Math.max(0, ...[...decodeURIComponent(img.src.split(',')[1] || '')
        .matchAll(/class="sequenceNumber"[^>]*>([0-9]+)</g)].map(m => +m[1]))]),
  area: player.querySelector('.harness-diagram .harness-drawing')?.className,
  refused: player.querySelectorAll('.harness-refused').length,
  prepared: player.querySelector('.harness-text').parentElement.dataset.prepared,
  text: player.querySelector('.harness-text').innerText.slice(0, 80),
  // Steps not prepared for a minute (seen once in CI, 07): was the kernel there, and idle?
  kernel: window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel?.status})"""


# Where the controls and the current arrow (the last one drawn, at the bottom of the
# drawing) are, against the part of the notebook a learner sees.
PLACES = """(player) => {
  const panel = window.jupyterapp.shell.currentWidget.node;
  const scroller = panel.querySelector('.jp-WindowedPanel-outer') || panel;
  const img = [...player.querySelectorAll('.harness-diagram .harness-drawing img')]
    .find(i => i.checkVisibility());
  const box = scroller.getBoundingClientRect();
  const seen = {top: Math.max(box.top, 0), bottom: Math.min(box.bottom, window.innerHeight)};
  const controls = player.querySelector('.harness-controls').getBoundingClientRect();
  return {seen, controls: controls.toJSON(), arrow: img.getBoundingClientRect().bottom};
}"""


def player_view(player: Any, old_src: str = "", step: int | None = None) -> View:
    """Read the player once its drawing is shown and differs from old_src (and, if
    `step` is given, is that step's)."""
    try:
        shown = player.page.wait_for_function(SHOWN, arg=[player.element_handle(), old_src, step])
    except sync_api.TimeoutError:
        seen = player.evaluate(SEEN)
        pytest.fail(f"le diagramme du lecteur n'a pas été (re)dessiné : {seen}")
    found = shown.json_value()
    assert "broken" not in found, f"dessin illisible par le navigateur : {found}"
    # The controls are another widget view: their label may come a moment after the drawing.
    try:
        sync_api.expect(player.locator(STEP)).to_have_text(re.compile(r"^étape \d+ sur \d+"))
    except AssertionError:
        pass  # the assert below says what was read
    # textContent, not innerText: a cell that scrolled out of view in Notebook 7 is skipped
    # by content-visibility, and its innerText may read as empty.
    label = (player.locator(STEP).text_content() or "").strip()
    step = re.match(r"étape (\d+) sur (\d+)", label)
    assert step, f"libellé « étape k sur N » attendu, lu : {label!r}"
    return View(int(step[1]), int(step[2]), found["src"], player.locator(TEXT).text_content() or "",
                found["textPx"], found["number"])


def moved(player: Any, step: int | None, old: View | None = None) -> View:
    """Wait until the player shows `step` (None: any), drawing included. No kernel
    round trip is awaited: stepping happens in the browser."""
    if step is not None:
        sync_api.expect(player.locator(STEP)).to_have_text(re.compile(rf"^étape {step} sur \d+"))
    view = player_view(player, old.src if old is not None else "", step)
    assert view.text.strip(), f"étape {view.step} : aucune note"  # every step says something
    # The drawing of this step, not another one of the steps that share its Output.
    assert view.number in (0, view.step), f"étape {view.step}, flèche {view.number} dessinée"
    return view


def in_view(player: Any) -> None:
    """The controls and the current arrow fit in one view, the arrow below the controls:
    with the controls at the top of the notebook, the learner sees both.

    Measured as a span, not against the scroll position: in Lab's default windowing mode
    (content-visibility), cells above the player get their real height only when the
    browser draws them, so the player may move down while the test steps it (seen in
    CI: the controls 330 px lower than where `to_top` had put them)."""
    places = player.evaluate(PLACES)
    seen, controls = places["seen"], places["controls"]
    room = seen["bottom"] - seen["top"]
    assert controls["bottom"] - controls["top"] <= room, \
        f"commandes plus hautes que la vue : {places}"
    assert controls["top"] <= places["arrow"] <= controls["top"] + room + 1, \
        f"flèche courante hors de la vue, les commandes en haut : {places}"


def readable(view: View) -> None:
    assert view.text_px == 0 or view.text_px >= MIN_TEXT_PX, \
        f"étape {view.step} : texte du diagramme à {view.text_px:.1f} px (< {MIN_TEXT_PX})"


def button(player: Any, name: str) -> Any:
    """A control by its accessible name (its visible text)."""
    return player.locator(CONTROLS).get_by_role("button", name=name, exact=True)


def to_top(player: Any) -> None:
    """Scroll the notebook so that the player's controls are at the top, as a learner would."""
    player.locator(CONTROLS).evaluate("e => e.scrollIntoView({block: 'start'})")


def rewind(player: Any) -> View:
    """Back to step 0 with « Début » (greyed out when already there)."""
    to_top(player)
    first = button(player, "Début")
    if first.is_enabled():
        first.click()
    return moved(player, 0)
