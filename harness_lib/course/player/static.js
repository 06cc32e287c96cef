// A player's static copy draws itself where no live player does: in an HTML export
// (nbconvert), opened offline. The library is in the page once, base64 in a script
// block of type application/x-harness-mermaid (static.py). Where a live player
// runs, nothing is drawn: in Lab, Notebook 7 and JupyterLite (their shell, a Lumino
// widget of id "main"), and wherever stepper.css hides the copy (Voilà, VS Code).
(() => {
  const copy = document.currentScript?.previousElementSibling;
  if (!copy || document.querySelector("#main.lm-Widget")) return;
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
    if (!copy.checkVisibility()) return; // a live player's copy, hidden by stepper.css
    const mermaid = await (globalThis[KEY] ??= load());
    if (!mermaid) return;
    for (const pre of copy.querySelectorAll("pre.harness-mermaid")) {
      try {
        const { svg } = await mermaid.render(`harness-static-${Math.random().toString(36).slice(2)}`,
                                             pre.textContent);
        const img = Object.assign(document.createElement("img"),
          { src: `data:image/svg+xml,${encodeURIComponent(clean(svg))}`,
            alt: "Diagramme", className: "harness-static-drawing" });
        img.style.maxWidth = "100%";
        pre.replaceWith(img);
      } catch (err) {
        pre.title = `Mermaid : ${err?.message || err}`; // the text stays, readable
      }
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw);
  else setTimeout(draw, 500); // a live page: let the widgets' style arrive first
})();
