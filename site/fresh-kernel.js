// Written by site/build.py at the top of lab/index.html's <head>. In JupyterLab, an IPython
// extension (harness_lib/course/playground/fresh_kernel.py) adds a French sentence below the
// NameError of a course name used before the notebook's first cell ran (a reopened notebook,
// a reloaded page). The site's Pyodide kernel reads no IPython configuration, so the page
// adds the same sentence, written by the same Python at build time, below such an error.
// Only for the course's own names (NAMES, its front doors' __all__); any other NameError is
// left alone.
(() => {
  const NAMES = new Set(__NAMES__);
  const SAY = __SAY__; // the sentence, with @@NOM@@ where the missing name goes
  const ERROR = /NameError: name '([A-Za-z_][A-Za-z0-9_]*)' is not defined/;

  function explain(output) {
    if (output.dataset.harnessExplained) return;
    const found = ERROR.exec(output.textContent || "");
    if (!found || !NAMES.has(found[1])) return;
    output.dataset.harnessExplained = "1";
    const note = document.createElement("p");
    note.className = "harness-fresh-kernel";
    note.lang = "fr";
    note.textContent = SAY.replace("@@NOM@@", found[1]);
    output.append(note);
  }

  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) {
        // An output's text may arrive after its node: look up from what was added, and down.
        const element = node instanceof Element ? node : node.parentElement;
        if (!element) continue;
        const around = element.closest(".jp-OutputArea-output");
        if (around) explain(around);
        element.querySelectorAll(".jp-OutputArea-output").forEach(explain);
      }
    }
  }).observe(document, { childList: true, subtree: true });
})();
