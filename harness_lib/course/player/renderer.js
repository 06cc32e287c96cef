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

// The IIFE build declares a top-level `var` and sets globalThis.mermaid: a classic
// script, from a blob: URL (anywidget loads every widget's code from one too).
async function install(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const url = URL.createObjectURL(await new Response(stream).blob());
  const before = globalThis.mermaid;
  try {
    await new Promise((resolve, reject) => {
      const script = Object.assign(document.createElement("script"), { src: url });
      script.onload = resolve;
      script.onerror = () => reject(new Error("Mermaid ne se charge pas"));
      document.head.append(script);
      script.remove(); // it runs all the same
    });
  } finally {
    URL.revokeObjectURL(url);
  }
  const mermaid = globalThis.mermaid;
  globalThis.mermaid = before; // the page's own `mermaid`, if it had one, is left as it was
  if (before === undefined) delete globalThis.mermaid;
  return mermaid;
}

// Lab's: body[data-jp-theme-light] says which theme is on (Notebook 7 and Voilà too).
const theme = () => (document.body.dataset.jpThemeLight === "false" ? "dark" : "default");

// Lab's cleaning: an <img> needs well-formed XML (void elements closed) and the namespace.
const VOID = /<\s*(area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr)\b\s*([^>]*?)\s*\/?\s*>/gi;
const XML = new Set(["amp", "lt", "gt", "quot", "apos"]);
// ...and no HTML entity but XML's own: Mermaid writes a no-break space as &nbsp;.
function entity(whole, name) {
  if (XML.has(name)) return whole;
  const box = document.createElement("textarea");
  box.innerHTML = whole;
  return box.value === whole ? whole : `&#${box.value.codePointAt(0)};`;
}
function clean(svg) {
  svg = svg.replace(VOID, (_, tag, rest) => `<${tag} ${rest} />`)
    .replace(/&([a-zA-Z][a-zA-Z0-9]*);/g, entity);
  if (!/<svg[^>]+xmlns=/.test(svg)) svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"');
  return svg;
}

function drawer(mermaid) {
  const cache = new Map(); // theme + text -> Promise<{svg, width, title} | {error}>
  let configured = null, count = 0, busy = 0, waiting = [];

  async function render(look, text) {
    if (configured !== look) {
      const font = getComputedStyle(document.body).getPropertyValue("--jp-ui-font-family");
      mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: look,
                           fontFamily: font.trim() || "system-ui, sans-serif",
                           maxTextSize: 1e5, maxEdges: 1e5 });
      configured = look;
    }
    // Mermaid measures its text in the page: a box of its own, out of sight.
    const box = Object.assign(document.createElement("div"),
                              { style: "position:absolute;left:-10000px;top:0;width:1200px" });
    document.body.append(box);
    try {
      const { svg } = await mermaid.render(`harness-mermaid-${++count}`, text, box);
      const doc = new DOMParser().parseFromString(clean(svg), "image/svg+xml");
      const root = doc.querySelector("svg");
      return { svg: clean(svg), width: parseFloat(root?.style.maxWidth) || null,
               title: doc.querySelector("title")?.textContent || "" };
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
    while (waiting.length && cache.has(`${look}\n${waiting[0]}`)) waiting.shift();
    if (waiting.length) get(waiting.shift(), false).then(schedule);
  }
  function schedule() {
    if (!scheduled && waiting.length) {
      scheduled = true;
      idle(next);
    }
  }

  // Mermaid's first drawing of each kind is several times slower than the next ones
  // (a flowchart's, about 0.3 s): two tiny ones drawn in idle time, before a player asks.
  waiting = [WARM_UP.sequence, WARM_UP.hub];
  schedule();

  return {
    draw: (text) => get(text, true),
    drawn: () => count, // how many drawings Mermaid made in this page (bench/browser.py)
    // The newest wishes first: the player the learner just moved.
    ahead(texts) {
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
