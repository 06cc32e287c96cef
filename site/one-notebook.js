// Written by site/build.py at the top of lab/index.html's <head>, before JupyterLite's code.
// JupyterLite reopens every notebook of the last visit, each starting its kernel (ten tabs,
// ten Pythons loading at once). The course opens one: the one the address names (?path=),
// else the one the learner was on (kept in localStorage as they move), else 00; `reset`
// leaves the others closed (their files stay, in the browser, with their outputs). The
// address follows the notebook in front, so that a reload opens it again.
(() => {
  const KEY = "harness-notebook";
  const FIRST = __FIRST__;
  const query = new URLSearchParams(location.search);
  if (!query.has("reset")) {
    const path = query.get("path") || localStorage.getItem(KEY) || FIRST;
    history.replaceState(history.state, "", `${location.pathname}?reset&path=${encodeURIComponent(path)}`);
  }
  function follow(app) {
    const note = () => {
      const path = app.shell.currentWidget?.context?.path;
      if (!path || !path.endsWith(".ipynb")) return;
      localStorage.setItem(KEY, path);
      history.replaceState(history.state, "", `${location.pathname}?path=${encodeURIComponent(path)}`);
    };
    app.shell.currentChanged?.connect(note);
    note();
  }
  // window.jupyterapp: jupyter-lite.json's exposeAppInBrowser (site/build.py).
  const wait = () => (window.jupyterapp ? window.jupyterapp.restored.then(() => follow(window.jupyterapp))
                                        : setTimeout(wait, 250));
  wait();
})();
