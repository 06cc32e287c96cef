// harness_lib's one JupyterLab plugin, loaded by JupyterLab, Notebook 7 and the JupyterLite
// site at start. Written by hand, without a bundler: it shares no module with the page, so
// its module-federation container (what Lab's bootstrap calls: `init`, then
// `get("./extension")`) is these few lines.
//
// What it does: CodeMirror's style module (`style-mod`) keeps every editor's styles in one
// <style> of the page and writes that tag's whole text again each time an editor is created,
// even when the text is the same. Each write makes Chromium recompute the page's styles:
// about 60 writes in a Run All of notebook 07. The plugin makes the writes that change
// nothing do nothing; any other write goes through. bench/README.md has the measures.
var _JUPYTERLAB;
(function () {
  "use strict";

  // style-mod keeps its StyleSet on the document under a private Symbol("styleSet").
  function editorStyleTag(doc) {
    const key = Object.getOwnPropertySymbols(doc).find((s) => s.description === "styleSet");
    const tag = key && doc[key] && doc[key].styleTag;
    return tag instanceof HTMLStyleElement ? tag : null;
  }

  // An own accessor on this one tag: every other <style> of the page is left as it is.
  function skipSameText(tag) {
    const native = Object.getOwnPropertyDescriptor(Node.prototype, "textContent");
    Object.defineProperty(tag, "textContent", {
      configurable: true,
      get() { return native.get.call(this); },
      set(text) { if (text !== native.get.call(this)) native.set.call(this, text); },
    });
    tag.dataset.harnessLib = "same-text-skipped";  // what the tests look for
  }

  // The tag is made with the first editor, after Lab's start: wait for it in the <head>.
  function activate() {
    const now = editorStyleTag(document);
    if (now) return skipSameText(now);
    const watch = new MutationObserver(() => {
      const tag = editorStyleTag(document);
      if (tag) { watch.disconnect(); skipSameText(tag); }
    });
    watch.observe(document.head, { childList: true });
  }

  const plugin = {
    id: "harness-lib:editor-styles",
    description: "Les éditeurs de cellules ne réécrivent plus leur feuille de style à l'identique.",
    autoStart: true,
    activate,
  };

  (_JUPYTERLAB = _JUPYTERLAB || {})["harness-lib"] = {
    init: () => undefined,
    get: (module) => module === "./extension"
      ? Promise.resolve(() => ({ __esModule: true, default: plugin }))
      : Promise.reject(new Error(`harness-lib : pas de module ${module}`)),
  };
})();
