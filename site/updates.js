// Written by site/build.py at the top of lab/index.html's <head>: course updates reach a
// learner who saved a notebook. JupyterLite keeps a saved notebook in the browser's storage
// and shows that copy for good, even once the course is republished with fixes. Each
// published notebook carries the version it was published as (its metadata
// `harness_version`, a hash of its bytes), and the site lists the current ones
// (notebook-versions.json). A notebook opened whose version is not the current one is an
// older copy: the page says so, and offers the new version, the learner's copy kept under
// another name (renamed, never deleted), or to keep reading theirs.
(() => {
  const VERSIONS = fetch(new URL("../notebook-versions.json", location.href), { cache: "no-cache" })
    .then((response) => (response.ok ? response.json() : {}))
    .catch(() => ({}));
  const seen = new WeakSet();

  function make(tag, props = {}, children = []) {
    const node = Object.assign(document.createElement(tag), props);
    node.append(...children);
    return node;
  }

  // « 04_boucle_complete (ma version 2026-12-02 11h58).ipynb »: beside the new version.
  function keptName(path) {
    const now = new Date(), two = (n) => String(n).padStart(2, "0");
    const day = `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}`;
    return path.replace(/\.ipynb$/, ` (ma version ${day} ${two(now.getHours())}h${two(now.getMinutes())}).ipynb`);
  }

  async function takeNew(app, panel, path, box) {
    const target = keptName(path);
    try {
      await panel.context.save(); // what was typed since the last save stays in their copy
      await app.serviceManager.contents.rename(path, target); // the open tab follows it
      await app.commands.execute("docmanager:open", { path, factory: "Notebook" });
      say(box, `Nouvelle version ouverte. Votre copie est gardée sous « ${target.split("/").pop()} ».`);
    } catch (error) {
      say(box, `La nouvelle version n’a pas pu être ouverte (${error.message || error}) : ` +
              "votre copie est restée telle quelle.");
    }
  }

  function say(box, text) {
    box.replaceChildren(make("p", { textContent: text }),
                        make("button", { type: "button", textContent: "Fermer",
                                         className: "jupyter-button",
                                         onclick: () => box.remove() }));
    box.querySelector("button").focus();
  }

  function offer(app, panel, path, latest) {
    const name = path.split("/").pop();
    const box = make("div", { className: "harness-update", lang: "fr" });
    box.setAttribute("role", "alertdialog");
    box.setAttribute("aria-label", "Nouvelle version du cours");
    box.style.cssText = "position:fixed;top:48px;right:16px;z-index:10000;max-width:30em;" +
      "background:#fff;color:#212529;border:2px solid #1a5fb4;border-radius:6px;padding:8px 12px;" +
      "font:14px/1.5 system-ui,sans-serif;box-shadow:0 2px 8px rgba(0,0,0,.25)";
    const take = make("button", { type: "button", className: "jupyter-button harness-update-take",
                                  textContent: "Prendre la nouvelle version" });
    const keep = make("button", { type: "button", className: "jupyter-button harness-update-keep",
                                  textContent: "Garder ma copie" });
    take.onclick = () => takeNew(app, panel, path, box);
    keep.onclick = () => { localStorage.setItem(`cours-copie-gardee:${path}`, latest); box.remove(); };
    box.append(
      make("p", { textContent: `Le cours a été republié : « ${name} » a changé depuis que vous ` +
                               "l’avez enregistré. Vous lisez votre copie, l’ancienne version." }),
      make("p", { textContent: "« Prendre la nouvelle version » garde votre copie sous un autre " +
                               "nom (rien n’est effacé) et ouvre la nouvelle." }),
      make("div", { style: "display:flex;gap:8px;flex-wrap:wrap" }, [take, keep]));
    document.body.append(box);
    panel.disposed.connect(() => box.remove());
    take.focus();
  }

  async function check(app, panel) {
    await panel.context.ready;
    const path = panel.context.path, model = panel.context.model;
    const mine = model.getMetadata ? model.getMetadata("harness_version") : undefined;
    const latest = (await VERSIONS)[path];
    if (!mine || !latest || mine === latest) return;
    if (localStorage.getItem(`cours-copie-gardee:${path}`) === latest) return;
    offer(app, panel, path, latest);
  }

  function watch(app) {
    for (const widget of app.shell.widgets("main")) {
      if (seen.has(widget) || !widget.context || !widget.content || !widget.context.path.endsWith(".ipynb")) continue;
      seen.add(widget);
      check(app, widget).catch((error) => console.warn("Mises à jour du cours :", error));
    }
  }

  function start() {
    const app = window.jupyterapp;
    if (!app) { setTimeout(start, 250); return; } // set when JupyterLite's app starts
    app.restored.then(() => {
      app.shell.layoutModified.connect(() => watch(app));
      watch(app);
    });
  }
  window.addEventListener("DOMContentLoaded", start);
})();
