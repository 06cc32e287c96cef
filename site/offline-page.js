// Written by site/build.py at the top of lab/index.html's <head>, before JupyterLite's code.
// On a load that a worker already controls, with no version noted in localStorage under the
// worker's URL, JupyterLite unregisters every worker and registers its own again. Chromium
// takes the registration back without the network (seen offline); a browser that follows the
// spec to the letter would fetch the script again, fail offline, and lose the site's worker.
// Not needed here anyway: the browser replaces our worker (site/offline.js) itself when the
// site changes, and a page it controls comes from its cache, so from its build. We note the
// version JupyterLite expects, so it leaves the worker alone.
(() => {
  const worker = navigator.serviceWorker && navigator.serviceWorker.controller;
  if (worker) localStorage.setItem(`${worker.scriptURL}-version`, __APP_VERSION__);
})();
