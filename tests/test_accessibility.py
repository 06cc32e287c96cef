"""The course for every learner (docs/accessibility.md): axe-core, real key presses, and
what Chromium's accessibility tree says, in JupyterLab.

A Lab of its own (its settings) and one Chromium for the module (tests/browsing/). For
01, 03, 04, 05 and 07: Run All, then every panel of the course opened and every player on
its last step, then axe-core (WCAG 2.2 AA) on the course's outputs: no serious or critical
violation. In 01 and 03, with real key presses and the accessibility tree (CDP
`Accessibility.getPartialAXTree`, what a screen reader reads): a step is announced with
its note, the chapter diagram's description is reachable, ↓ on a quiz radio checks the
next one and keeps the focus, Space on « Suivante » moves one step, the toggle says which
model is on, 03's textarea has a name and its verdict is announced, the widgets and the
Markdown resolve to French, ↓ in command mode reaches 01's question cells. At 200 % zoom
a drawing's text (a player's, a send() figure's) is twice its size at 100 %. The whole
of 01's first player, as announced from step 0 to the end, is saved to
tests/artifacts/a11y-01-player.txt (read it). Then, for 01, 04 and 07, Lab's theme is
switched to « JupyterLab Dark » as a learner switches it (Settings > Theme: the players
draw their step again) and axe runs again: the course's sheets take Lab's theme variables
or dark values of their own. Screenshots at 1280 and 800 px, at 200 % and in the dark
theme go to tests/artifacts/ too: look at them.

axe-core comes from npm into build/axe (git-ignored; `.ci/run` installs it):
    npm install --no-save --prefix build/axe axe-core@4.14.1
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any

import pytest
from browsing import ARTIFACTS
from browsing.axe import ABSENT, AXE, CHECKED, axe_violations, check_axe, opened
from browsing.chromium import VIEWPORT
from browsing.drawings import PLAYER
from browsing.labs import LabFolder, lab_with
from browsing.notebook import Notebook, switch_theme
from browsing.players import STEP

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabFolder]:
    """One Lab for the module, every cell laid out: in Lab's default windowing mode a cell
    out of view is skipped by the browser (content-visibility), and axe cannot measure
    the contrast of what is not laid out."""
    yield from lab_with(tmp_path_factory.mktemp("a11y"), {})


# ---------------------------------------------------------------- Chromium's tree

def ax(page: Any, locator: Any) -> dict[str, Any]:
    """The element's node in Chromium's accessibility tree: role, name, description,
    live, checked, and the text of everything under it, as a screen reader gets them."""
    locator.scroll_into_view_if_needed()
    locator.evaluate("e => e.setAttribute('data-ax-probe', '1')")
    cdp = page.context.new_cdp_session(page)
    try:
        found = cdp.send("Runtime.evaluate",
                         {"expression": "document.querySelector('[data-ax-probe]')"})
        object_id = found["result"]["objectId"]
        backend = cdp.send("DOM.describeNode", {"objectId": object_id})["node"]["backendNodeId"]
        cdp.send("Accessibility.getPartialAXTree", {"objectId": object_id})  # builds the tree
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        locator.evaluate("e => e.removeAttribute('data-ax-probe')")
        cdp.detach()
    by_id = {n["nodeId"]: n for n in nodes}
    node = next(n for n in nodes if n.get("backendDOMNodeId") == backend)
    props = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
    return {"role": node["role"]["value"], "name": node.get("name", {}).get("value", ""),
            "description": node.get("description", {}).get("value", ""), **props,
            "text": " ".join(spoken_text(node, by_id)).strip()}


def spoken_text(node: dict[str, Any], by_id: dict[str, Any]) -> list[str]:
    """The text nodes under an accessibility node, in order."""
    if node.get("role", {}).get("value") == "StaticText":
        return [node.get("name", {}).get("value", "")]
    return [text for child in node.get("childIds", []) if child in by_id
            for text in spoken_text(by_id[child], by_id)]


def announced(player: Any) -> dict[str, Any]:
    return ax(player.page, player.locator(".harness-announce"))


def words(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# ---------------------------------------------------------------- the course opened wide


def screenshots(notebook: Notebook, player: Any) -> None:
    """The first player and what follows it, at 1280 and 800 px, focus ring on « Suivante »."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width in (1280, 800):
        notebook.page.set_viewport_size({"width": width, "height": VIEWPORT["height"]})
        player.locator(".harness-controls").evaluate("e => e.scrollIntoView({block: 'start'})")
        player.get_by_role("button", name="Précédente", exact=True).focus()
        notebook.page.keyboard.press("Tab")  # a keyboard focus: :focus-visible
        notebook.page.screenshot(path=str(ARTIFACTS / f"a11y-{notebook.name}-{width}.png"))
    notebook.page.set_viewport_size(VIEWPORT)


@pytest.mark.parametrize("stem", CHECKED)
def test_axe_finds_no_serious_violation_in_the_course(open_notebook: Any, stem: str) -> None:
    if not AXE.exists():
        pytest.skip(ABSENT)
    notebook = opened(open_notebook, stem)
    if stem == "01_deux_tours":
        check_keys_and_voice(notebook)
    if stem == "03_erreur_observation":
        check_hand_harness(notebook)
    check_axe(notebook)
    players = notebook.panel.locator(PLAYER)
    if players.count():
        screenshots(notebook, players.first)
        check_zoom(notebook, players.first)
    if stem in IN_THE_DARK:
        check_dark(notebook, stem)


# ---------------------------------------------------------------- Lab's dark theme

DARK, LIGHT = "JupyterLab Dark", "JupyterLab Light"
IN_THE_DARK = ("01_deux_tours", "04_boucle_complete", "07_dans_le_code")
# Looked at (tests/artifacts/a11y-dark-*.png): the first of each.
SHOWN = {"controls": ".harness-controls", "diagram": ".harness-diagram",
         "figure": ".harness-figure", "question": ".harness-exercise"}


def check_dark(notebook: Notebook, stem: str) -> None:
    """Under « JupyterLab Dark », axe finds no serious violation either (color-contrast
    among them): every widget keeps its contrast whatever theme the learner picks."""
    page = notebook.page
    switch_theme(page, DARK)
    try:
        assert page.evaluate("() => document.body.dataset.jpThemeLight") == "false"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for name, selector in SHOWN.items():
            widget = notebook.panel.locator(selector).first
            if widget.count():
                widget.scroll_into_view_if_needed()
                widget.screenshot(path=str(ARTIFACTS / f"a11y-dark-{stem}-{name}.png"))
        violations = axe_violations(notebook)
        assert violations == [], "\n".join(violations)
    finally:
        switch_theme(page, LIGHT)  # the Lab's setting: the next notebook opens in the light


# A drawing's first label as the screen shows it: its height in the SVG (drawn off screen),
# times the image's scale on the page, times the device pixels per CSS pixel.
LABEL = """(img) => {
  const box = document.createElement("div");
  box.style.cssText = "position: absolute; left: -99999px; top: 0";
  box.innerHTML = decodeURIComponent(img.src.slice(img.src.indexOf(",") + 1));
  document.body.append(box);
  const svg = box.querySelector("svg"), label = svg.querySelector("text");
  const height = label.getBBox().height, own = svg.viewBox.baseVal.width || img.width;
  box.remove();
  const region = img.closest("[role=region]");
  return { label: label.textContent, px: height * img.getBoundingClientRect().width / own
             * devicePixelRatio, scrolls: region.scrollWidth > region.clientWidth,
           fits: img.width <= region.clientWidth, tab: region.tabIndex };
}"""


def zoomed(page: Any, window: int, zoom: int) -> Any:
    """The page as a browser zoomed to `zoom` shows it in a window `window` device pixels
    wide: Chromium's zoom divides the CSS pixels by `zoom` and multiplies the device pixels
    per CSS pixel (devicePixelRatio, the `resolution` media feature) by it."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setDeviceMetricsOverride",
             {"width": window // zoom, "height": VIEWPORT["height"] // zoom,
              "deviceScaleFactor": zoom, "mobile": False})
    page.wait_for_function("""([w, z]) => devicePixelRatio === z
        && document.querySelector(".jp-Notebook").getBoundingClientRect().width <= w""",
                           arg=[window // zoom, zoom])
    return cdp


def check_zoom(notebook: Notebook, player: Any) -> None:
    """At 200 % zoom the text of a player's drawing and of a send() figure is twice as
    large on screen as at 100 % (WCAG 1.4.4), from a 1280 and an 800 px window: the
    drawing keeps its width and scrolls, in a named region the keyboard reaches."""
    page = notebook.page
    images = [player.locator(".harness-diagram img")]
    figure = notebook.panel.locator(".harness-figure .harness-diagram img")
    images += [figure.first] if figure.count() else []
    seen = {}
    try:
        for window in (1280, 800):
            for zoom in (1, 2):
                cdp = zoomed(page, window, zoom)
                for i, image in enumerate(images):
                    image.scroll_into_view_if_needed()
                    seen[window, zoom, i] = image.evaluate(LABEL)
                if zoom == 2:  # Playwright's own screenshot would undo the zoom
                    images[0].scroll_into_view_if_needed()
                    shot = cdp.send("Page.captureScreenshot", {"format": "png"})["data"]
                    (ARTIFACTS / f"a11y-{notebook.name}-{window}-zoom200.png").write_bytes(
                        base64.b64decode(shot))
                cdp.send("Emulation.clearDeviceMetricsOverride")
                cdp.detach()
    finally:
        page.set_viewport_size(VIEWPORT)
    (ARTIFACTS / f"a11y-{notebook.name}-zoom.txt").write_text("".join(
        f"fenêtre {w} px, zoom ×{z}, dessin {i} : « {at['label']} » {at['px']:.1f} px, "
        f"défile : {at['scrolls']}\n" for (w, z, i), at in seen.items()), "utf-8")
    for (window, zoom, i), at in seen.items():
        if zoom == 2:
            assert at["px"] >= 2 * seen[window, 1, i]["px"] - 0.5, (window, i, seen)
            assert at["fits"] or at["scrolls"], (window, i, at)
        assert at["tab"] == 0, at
    assert ax(page, player.locator(".harness-diagram"))["name"] == "Diagramme de l’étape"


# ---------------------------------------------------------------- keys and voice


def check_keys_and_voice(notebook: Notebook) -> None:
    player = notebook.panel.locator(PLAYER).first
    check_player_heard(player)
    check_quiz_arrows(notebook)
    check_questions_reached(notebook)
    check_toggle(notebook)


def check_player_heard(player: Any) -> None:
    """Space on « Suivante » moves one step, announced with its note; the drawing is
    named for its step and described by the chapter's accDescr; then the dump."""
    from harness_lib.course.drawing.mermaid import chapter_diagram

    page, chapter = player.page, chapter_diagram("deux_tours")
    player.locator(".harness-controls").evaluate("e => e.scrollIntoView({block: 'start'})")
    player.evaluate("p => p.focus()")
    page.keyboard.press("Home")
    sync_api.expect(player.locator(STEP)).to_have_text(re.compile(r"^étape 0 sur"))
    following = player.get_by_role("button", name="Suivante", exact=True)
    following.focus()
    page.keyboard.press(" ")
    sync_api.expect(player.locator(STEP)).to_have_text(re.compile(r"^étape 1 sur"))
    sync_api.expect(player.get_by_role("button", name="Pause")).to_have_count(0)  # not playing
    # Space on « Que sait le modèle ? » opens the panel, and plays nothing.
    knowing = player.locator("summary", has_text="Que sait le modèle")
    knowing.focus()
    page.keyboard.press(" ")
    sync_api.expect(knowing.locator("xpath=..")).to_have_attribute("open", "")
    sync_api.expect(player.get_by_role("button", name="Pause")).to_have_count(0)
    sync_api.expect(player.locator(STEP)).to_have_text(re.compile(r"^étape 1 sur"))
    page.keyboard.press(" ")  # closed again
    note = words(player.locator(".harness-note").text_content() or "")
    sync_api.expect(player.locator(".harness-announce")).to_contain_text("Étape 1 sur 9")
    heard = announced(player)
    said = words(heard["text"])
    assert heard["live"] == "polite" and words(f"Étape 1 sur 9 : {note}") in said, heard
    image = ax(page, player.locator(".harness-diagram img"))
    assert words(image["name"]).startswith(words("Étape 1 sur 9 : ")), image
    assert words(image["description"]) == words(chapter.description), image
    dump(player)


def dump(player: Any) -> None:
    """01's first player read from step 0 to the end as a screen reader hears it; every
    step's note is in what is announced."""
    page, lines = player.page, []
    player.evaluate("p => p.focus()")
    page.keyboard.press("End")
    page.keyboard.press("Home")
    total = int(re.search(r"sur (\d+)", player.locator(STEP).text_content() or "")[1])
    for k in range(total + 1):
        if k:
            page.keyboard.press("ArrowRight")
        sync_api.expect(player.locator(".harness-announce")).to_contain_text(f"Étape {k} sur")
        note = words(player.locator(".harness-note").text_content() or "")
        note = re.sub(r"^Étape \d+\s*:\s*", "", note)  # said once: « Étape k sur N : »
        heard, image = announced(player), ax(page, player.locator(".harness-diagram img"))
        lines += [f"--- étape {k}", f"annoncé : {heard['text']}", f"image : {image['name']}",
                  f"description : {image['description']}"]
        assert note in words(heard["text"]), (k, note, heard)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "a11y-01-player.txt").write_text("\n".join(lines) + "\n", "utf-8")


def check_quiz_arrows(notebook: Notebook) -> None:
    """↓ on a quiz radio checks the next one and keeps the focus in the question."""
    page = notebook.page
    group = notebook.panel.locator(".harness-exercise [role=radiogroup]").first
    radios = group.locator("input[type=radio]")
    radios.first.focus()
    page.keyboard.press("ArrowDown")
    sync_api.expect(radios.nth(1)).to_be_checked()
    sync_api.expect(radios.nth(1)).to_be_focused()
    assert ax(page, radios.nth(1))["checked"] == "true"
    page.keyboard.press("ArrowUp")
    sync_api.expect(radios.first).to_be_checked()
    sync_api.expect(radios.first).to_be_focused()


def check_questions_reached(notebook: Notebook) -> None:
    """In command mode, ↓ from the cell above each of 01's first two questions makes the
    question's cell active (JupyterLab's ↓ and j skip a cell whose source is collapsed:
    a question's source is shown, tests/test_notebooks.py)."""
    page = notebook.page
    cells = notebook.panel.locator(".jp-Cell")
    asked = notebook.panel.locator(".jp-Cell", has=page.locator(".harness-exercise"))
    first = asked.first.evaluate("(c) => [...c.parentElement.querySelectorAll(':scope > .jp-Cell')]"
                                 ".indexOf(c)")
    above = cells.nth(first - 1)
    above.scroll_into_view_if_needed()
    above.locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")  # command mode
    for k in (first, first + 1):
        page.keyboard.press("ArrowDown")
        sync_api.expect(cells.nth(k)).to_have_class(re.compile(r"\bjp-mod-active\b"))
        assert cells.nth(k).locator(".harness-exercise").count() == 1, k


def check_toggle(notebook: Notebook) -> None:
    """The toggle is a named group whose checked option is the model that answers."""
    page = notebook.page
    toggle = notebook.panel.locator(".harness-toggle").first
    group = ax(page, toggle)
    assert group["role"] == "radiogroup" and group["name"] == "Modèle qui répond", group
    chosen = toggle.locator("[aria-checked=true]")
    assert ax(page, chosen)["name"].startswith("Modèle simulé")
    chosen.focus()
    page.keyboard.press("ArrowRight")
    real = toggle.get_by_role("radio", name=re.compile("Vrai modèle"))
    sync_api.expect(real).to_have_attribute("aria-checked", "true")
    sync_api.expect(real).to_be_focused()
    status = notebook.panel.locator(".harness-status").first
    sync_api.expect(status).to_contain_text("Pas de clé")
    assert ax(page, status)["live"] == "polite"
    page.keyboard.press("ArrowLeft")
    sync_api.expect(toggle.get_by_role("radio", name=re.compile("Modèle simulé"))) \
        .to_have_attribute("aria-checked", "true")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    toggle.locator("xpath=..").screenshot(path=str(ARTIFACTS / "a11y-toggle-focus.png"))
    # The key field (shown with « Vrai modèle »): focus is more than a border colour.
    toggle.get_by_role("radio", name=re.compile("Vrai modèle")).click()
    key = notebook.panel.locator(".harness-playground input[type=password]").first
    sync_api.expect(key).to_be_visible()  # shown once the kernel heard the choice
    key.focus()
    sync_api.expect(key).to_be_focused()
    ring = key.evaluate("(e) => getComputedStyle(e).boxShadow")
    toggle.locator("xpath=..").screenshot(path=str(ARTIFACTS / "a11y-key-focus.png"))
    toggle.get_by_role("radio", name=re.compile("Modèle simulé")).click()
    assert "inset" in ring and "3px" in ring, ring


def check_hand_harness(notebook: Notebook) -> None:
    """03's « Jouez le rôle du harness »: its field is named, its verdict announced."""
    page = notebook.page
    exercise = notebook.panel.locator(".harness-exercise", has=page.locator("textarea")).first
    field = ax(page, exercise.locator("textarea"))
    assert field["name"].strip(), field
    exercise.get_by_role("button", name="Vérifier").click()
    verdict = exercise.locator(".harness-live")
    sync_api.expect(verdict).to_contain_text("✘")
    heard = ax(page, verdict)
    assert heard["live"] == "polite" and "✘" in heard["text"], heard

