// The bundled Mermaid, installed once per page, and the one drawer every player uses.
// renderer.py sends the library (gzip) in this widget's `source`; stepper.js awaits
// `globalThis.__harnessDrawer.ready` and calls its `draw(text)` and `ahead(texts)`.
// Drawn as JupyterLab draws Mermaid (its font, its light or dark theme, strict
// security, the SVG in an <img>), so that a player looks the same in every front end.

const KEY = "__harnessDrawer";
const CACHE = 400; // drawings kept per page (a long run's steps, both views)
const SILENT = 60; // s: the longest the drawing page may take to install Mermaid
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

// ---- The drawing page: what runs in the hidden iframe (`drawingPage`, below). ----

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

// The IIFE build declares a top-level `var` and sets `mermaid` on the drawing page's
// window: a classic script, from a blob: URL (anywidget loads every widget's code from
// one too).
async function loadMermaid(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const url = URL.createObjectURL(await new Response(stream).blob());
  try {
    await new Promise((resolve, reject) => {
      const script = Object.assign(document.createElement("script"), { src: url });
      script.onload = resolve;
      script.onerror = () => reject(new Error("Mermaid ne se charge pas"));
      document.head.append(script);
    });
  } finally {
    URL.revokeObjectURL(url);
  }
  return {}; // installed: the answer says nothing more than its id
}

// One drawing, cleaned as Lab cleans it, with its width and title. Mermaid is set up
// again only when the theme or the font changes (the body keeps which one it has).
async function drawHere({ id, look, font, text }) {
  const { mermaid } = globalThis, wanted = `${look} ${font}`;
  if (document.body.dataset.setUp !== wanted) {
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: look,
                         fontFamily: font, maxTextSize: 1e5, maxEdges: 1e5 });
    document.body.dataset.setUp = wanted;
  }
  // Mermaid measures its text here: a box of its own.
  const box = Object.assign(document.createElement("div"), { style: "width:1200px" });
  document.body.append(box);
  try {
    const svg = clean((await mermaid.render(id, text, box)).svg);
    return { svg, width: parseFloat(svg.match(WIDTH)?.[1]) || null,
             title: unescaped(svg.match(TITLE)?.[1] || "") };
  } finally {
    box.remove();
  }
}

// Each message from the notebook's page gets one answer, with the message's id.
function answer() {
  addEventListener("message", async ({ source, data }) => {
    if (source !== parent) return;
    const work = data.library ? loadMermaid(data.library) : drawHere(data);
    const found = await work.catch((err) => ({ error: String(err?.message || err) }));
    parent.postMessage({ ...found, id: data.id }, "*");
  });
}

// The drawing page's whole script: the functions above, as text (none of them reaches
// for the notebook's page), and the constants they use.
const FRAME = `<!doctype html><html lang="fr"><head><meta charset="utf-8"></head><body><script>
const VOID = ${VOID}, WIDTH = ${WIDTH}, TITLE = ${TITLE};
const XML = new Set(${JSON.stringify([...XML])});
${[entity, unescaped, clean, loadMermaid, drawHere, answer].join("\n")}
answer();
<\/script></body></html>`;

// ---- The notebook's page. ----

// Mermaid draws in a page of its own: a hidden iframe, sandboxed (scripts only, an
// origin of its own). Chromium runs such a frame in a process of its own, so Mermaid's
// work (a tenth of a second a drawing, and its start) uses the other core while the
// notebook's page renders the outputs; other browsers run it on the page's thread. In
// its own document, the <style> Mermaid adds to each drawing and its text measures touch
// the drawing alone, not the notebook's styles. The two pages talk by messages:
// `ask(request)` resolves with the answer that has the request's id.
function drawingPage() {
  const frame = Object.assign(document.createElement("iframe"), {
    title: "Dessin des diagrammes (invisible)", tabIndex: -1, srcdoc: FRAME });
  frame.setAttribute("sandbox", "allow-scripts");
  frame.setAttribute("aria-hidden", "true");
  frame.style.cssText = "position:absolute;left:-10000px;top:0;width:1200px;height:600px;"
    + "border:0;visibility:hidden";
  const answers = new Map(); // id -> the resolve of its ask()
  addEventListener("message", ({ source, data }) => {
    if (source !== frame.contentWindow || !answers.has(data?.id)) return;
    answers.get(data.id)(data);
    answers.delete(data.id);
  });
  const loaded = new Promise((resolve) => frame.addEventListener("load", resolve, { once: true }));
  document.body.append(frame);
  return async function ask(request) {
    await loaded;
    return new Promise((resolve) => {
      answers.set(request.id, resolve);
      frame.contentWindow.postMessage(request, "*"); // its origin is opaque: "*"
    });
  };
}

// A drawing page that never answers (its script blocked, by a site's security policy
// say) is a failure that each player says, not a wait for ever.
async function install(bytes) {
  const ask = drawingPage();
  const silent = new Promise((resolve) => setTimeout(resolve, SILENT * 1000,
    { error: `la page de dessin n’a pas répondu en ${SILENT} s` }));
  const { error } = await Promise.race([ask({ id: "library", library: bytes }), silent]);
  if (error) throw new Error(error);
  return ask;
}

// Lab's: body[data-jp-theme-light] says which theme is on (Notebook 7 and Voilà too).
const theme = () => (document.body.dataset.jpThemeLight === "false" ? "dark" : "default");

function drawer(ask) {
  const cache = new Map(); // theme + text -> Promise<{svg, width, title} | {error}>
  let count = 0, busy = 0, waiting = [];
  const kinds = new Set(); // the kinds of diagram drawn so far: "sequenceDiagram", "flowchart"
  const kind = (text) => text.trimStart().split(/\s/, 1)[0];

  const fonts = new Map(); // theme -> Lab's font, read once (reading it makes the page restyle)
  const font = (look) => fonts.get(look) || fonts.set(look, getComputedStyle(document.body)
    .getPropertyValue("--jp-ui-font-family").trim() || "system-ui, sans-serif").get(look);

  async function render(look, text) {
    kinds.add(kind(text));
    const { id, ...drawing } = await ask({ id: `harness-mermaid-${++count}`, look, text,
                                           font: font(look) });
    return drawing;
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
    .then((ask) => shared.resolve(drawer(ask)))
    .catch((err) => shared.resolve({ failed: String(err?.message || err) }));
}

export default { initialize, render() {} };
