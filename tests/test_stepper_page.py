"""stepper.js's text part alone, in a bare Chromium page (no Lab, no kernel): which steps
a player draws, and when it waits for the page's idle moment.

The test plays anywidget's and the kernel's parts: a text model and a controls model with
`get`/`on`, and the page's drawer (renderer.js's), whose drawings it answers by hand. The
page's idle moments are counted (`requestIdleCallback`), never waited for: no timing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

STEPPER = Path(__file__).parents[1] / "harness_lib" / "course" / "player" / "stepper.js"

# A player's text part at step 0 of `sources`, with a drawer that is ready (the page's
# Mermaid installed by an earlier player) and answers each drawing when the test says so.
# The view has the drawer once the test gives it the renderer's model (`t.library()`).
# `window.t`: the drawings asked (their texts, in order), the idle moments asked, and
# `step(k, sources)`, what the kernel's update of a live run does to the two models.
RENDER = """async ([code, sources]) => {
  const url = URL.createObjectURL(new Blob([code], {type: 'text/javascript'}));
  const stepper = (await import(url)).default;
  const t = window.t = {asked: [], idle: 0, answers: []};
  const realIdle = window.requestIdleCallback;
  window.requestIdleCallback = (done, options) => { t.idle++; return realIdle(done, options); };
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>';
  const drawer = {failed: null, ahead() {}, onTheme: () => () => {},
                  draw: (text) => new Promise((done) => {
                    t.asked.push(text);
                    t.answers.push(() => done({svg, width: 10, title: text}));
                  })};
  globalThis.__harnessDrawer = {ready: Promise.resolve(drawer), started: true};
  const fake = (values) => {
    const handlers = {};
    return {values, get: (name) => values[name],
            on(events, f) { for (const e of events.split(' ')) (handlers[e] ??= []).push(f); },
            off() {},
            set(changes) {
              Object.assign(values, changes);
              for (const name of Object.keys(changes)) {
                for (const f of handlers[`change:${name}`] ?? []) f();
              }
            }};
  };
  const controls = fake({value: 0, view: 0, max: sources.length - 1});
  const text = fake({part: 'text', sequences: sources, hubs: sources.map(() => ''),
                     texts: sources.map((s) => `<p>${s}</p>`), knowns: [], messages: [],
                     names: [], transcript: '', description: 'Un lecteur', whole: '',
                     controls: 'IPY_MODEL_c', library: 'IPY_MODEL_l'});
  let library;
  const models = {c: Promise.resolve(controls), l: new Promise((done) => (library = done))};
  t.library = () => library({});
  text.widget_manager = {get_model: (id) => models[id]};
  t.step = (value, sequences) => {
    text.set({sequences, texts: sequences.map((s) => `<p>${s}</p>`)});
    controls.set({max: sequences.length - 1, value});
  };
  const el = document.createElement('div');
  document.body.append(el);
  stepper.render({model: text, el});
  // Its first paint: « Dessin en cours… », the view has no drawer yet.
  while (!el.querySelector('.harness-drawing.harness-pending')) {
    await new Promise((done) => requestAnimationFrame(done));
  }
  return {asked: t.asked, idle: t.idle};
}"""
ASKED = "(n) => window.t.asked.length >= n"  # the drawer was asked for n drawings
ANSWERED = "() => window.t.answers.shift()()"  # the oldest drawing asked comes back
SHOWN = "(alt) => document.querySelector('.harness-drawing img')?.alt === alt"
STATE = "() => ({asked: window.t.asked, idle: window.t.idle})"
NEWER = "([value, sources]) => window.t.step(value, sources)"


def page_with(browser: Any, sources: list[str]) -> tuple[Any, dict[str, Any]]:
    page = browser.context.new_page()
    page.set_content('<!doctype html><html lang="fr"><body></body></html>')
    found = page.evaluate(RENDER, [STEPPER.read_text("utf-8"), sources])
    return page, found


def test_a_live_player_draws_its_newest_step_without_waiting_for_an_idle_moment(
        browser: Any) -> None:
    # Its first paint, before the view has the drawer, draws nothing (« Dessin en cours… »).
    # The kernel's update of a live run arrives with the renderer's model: the newest step
    # is drawn at once, not after the pause that follows a drawing (bench/README.md,
    # 4 December: it made a live player's first drawing 0.4-0.5 s).
    page, found = page_with(browser, ["étape 0"])
    assert found == {"asked": [], "idle": 0}
    page.evaluate("() => { t.step(2, ['étape 0', 'étape 1', 'étape 2']); t.library(); }")
    page.wait_for_function(ASKED, arg=1)
    assert page.evaluate(STATE) == {"asked": ["étape 2"], "idle": 0}
    page.evaluate(ANSWERED)
    page.wait_for_function(SHOWN, arg="Diagramme, étape 2")  # its alt text: the step shown
    page.close()


def test_steps_that_arrive_during_a_drawing_wait_for_an_idle_moment(browser: Any) -> None:
    # A mock run's steps reach the page one message at a time while a drawing is made:
    # the newest is drawn once the page is idle, the ones in between never.
    page, _ = page_with(browser, ["étape 0"])
    page.evaluate("() => t.library()")
    page.wait_for_function(ASKED, arg=1)
    run = ["étape 0", "étape 1", "étape 2", "étape 3"]
    for k in (1, 2, 3):
        page.evaluate(NEWER, [k, run[: k + 1]])
    page.evaluate(ANSWERED)  # étape 0 drawn; then one idle moment, then étape 3
    page.wait_for_function(ASKED, arg=2)
    assert page.evaluate(STATE) == {"asked": ["étape 0", "étape 3"], "idle": 1}
    page.evaluate(ANSWERED)
    page.wait_for_function(SHOWN, arg="Diagramme, étape 3")
    page.close()
