// A player's static copy draws itself where no live player does: in an HTML export
// (nbconvert), opened offline, and in a notebook Lab or the site reopens (trusted: its
// scripts run), once the widget above says it cannot come back. The library is in the page
// once, base64 in a script block of type application/x-harness-mermaid (static.py).
// Where a live widget runs, nothing is drawn: renderer.css hides the copy below it. Where
// no script runs (a notebook not trusted), the Mermaid text stays hidden and the text
// version, open, says what the diagrams show.
(() => {
  const copy = document.currentScript?.previousElementSibling;
  if (!copy) return;
  // Lab, Notebook 7, JupyterLite: their shell, a Lumino widget of id "main".
  const inApp = !!document.querySelector("#main.lm-Widget");
  // The note that the widget needs its kernel (static.py) says nothing to an export's reader.
  if (!inApp && copy.previousElementSibling?.classList.contains("harness-reopen")) {
    copy.previousElementSibling.hidden = true;
  }
  const KEY = "__harnessStatic";
  // As Lab does (and renderer.js): an <img> needs well-formed XML, void elements closed.
  const VOID = /<\s*(area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr)\b\s*([^>]*?)\s*\/?\s*>/gi;
  // ...and no HTML entity but XML's own (Mermaid writes a no-break space as &nbsp;).
  const XML = new Set(["amp", "lt", "gt", "quot", "apos"]);
  const entity = (whole, name) => {
    if (XML.has(name)) return whole;
    const box = document.createElement("textarea");
    box.innerHTML = whole;
    return box.value === whole ? whole : `&#${box.value.codePointAt(0)};`;
  };
  const clean = (svg) => svg.replace(VOID, (_, tag, rest) => `<${tag} ${rest} />`)
    .replace(/&([a-zA-Z][a-zA-Z0-9]*);/g, entity);
  async function load() {
    const block = document.querySelector("script[type='application/x-harness-mermaid']");
    if (!block) return null;
    const bytes = Uint8Array.from(atob(block.textContent.trim()), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    const url = URL.createObjectURL(await new Response(stream).blob());
    await new Promise((resolve, reject) => {
      document.head.append(Object.assign(document.createElement("script"),
                                         { src: url, onload: resolve, onerror: reject }));
    });
    const light = document.body.dataset.jpThemeLight !== "false";
    globalThis.mermaid.initialize({ startOnLoad: false, securityLevel: "strict",
                                    theme: light ? "default" : "dark" });
    return globalThis.mermaid;
  }
  async function draw() {
    if (!copy.checkVisibility()) return; // below a live widget: renderer.css hides it
    const mermaid = await (globalThis[KEY] ??= load());
    if (!mermaid) return;
    const blocks = [...copy.querySelectorAll("pre.harness-mermaid")];
    for (const pre of blocks) {
      try {
        const { svg } = await mermaid.render(`harness-static-${Math.random().toString(36).slice(2)}`,
                                             pre.textContent);
        const img = Object.assign(document.createElement("img"),
          { src: `data:image/svg+xml,${encodeURIComponent(clean(svg))}`,
            alt: "Diagramme", className: "harness-static-drawing" });
        img.style.maxWidth = "100%";
        pre.previousElementSibling?.removeAttribute("hidden"); // its title, if it has one
        pre.replaceWith(img);
      } catch (err) {
        pre.title = `Mermaid : ${err?.message || err}`; // hidden: the text version says it
      }
    }
    // Every diagram drawn: the text version folds, as under a live player.
    if (!copy.querySelector("pre.harness-mermaid")) copy.querySelector("details")?.removeAttribute("open");
  }
  // In a Jupyter page, the widget above this copy gets a few seconds to come alive (then
  // renderer.css hides the copy) or to say that it cannot; a copy still shown is drawn.
  // The widget's output is watched, not the copy's visibility polled: each look at a
  // visibility makes the page compute its style, the whole notebook's during a Run All.
  function whenAlone() {
    const output = copy.closest(".jp-OutputArea-child")?.previousElementSibling;
    if (!output) return setTimeout(draw, 8000);
    let timer = null;
    const observer = new MutationObserver(() => look());
    const stop = () => { observer.disconnect(); clearTimeout(timer); };
    function look() {
      // Alive: its view is in the output (renderer.css's own test), and the copy hidden.
      if (output.querySelector(":scope > .jp-OutputArea-output > .lm-Widget")) return stop();
      if (/Error displaying widget/.test(output.textContent)) {
        stop();
        draw();
      }
    }
    observer.observe(output, { childList: true, subtree: true, characterData: true });
    timer = setTimeout(() => { stop(); draw(); }, 8000); // still « Loading widget... »
    look();
  }
  if (inApp) whenAlone();
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw);
  else setTimeout(draw, 500); // a live page: let the widgets' style arrive first
})();
