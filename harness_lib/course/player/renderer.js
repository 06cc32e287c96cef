// The bundled Mermaid, installed once per page, and the one drawer every player uses.
// renderer.py sends the library (gzip) in this widget's `source`; stepper.js awaits
// `globalThis.__harnessDrawer.ready` and calls its `draw(text)` and `ahead(texts)`.
// Drawn as JupyterLab draws Mermaid (its font, its light or dark theme, strict
// security, the SVG in an <img>), so that a player looks the same in every front end.

const KEY = "__harnessDrawer";
const CACHE = 400; // drawings kept per page (a long run's steps, both views)
const WARM_UP = { // the two kinds the players draw, as small as Mermaid allows
  sequence: "sequenceDiagram\n  participant H as Harness\n  H->>H: prêt",
  hub: "flowchart LR\n  n0[Harness] --> n1[Modèle]",
};

// The meeting point of this module and stepper.js, whichever runs first.
function slot() {
  if (!globalThis[KEY]) {
    let resolve;
    const ready = new Promise((r) => (resolve = r));
    globalThis[KEY] = { ready, resolve, started: false };
  }
  return globalThis[KEY];
}

// Mermaid draws in a page of its own: a hidden, empty iframe of the same origin. Each
// drawing adds a <style> to the document it draws in, and measures its text there; in
// JupyterLab's page, each such style made the browser check the whole notebook's styles
// again, drawing after drawing (a third of a second of a Run All of 04, bench/README.md).
// In the iframe, that work covers the drawing alone. Its text measures are the same:
// the font is given to Mermaid, not inherited.
function drawingRealm() {
  const frame = document.createElement("iframe");
  frame.title = "Dessin des diagrammes (invisible)";
  frame.setAttribute("aria-hidden", "true");
  frame.tabIndex = -1;
  frame.style.cssText = "position:absolute;left:-10000px;top:0;width:1200px;height:600px;"
    + "border:0;visibility:hidden";
  document.body.append(frame);
  return frame.contentWindow;
}

// The IIFE build declares a top-level `var` and sets `mermaid` on its window: a classic
// script, from a blob: URL (anywidget loads every widget's code from one too), run in the
// drawing page.
async function install(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const url = URL.createObjectURL(await new Response(stream).blob());
  const realm = drawingRealm();
  try {
    await new Promise((resolve, reject) => {
      const script = Object.assign(realm.document.createElement("script"), { src: url });
      script.onload = resolve;
      script.onerror = () => reject(new Error("Mermaid ne se charge pas"));
      realm.document.head.append(script);
    });
  } finally {
    URL.revokeObjectURL(url);
  }
  return { mermaid: realm.mermaid, doc: realm.document };
}

// Lab's: body[data-jp-theme-light] says which theme is on (Notebook 7 and Voilà too).
const theme = () => (document.body.dataset.jpThemeLight === "false" ? "dark" : "default");

// Lab's cleaning: an <img> needs well-formed XML (void elements closed) and the namespace.
const VOID = /<\s*(area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr)\b\s*([^>]*?)\s*\/?\s*>/gi;
const XML = new Set(["amp", "lt", "gt", "quot", "apos"]);
// ...and no HTML entity but XML's own: Mermaid writes a no-break space as &nbsp;.
function entity(whole, name) {
  if (XML.has(name)) return whole;
  const value = unescaped(whole);
  return value === whole ? whole : `&#${value.codePointAt(0)};`;
}
// HTML text with its entities decoded, as the page's parser reads them.
function unescaped(text) {
  const box = document.createElement("textarea");
  box.innerHTML = text;
  return box.value;
}
function clean(svg) {
  svg = svg.replace(VOID, (_, tag, rest) => `<${tag} ${rest} />`)
    .replace(/&([a-zA-Z][a-zA-Z0-9]*);/g, entity);
  if (!/<svg[^>]+xmlns=/.test(svg)) svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"');
  return svg;
}

// The drawing's width and title, read from Mermaid's SVG text (its root's max-width).
const WIDTH = /^<svg\b[^>]*?max-width:\s*([\d.]+)px/;
const TITLE = /<title\b[^>]*>([^<]*)<\/title>/;

function drawer({ mermaid, doc }) {
  const cache = new Map(); // theme + text -> Promise<{svg, width, title} | {error}>
  let configured = null, count = 0, busy = 0, waiting = [];
  const kinds = new Set(); // the kinds of diagram drawn so far: "sequenceDiagram", "flowchart"
  const kind = (text) => text.trimStart().split(/\s/, 1)[0];

  async function render(look, text) {
    if (configured !== look) {
      const font = getComputedStyle(document.body).getPropertyValue("--jp-ui-font-family");
      mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: look,
                           fontFamily: font.trim() || "system-ui, sans-serif",
                           maxTextSize: 1e5, maxEdges: 1e5 });
      configured = look;
    }
    kinds.add(kind(text));
    // Mermaid measures its text in the drawing page: a box of its own.
    const box = Object.assign(doc.createElement("div"), { style: "width:1200px" });
    doc.body.append(box);
    try {
      const svg = clean((await mermaid.render(`harness-mermaid-${++count}`, text, box)).svg);
      return { svg, width: parseFloat(svg.match(WIDTH)?.[1]) || null,
               title: unescaped(svg.match(TITLE)?.[1] || "") };
    } catch (err) {
      return { error: String(err?.message || err) };
    } finally {
      box.remove();
    }
  }

  function get(text, urgent) {
    const look = theme(), key = `${look}\n${text}`;
    let found = cache.get(key);
    if (found) {
      cache.delete(key); // most recently used last: the first key is the one to drop
    } else {
      if (urgent) busy++;
      found = render(look, text).finally(() => urgent && busy--);
      if (cache.size >= CACHE) cache.delete(cache.keys().next().value);
    }
    cache.set(key, found);
    return found;
  }

  // Steps ahead, drawn one at a time when the page is idle and nothing is urgent.
  const idle = globalThis.requestIdleCallback
    ? (f) => requestIdleCallback(f, { timeout: 1000 }) : (f) => setTimeout(f, 30);
  let scheduled = false;
  function next() {
    scheduled = false;
    if (busy) return schedule();
    const look = theme();
    const needless = (t) => cache.has(`${look}\n${t}`)
      || (warmUps.includes(t) && kinds.has(kind(t))); // a warm-up after a drawing of its kind
    while (waiting.length && needless(waiting[0])) waiting.shift();
    if (waiting.length) get(waiting.shift(), false).then(schedule);
  }
  function schedule() {
    if (!scheduled && waiting.length) {
      scheduled = true;
      idle(next);
    }
  }

  // Mermaid's first drawing of each kind is several times slower than the next ones
  // (a flowchart's, about 0.3 s): a tiny one drawn in idle time, before a player asks,
  // unless a drawing of that kind came first. The sequence now: every player opens on it;
  // the hub once the learner comes to a player (its first `ahead`), not during a « Run All ».
  const warmUps = Object.values(WARM_UP);
  waiting = [WARM_UP.sequence];
  schedule();

  return {
    draw: (text) => get(text, true),
    drawn: () => count, // how many drawings Mermaid made in this page (bench/browser.py)
    // The newest wishes first: the player the learner just moved.
    ahead(texts) {
      if (!kinds.has(kind(WARM_UP.hub))) texts = [...texts, WARM_UP.hub];
      waiting = [...texts.filter(Boolean), ...waiting.filter((t) => !texts.includes(t))]
        .slice(0, 60);
      schedule();
    },
    // Lab's theme switch: every player draws its step again (the cache keys hold the theme).
    onTheme(callback) {
      const observer = new MutationObserver(callback);
      observer.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
      return () => observer.disconnect();
    },
  };
}

function initialize({ model }) {
  const shared = slot();
  if (shared.started) return; // a second kernel, a second renderer: one library per page
  shared.started = true;
  install(model.get("source")) // a DataView of the bytes
    .then((mermaid) => shared.resolve(drawer(mermaid)))
    .catch((err) => shared.resolve({ failed: String(err?.message || err) }));
}

export default { initialize, render() {} };
