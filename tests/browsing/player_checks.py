"""A player checked as a learner uses it: « Suivante », « Précédente », the keys, the hub
view, « Lecture » while the kernel is busy or with reduced motion, its controls and current
arrow in view, its text readable, its accessible names; and the toggle on the mock model.

    check_players(notebook, path)   # every player of the notebook, at 1280 and 800 px
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from browsing import ARTIFACTS
from browsing.chromium import RUN_TIMEOUT_MS, VIEWPORT, WIDTHS
from browsing.drawings import PLAYER
from browsing.notebook import IDLE, Notebook, screenshot
from browsing.players import (
    CONTROLS,
    MOCK_STATUS,
    STATUS,
    STEP,
    TOGGLE,
    View,
    button,
    in_view,
    moved,
    player_view,
    readable,
    rewind,
    to_top,
)

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")


def check_player(player: Any, clicks: int = 3, keys: bool = True, lab: bool = True) -> list[View]:
    """From the start, « Suivante » moves the diagram and the note, with the controls and
    the current arrow in view (`lab`: in Lab's or Notebook 7's notebook panel);
    « Précédente » goes back; the keys do the same."""
    views = [rewind(player)]
    total = views[0].total
    assert total >= 1, "un lecteur sans étape"
    for step in range(1, min(clicks, total) + 1):
        button(player, "Suivante").click()
        views.append(moved(player, step, views[-1]))
        if lab:
            in_view(player)
        readable(views[-1])
    if len(views) > 2:  # a step may keep the note, not every step
        assert len({v.text for v in views}) > 1, f"la note ne change pas : {views[0].text!r}"
    if any(v.text_px for v in views):  # the sequence view: its arrows are numbered
        assert any(v.number for v in views), "aucun numéro de flèche lu dans le dessin"
    button(player, "Précédente").click()
    back = moved(player, views[-2].step, views[-1])
    assert back.text == views[-2].text and back.src == views[-2].src, "« Précédente » diffère"
    if keys:
        views += check_keys(player, back)
    return views


def check_keys(player: Any, start: View) -> list[View]:
    """With the player focused: Home, End, ←, → step; Tab shows where the focus is.
    It ends on the last step: the fullest drawing, for the screenshots."""
    page = player.page
    player.locator(STEP).click()  # a click in the player gives it the keys
    views, total = [start], start.total
    keys = [("End", total), ("ArrowLeft", total - 1), ("ArrowRight", total)]
    for key, step in [("Home", 0)] * (start.step > 0) + keys:
        page.keyboard.press(key)
        views.append(moved(player, step, views[-1]))
        in_view(player)
        readable(views[-1])
    # The keyboard focus is visible: Tab lands on « Début », which draws an outline.
    page.keyboard.press("Tab")
    focused = player.evaluate(FOCUSED)
    assert focused["text"].endswith("Début"), f"Tab n’arrive pas sur « Début » : {focused}"
    assert focused["outline"] != "none" and focused["width"] >= 2, f"focus invisible : {focused}"
    return views


# Where the focus is, and how it shows (with what says where it is, if it is not « Début »:
# seen once in CI, an element without text, its outline not drawn).
FOCUSED = """(player) => {
  const node = document.activeElement, style = getComputedStyle(node);
  return {text: node.textContent, outline: style.outlineStyle,
          width: parseFloat(style.outlineWidth), tag: node.tagName, className: node.className,
          role: node.getAttribute('role'), label: node.getAttribute('aria-label'),
          inPlayer: player.contains(node), visible: node.matches(':focus-visible')};
}"""


def check_hub(player: Any) -> None:
    """« Hub » shows the same step with the harness at the centre; « Séquence » comes back."""
    sequence = player_view(player)
    button(player, "Hub").click()
    hub = moved(player, sequence.step, sequence)
    assert "flowchart" in unquote(hub.src) and hub.text == sequence.text
    sync_api.expect(button(player, "Hub")).to_have_attribute("aria-pressed", "true")
    button(player, "Séquence").click()
    back = moved(player, sequence.step, hub)
    assert back.src == sequence.src


def check_accessible_names(player: Any) -> None:
    """What a screen reader says: named controls, and each step as it changes."""
    for name in ("Début", "Précédente", "Lecture", "Suivante", "Séquence", "Hub"):
        sync_api.expect(button(player, name)).to_have_count(1)
    # The step is announced with its note by the text part (tests/test_accessibility.py).
    sync_api.expect(player.locator(".harness-announce")).to_have_attribute("aria-live", "polite")
    slider = player.locator(CONTROLS).get_by_role("slider", name="Étape")
    sync_api.expect(slider).to_have_attribute("aria-valuetext", re.compile(r"^étape \d+ sur \d+$"))


# The kernel runs a cell that sleeps: busy until its execute request is done (its
# status light may blink « idle » in between, as it answers other messages).
BUSY = """(seconds) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({code: `import time; time.sleep(${seconds})`});
  window.harnessBusy = true;
  future.done.then(() => { window.harnessBusy = false; });
}"""
KERNEL_BUSY = "() => window.harnessBusy === true"
KERNEL_DONE = "() => window.harnessBusy === false"


def check_play_while_busy(player: Any) -> None:
    """« Lecture » moves the diagram while the kernel is busy; « Pause » keeps the step."""
    start = rewind(player)
    player.page.evaluate(BUSY, 8)
    button(player, "Lecture").click()
    first = moved(player, 1, start)
    second = moved(player, 2, first)
    assert player.page.evaluate(KERNEL_BUSY), "le noyau n'était plus occupé : test sans objet"
    button(player, "Pause").click()
    paused = player_view(player)
    assert paused.step >= second.step, "« Pause » a ramené le lecteur en arrière"
    sync_api.expect(button(player, "Lecture")).to_have_count(1)
    player.page.wait_for_function(KERNEL_DONE, timeout=RUN_TIMEOUT_MS)
    player.page.wait_for_function(IDLE, timeout=RUN_TIMEOUT_MS)
    assert player_view(player).step == paused.step, "l'étape a changé après la pause"


def check_reduced_motion(player: Any) -> None:
    """With « reduce motion » asked by the system, « Lecture » moves one step, no more."""
    page = player.page
    page.emulate_media(reduced_motion="reduce")
    start = rewind(player)
    play = button(player, "Lecture")
    sync_api.expect(play).to_have_attribute("title", re.compile("Mouvement réduit"))
    play.click()
    moved(player, 1, start)
    page.wait_for_timeout(1500)  # three intervals of the self-test's player: no animation
    assert player_view(player).step == 1, "« Lecture » anime malgré prefers-reduced-motion"
    sync_api.expect(button(player, "Lecture")).to_have_count(1)  # not « Pause »
    page.emulate_media(reduced_motion="no-preference")


def check_players(notebook: Notebook, path: Path, busy: bool = True) -> None:
    """Every player, at each width: by button and by keyboard, in view, readable; the
    first one also plays while the kernel is busy, and switches to the hub and back.
    Each player, as left after its check, goes to tests/artifacts/ (look at them)."""
    players = notebook.panel.locator(PLAYER)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = Path(notebook.name)
    for width in WIDTHS:
        notebook.page.set_viewport_size({"width": width, "height": VIEWPORT["height"]})
        totals = []
        for i in range(players.count()):
            views = check_player(players.nth(i))
            totals.append(views[0].total)
            players.nth(i).screenshot(path=str(ARTIFACTS / f"{path.stem}-lecteur{i}-{width}.png"))
        if players.count():
            check_accessible_names(players.first)
            check_hub(players.first)
            longest = players.nth(totals.index(max(totals)))  # 07: the max-turns run
            to_top(longest)
            readable(player_view(longest))
        screenshot(notebook, f"-{width}")
    if busy and players.count():
        check_play_while_busy(players.first)
    notebook.page.set_viewport_size(VIEWPORT)


def check_toggle_is_mock(notebook: Notebook) -> None:
    """Every view of the toggle (one per cell that shows it) is on « Modèle simulé »."""
    toggles, statuses = notebook.panel.locator(TOGGLE), notebook.panel.locator(STATUS)
    sync_api.expect(statuses).to_have_count(toggles.count())
    for i in range(toggles.count()):
        active = toggles.nth(i).locator("button.mod-active")
        sync_api.expect(active).to_have_text(re.compile("Modèle simulé"))
        sync_api.expect(statuses.nth(i)).to_contain_text(MOCK_STATUS)
        sync_api.expect(statuses.nth(i)).to_be_visible()
