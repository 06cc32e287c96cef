// A player's static copy draws itself where no live player does: in an HTML export
// (nbconvert), opened offline. The library is in the page once, base64 in a
// <script type="application/x-harness-mermaid"> block (static.py). Where a live player
// runs, nothing is drawn: in Lab, Notebook 7 and JupyterLite (their shell, a Lumino
// widget of id "main"), and wherever stepper.css hides the copy (Voilà, VS Code).
(() => {
  const copy = document.currentScript?.previousElementSibling;
  if (!copy || document.querySelector("#main.lm-Widget")) return;
  const KEY = "__harnessStatic";
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
          { src: `data:image/svg+xml,${encodeURIComponent(svg.replace(/<br>/g, "<br/>"))}`,
            alt: "Diagramme", className: "harness-static-drawing" });
        img.style.maxWidth = "100%";
        pre.replaceWith(img);
      } catch (err) {
        pre.title = `Mermaid : ${err?.message || err}`; // the text stays, readable
      }
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw);
  else setTimeout(draw, 500); // a live page: let the widgets' style arrive first
})();
