// The player's browser side, in two parts (the `part` trait of each model), and a third
// for one diagram outside a player (figure.py: send()'s conversation):
// - "controls": buttons, slider, keys and « Lecture ». The current step is the
//   model's `value`, the view (0 sequence, 1 hub) its `view`.
// - "text": follows the controls' model, in the browser: draws the current step's
//   diagram (its Mermaid text, with the bundled Mermaid of renderer.js, cached; the
//   steps ahead in idle time, once the learner comes to the player) and shows its note
//   and context bar, « Que sait le modèle ? » and the text version, from lists the
//   kernel prepared once. So a step never waits for the kernel, and « Lecture » goes on
//   while the kernel is busy.
// - "figure": one Mermaid text, drawn the same way (the same drawing area and drawer),
//   and its text version.
// stepper.py says which traits exist; tests/test_browser.py drives all of this.

const REDUCED = "(prefers-reduced-motion: reduce)";
// Keys a focused control keeps for itself: Space (and Enter) on a button, a summary or a
// select do what they do everywhere; arrows in a select or a text field move in it.
const SPACE_OWNERS = "button, summary, a[href], select, textarea, input:not([type=range])";
const KEY_OWNERS = "select, textarea, input:not([type=range])";

// The course is French: its widgets say so to assistive tech, and so does the notebook
// around them (its Markdown), whose page Lab declares in the language of its own menus.
function french(el) {
  el.lang = "fr";
  el.closest(".jp-Notebook")?.setAttribute("lang", "fr");
}

// Ids unique in the page (anywidget loads this module once per model: a page-wide count).
const uid = (stem) => {
  globalThis.harnessStepperCount = (globalThis.harnessStepperCount ?? 0) + 1;
  return `harness-${stem}-${globalThis.harnessStepperCount}`;
};

function make(tag, props = {}, children = []) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

// A button whose visible text is its accessible name; the glyph is not read aloud.
function button(glyph, text, title, after = false) {
  const icon = make("span", { textContent: glyph, ariaHidden: "true" });
  const label = make("span", { textContent: text });
  const parts = !glyph ? [label] : after ? [label, icon] : [icon, label];
  return make("button", { type: "button", title }, parts);
}

function renderControls({ model, el }) {
  const first = button("⇤", "Début", "Revenir au début (touche Début)");
  const previous = button("◀", "Précédente", "Étape précédente (flèche gauche)");
  const play = button("▶", "Lecture", "");
  const next = button("▶", "Suivante", "Étape suivante (flèche droite)", true);
  const slider = make("input", { type: "range", min: 0, step: 1, ariaLabel: "Étape" });
  // Long runs: jump from one model call to the next (Page↑ / Page↓), play faster.
  const before = button("◀◀", "Appel précédent", "Appel au modèle précédent (Page précédente)");
  const after = button("▶▶", "Appel suivant", "Appel au modèle suivant (Page suivante)", true);
  const speed = make("select", { title: "Vitesse de la lecture automatique" },
                     [1, 2, 4].map((x) => make("option", { value: x, textContent: `× ${x}` })));
  speed.setAttribute("aria-label", "Vitesse de lecture");
  const calls = make("span", { className: "harness-calls", role: "group",
                               ariaLabel: "Appels au modèle" }, [before, after]);
  // Seen, not announced: the text part announces the step with its note.
  const label = make("span", { className: "harness-step" });
  const sequence = button("", "Séquence", "Le diagramme de séquence, flèche par flèche");
  const hub = button("", "Hub", "Le harness au centre : qui parle à qui");
  const views = make("span", { className: "harness-views", role: "group", ariaLabel: "Vue" },
                     [sequence, hub]);
  el.classList.add("harness-controls");
  french(el);
  el.append(first, previous, play, next, slider, label, speed, calls, views);
  let timer = null;

  const last = () => model.get("max");
  const go = (k) => {
    model.set("value", Math.max(0, Math.min(k, last())));
    model.save_changes();
  };
  const pause = () => {
    clearInterval(timer);
    timer = null;
    show();
  };
  const toggle = () => {
    if (timer !== null) return pause(); // pausing keeps the step: no return to 0
    const start = model.get("value") >= last() ? 0 : model.get("value");
    if (window.matchMedia(REDUCED).matches) return go(start + 1); // no animation: one step
    go(start);
    timer = setInterval(() => (model.get("value") >= last() ? pause() : go(model.get("value") + 1)),
                        model.get("interval") / Number(speed.value));
    show();
  };
  // The model call before or after the current step (none: stay).
  const callBefore = () => [...model.get("calls")].reverse().find((c) => c < model.get("value"));
  const callAfter = () => model.get("calls").find((c) => c > model.get("value"));
  const jump = (find) => () => { const k = find(); if (k !== undefined) go(k); };
  const setView = (k) => {
    model.set("view", k);
    model.save_changes();
  };

  function show() {
    const k = model.get("value"), n = last(), caption = model.get("captions")[k] || "";
    Object.assign(slider, { max: n, value: k });
    slider.setAttribute("aria-valuetext", `étape ${k} sur ${n}`);
    label.textContent = `étape ${k} sur ${n}` + (caption ? ` · ${caption}` : "");
    first.disabled = previous.disabled = k === 0;
    next.disabled = k === n;
    before.disabled = callBefore() === undefined;
    after.disabled = callAfter() === undefined;
    calls.hidden = model.get("calls").length < 2; // one call: nothing to jump between
    // A focused button that gets disabled would drop the focus, and the keys with it.
    if (document.activeElement?.disabled && player) player.focus();
    const playing = timer !== null;
    play.firstChild.textContent = playing ? "❚❚" : "▶";
    play.lastChild.textContent = playing ? "Pause" : "Lecture";
    play.title = playing ? "Mettre en pause, sans perdre l’étape (Espace)"
      : window.matchMedia(REDUCED).matches
        ? "Mouvement réduit demandé par le système : une étape par appui (Espace)"
        : "Lecture automatique, une étape toutes les quelques secondes (Espace)";
    sequence.setAttribute("aria-pressed", String(model.get("view") === 0));
    hub.setAttribute("aria-pressed", String(model.get("view") === 1));
  }

  const step = (delta) => () => go(model.get("value") + delta);
  const KEYS = { ArrowLeft: step(-1), ArrowRight: step(1), Home: () => go(0),
                 End: () => go(last()), " ": toggle, PageUp: jump(callBefore),
                 PageDown: jump(callAfter) };
  function onKey(event) {
    const action = KEYS[event.key];
    if (!action || event.ctrlKey || event.altKey || event.metaKey || event.shiftKey) return;
    const target = event.target instanceof Element ? event.target : null;
    if (target?.closest(event.key === " " ? SPACE_OWNERS : KEY_OWNERS)) {
      event.stopPropagation(); // its own meaning, and no notebook shortcut either
      return;
    }
    event.preventDefault(); // no page scroll, no native slider move, no button click
    event.stopPropagation(); // JupyterLab must not read it as a notebook shortcut
    action();
  }

  first.addEventListener("click", () => go(0));
  previous.addEventListener("click", step(-1));
  next.addEventListener("click", step(1));
  play.addEventListener("click", toggle);
  slider.addEventListener("input", () => go(Number(slider.value)));
  before.addEventListener("click", jump(callBefore));
  after.addEventListener("click", jump(callAfter));
  speed.addEventListener("change", () => { if (timer !== null) { pause(); toggle(); } });
  sequence.addEventListener("click", () => setView(0));
  hub.addEventListener("click", () => setView(1));
  let player = null; // the whole player, once this view is in the page
  model.on("change:value change:max change:captions change:calls change:view", show);
  show();

  // Keys work wherever the focus is in the player (a button, the slider, or the
  // player itself once clicked), not only in this row: listen on the whole player.
  const attach = () => {
    player = el.closest(".harness-player") || el;
    french(player);
    if (!player.hasAttribute("tabindex")) player.tabIndex = 0;
    player.setAttribute("role", "group");
    player.setAttribute("aria-label", "Lecteur pas à pas : flèches gauche et droite pour "
                        + "changer d’étape, Espace pour lire ou mettre en pause, Début et Fin");
    // Notebook 7 reads shortcuts before the player does (End would select the last
    // cell, and take the focus away): Lumino skips keys pressed inside this attribute.
    player.dataset.lmSuppressShortcuts = "true";
    player.addEventListener("keydown", onKey);
  };
  requestAnimationFrame(attach); // the view is put in the page after render() returns
  return () => {
    clearInterval(timer);
    if (player) player.removeEventListener("keydown", onKey);
  };
}

// One persistent <details> per panel: it stays open or closed from step to step.
function details(title, body) {
  return make("details", { className: "harness-details", id: uid("details") },
              [make("summary", { textContent: title }), body]);
}

// A region that scrolls: reachable with Tab and named, so that the keys can scroll it.
function scrolling(node, name) {
  node.tabIndex = 0;
  node.setAttribute("role", "region");
  node.setAttribute("aria-label", name);
  return node;
}

// Text for screen readers only (stepper.css: .harness-sr).
const spoken = (props = {}) => make("div", { className: "harness-sr", ...props });

// What is announced when the step changes: « Étape 3 sur 9 : » and its note, then the
// context's total when it changed. From the step's HTML (state.text_html).
function announcement(html, k, n, before) {
  const box = document.createElement("template");
  box.innerHTML = html || "";
  const note = box.content.querySelector(".harness-note");
  const said = (note?.textContent || PENDING).replace(/\s+/g, " ").trim()
    .replace(/^Étape \d+\s*:\s*/, ""); // « Étape 0 : … » is said once
  const total = note?.dataset.context || "";
  const context = total && total !== before ? ` ${total}.` : "";
  return [`Étape ${k} sur ${n}\u00a0: ${said}${context}`, total];
}

// The meeting point with renderer.js (the bundled Mermaid), whichever module runs first.
function drawerSlot() {
  const key = "__harnessDrawer";
  if (!globalThis[key]) {
    let resolve;
    const ready = new Promise((r) => (resolve = r));
    globalThis[key] = { ready, resolve, started: false };
  }
  return globalThis[key];
}

const SETTLE = 250; // ms at most between a drawing and the next one, while steps keep coming
// The page's next idle moment, or SETTLE ms if it stays busy.
const settled = () => new Promise((done) => (globalThis.requestIdleCallback
  ? requestIdleCallback(done, { timeout: SETTLE }) : setTimeout(done, 30)));
const PENDING = "Étape en préparation : le noyau Python la prépare dès qu’il est libre.";
const AHEAD = [1, 2, 3, -1]; // the steps drawn in idle time, after the one shown
const SHRINK = 0.86; // the least a drawing is shrunk to, of its own width

// One drawing area: the Mermaid text of a step, drawn by the page's one drawer (cached),
// shown as an <img> once decoded, or as text with Mermaid's message if it refuses it.
// `paint` returns what to put in place, or null if it is there already: the caller puts
// it only if no later step was asked for meanwhile.
// `links`: the image's aria-describedby and aria-details (its description, its text version).
function drawingArea(className, links = {}) {
  const node = make("div", { className });
  let shown = null; // the text drawn now (with its theme)
  const put = (key, extra, ...children) => () => {
    node.className = extra ? `${className} ${extra}` : className;
    node.replaceChildren(...children);
    shown = key;
  };
  async function paint(drawer, source, alt) {
    if (!source || !drawer || drawer.failed) {
      const why = !source ? PENDING : drawer?.failed ? `Dessin impossible : ${drawer.failed}`
        : "Dessin en cours…";
      const code = source && drawer?.failed ? [make("pre", { textContent: source })] : [];
      return put(null, "harness-pending", make("p", {}, [make("i", { textContent: why })]), ...code);
    }
    const key = `${document.body.dataset.jpThemeLight}\n${source}`;
    if (key === shown) return null;
    const figure = await drawer.draw(source);
    if (figure.error) {
      return put(key, "harness-refused", make("pre", { textContent: source }),
                 make("pre", { textContent: figure.error }));
    }
    // Named for this step or this verdict (the caller's), else by the diagram's accTitle.
    const img = make("img", { src: `data:image/svg+xml,${encodeURIComponent(figure.svg)}`,
                              alt: alt || figure.title });
    for (const [name, value] of Object.entries(links)) img.setAttribute(name, value);
    if (figure.width) {
      img.width = figure.width;
      // Shrunk to the cell by 14 % at most (Lab's 800 px layout, which the label fitting
      // of state.py is made for: text at 13 px or more); a narrower cell (a page zoomed to
      // 200 %, a small window) scrolls instead of shrinking the text more (stepper.css).
      img.style.minWidth = `${Math.floor(figure.width * SHRINK)}px`;
    }
    await img.decode().catch(() => {}); // swapped in once it can be painted: no blank frame
    return put(key, "", img);
  }
  return { node, paint, reset: () => (shown = null) };
}

async function renderText({ model, el }) {
  // The diagram's description (accDescr, or the run's summary), the live announcement.
  const description = spoken({ id: uid("description") });
  const announce = spoken({ className: "harness-sr harness-announce" });
  announce.setAttribute("aria-live", "polite");
  announce.setAttribute("aria-atomic", "true");
  const transcript = make("div", { className: "harness-transcript" });
  const version = details("Version texte", transcript);
  const area = drawingArea("harness-drawing",
                           { "aria-describedby": description.id, "aria-details": version.id });
  const text = make("div", { className: "harness-text" });
  const known = make("div", { className: "harness-known" });
  const full = drawingArea("harness-drawing harness-full",
                           { "aria-describedby": description.id, "aria-details": version.id });
  scrolling(full.node, "Diagramme complet, défilant");
  const whole = details("Diagramme complet", full.node);
  whole.classList.add("harness-whole");
  const knowing = details("Que sait le modèle ?", known);
  const diagram = scrolling(make("div", { className: "harness-diagram" }, [area.node]),
                            "Diagramme de l’étape");
  french(el);
  el.append(description, announce, diagram, text, knowing, version, whole);
  // The player's controls (another model of this widget): they hold the step and view.
  const ref = (name) => model.widget_manager.get_model(model.get(name).replace("IPY_MODEL_", ""));
  const controls = await ref("controls");
  let drawer = null, painting = 0, drawing = false, again = false;
  const list = () => (controls.get("view") === 1 ? "hubs" : "sequences");
  const names = () => model.get("names") || [];
  // Whether it could draw: not before the view has the drawer, nor a step not prepared.
  async function paintNow() {
    const k = controls.get("value"), name = list(), sources = model.get(name);
    const mine = ++painting; // a later step asked meanwhile: this one is not shown
    const drew = !!(drawer && !drawer.failed && sources[k]);
    const put = await area.paint(drawer, sources[k], names()[k] || `Diagramme, étape ${k}`);
    if (mine !== painting) return drew;
    if (put) put();
    // Steps ahead only once the learner comes to this player (the pointer, the focus, a
    // click or a key in it): a « Run All » of a notebook of players draws what it shows.
    if (drawer && !drawer.failed && visited) {
      drawer.ahead(AHEAD.map((d) => sources[k + d]));
    }
    return drew;
  }
  // One drawing at a time: what arrives meanwhile (a live run's events) is drawn once it is
  // done, the newest step only, not every step in between. And not at once: the steps of a
  // run with no wait in it (the mock's) reach a busy page one message at a time, each as
  // long as a drawing, so that each newest step was drawn in turn, ten drawings for one
  // run (bench/README.md). The page's next idle moment (at most SETTLE ms away) comes once
  // they are all in: one drawing. Steps that come seconds apart (a real model) are each drawn.
  // After a wait with nothing drawn (« Dessin en cours… » while the drawer was not ready),
  // the newest step is drawn at once: a live player's first drawing waits for no idle moment.
  async function paint() {
    if (drawing) return void (again = true);
    drawing = true;
    try {
      do {
        again = false;
        const drew = await paintNow();
        if (again && drew) await settled();
      } while (again);
    } finally {
      drawing = false;
    }
  }
  let visited = false;
  const visit = () => {
    if (visited) return;
    visited = true;
    paint();
  };
  requestAnimationFrame(() => { // this view is in the page by now, in its player
    const player = el.closest(".harness-player") || el;
    for (const name of ["pointerenter", "focusin", "click", "keydown", "input"]) {
      player.addEventListener(name, visit);
    }
  });
  async function paintWhole() {
    if (!whole.open) return;
    const put = await full.paint(drawer, model.get("whole"), "Diagramme complet");
    if (put && whole.open) put();
  }
  // « Que sait le modèle ? » names slices of the run's messages (each sent once, in
  // `messages`): filled here, only while the panel is open (drawing/message_json.py).
  function fillKnown() {
    if (!knowing.open) return;
    const every = model.get("messages");
    for (const pre of known.querySelectorAll("pre.harness-messages:not([data-filled])")) {
      const part = every.slice(Number(pre.dataset.from), Number(pre.dataset.to));
      if (part.length < Number(pre.dataset.to) - Number(pre.dataset.from)) {
        pre.replaceChildren(make("i", { textContent: PENDING })); // filled when they arrive
        continue;
      }
      pre.innerHTML = part.length ? `[\n${part.join(",\n")}\n]` : "[]";
      scrolling(pre, `messages[${pre.dataset.from}:${pre.dataset.to}]`); // it may scroll
      pre.dataset.filled = "1";
    }
  }
  let heard = -1, context = ""; // the step last announced, and its context's total
  function say(k) {
    const html = model.get("texts")[k];
    if (k === heard && html) return;
    const [words, total] = announcement(html, k, controls.get("max"), context);
    if (heard >= 0) announce.textContent = words; // not when the page opens: only on a move
    if (html) [heard, context] = [k, total];
  }
  function show() {
    const k = controls.get("value");
    say(k);
    description.textContent = model.get("description");
    // The HTML comes from the kernel, built from escaped text (state.py).
    text.innerHTML = model.get("texts")[k] || `<p><i>${PENDING}</i></p>`;
    known.innerHTML = model.get("knowns")[k] || `<p><i>${PENDING}</i></p>`;
    fillKnown();
    transcript.textContent = model.get("transcript");
    whole.hidden = !model.get("whole");
    // For the browser test's failure message: how many steps the kernel has prepared.
    el.dataset.prepared = model.get("texts").filter(Boolean).length;
    paint();
  }
  whole.addEventListener("toggle", paintWhole);
  knowing.addEventListener("toggle", fillKnown);
  controls.on("change:value change:view", show);
  // One update of the kernel changes up to eight lists at once: shown once, not eight times.
  let queued = false;
  const showOnce = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      show();
    });
  };
  model.on("change:texts change:knowns change:messages change:transcript change:sequences "
           + "change:hubs change:names change:description", showOnce);
  model.on("change:whole", () => { full.reset(); paintWhole(); });
  show();
  // The drawer: the bundled Mermaid, installed by the renderer widget (once per page).
  await ref("library");
  drawer = await drawerSlot().ready;
  let stop = () => {};
  if (!drawer.failed) {
    stop = drawer.onTheme(() => { area.reset(); full.reset(); paint(); paintWhole(); });
  }
  paint();
  paintWhole();
  return () => { controls.off("change:value change:view", show); stop(); };
}

// The "figure" part: its one text, drawn as a step is, again after a theme switch.
async function renderFigure({ model, el }) {
  const transcript = make("div", { className: "harness-transcript",
                                   textContent: model.get("transcript") });
  const version = details("Version texte", transcript);
  const area = drawingArea("harness-drawing", { "aria-details": version.id });
  el.classList.add("harness-figure");
  french(el);
  el.append(scrolling(make("div", { className: "harness-diagram" }, [area.node]),
                      "Diagramme de la conversation"), version);
  let drawer = null, painting = 0;
  async function paint() {
    const mine = ++painting; // a theme switch meanwhile: only the last drawing is put
    const put = await area.paint(drawer, model.get("mermaid"), model.get("alt"));
    if (put && mine === painting) put();
  }
  paint(); // « Dessin en cours… » until the drawer is ready
  await model.widget_manager.get_model(model.get("library").replace("IPY_MODEL_", ""));
  drawer = await drawerSlot().ready;
  const stop = drawer.failed ? () => {} : drawer.onTheme(() => { area.reset(); paint(); });
  paint();
  return stop;
}

const PARTS = { text: renderText, figure: renderFigure };

function render(view) {
  return (PARTS[view.model.get("part")] || renderControls)(view);
}

export default { render };
