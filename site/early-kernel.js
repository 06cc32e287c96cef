// Written by site/build.py at the top of lab/index.html's <head>, before JupyterLite's code.
// The page opens one notebook, whose kernel is Python (site/one-notebook.js): its worker is
// made now, and starts loading Pyodide and the packages while JupyterLab itself loads
// (site/early_kernel.py); pyodide-kernel takes it when it starts the kernel. Not where the
// page is cross-origin isolated: pyodide-kernel makes another kind of worker there. Nor when
// the address names something else than a notebook (no kernel to start).
(() => {
  if (globalThis.crossOriginIsolated || typeof Worker === "undefined") return;
  const path = new URLSearchParams(location.search).get("path");
  if (path && !path.endsWith(".ipynb")) return; // none: one-notebook.js opens a notebook
  const url = new URL(__WORKER__, new URL("../", location.href));
  try {
    globalThis.__harnessKernelWorker = new Worker(url, { type: "module" });
  } catch (err) {
    console.warn("early kernel:", err); // pyodide-kernel makes its own, as before
  }
})();
