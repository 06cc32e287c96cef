// Two small course widgets that ipywidgets does not give (live.py says which traits exist):
// - "live": HTML in a region a screen reader reads when it changes (role="status"):
//   the toggle's status line, a verdict, the ✏️ targets, an approval's outcome. The region
//   stays in the page and only its content changes, so the change is announced.
// - "choice": one option out of a few, as a named radio group of buttons (the toggle):
//   the selected one is told by aria-checked and a ✓, not by its colour alone; the arrows
//   move and choose, Tab enters and leaves the group.

function make(tag, props = {}, children = []) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function french(el) {
  el.lang = "fr";
  el.closest(".jp-Notebook")?.setAttribute("lang", "fr");
}

function renderLive({ model, el }) {
  el.classList.add("harness-live");
  el.setAttribute("role", "status");
  el.setAttribute("aria-live", "polite");
  french(el);
  const show = () => { el.innerHTML = model.get("value"); }; // the course's own HTML
  model.on("change:value", show);
  show();
  return () => model.off("change:value", show);
}

const MOVES = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 };

function renderChoice({ model, el }) {
  el.classList.add("harness-choice");
  el.setAttribute("role", "radiogroup");
  el.setAttribute("aria-label", model.get("label"));
  french(el);
  const buttons = model.get("options").map(([text, value]) => {
    const mark = make("span", { className: "harness-mark", ariaHidden: "true" });
    const node = make("button", { type: "button", className: "harness-option" },
                      [mark, make("span", { textContent: text })]);
    node.setAttribute("role", "radio");
    node.addEventListener("click", () => { model.set("value", value); model.save_changes(); });
    return [node, value];
  });
  el.append(...buttons.map(([node]) => node));
  function show() {
    for (const [node, value] of buttons) {
      const on = value === model.get("value");
      node.setAttribute("aria-checked", String(on));
      node.classList.toggle("mod-active", on);
      node.tabIndex = on ? 0 : -1; // one stop in the Tab order: the option chosen
      node.firstChild.textContent = on ? "✓" : "";
    }
  }
  // Captured here: JupyterLab would read the arrows as « another cell ».
  el.addEventListener("keydown", (event) => {
    const move = MOVES[event.key], at = buttons.findIndex(([node]) => node === event.target);
    if (!move || at < 0 || event.ctrlKey || event.altKey || event.metaKey) return;
    event.preventDefault();
    event.stopPropagation();
    const [node] = buttons[(at + move + buttons.length) % buttons.length];
    node.click();
    node.focus();
  }, true);
  model.on("change:value", show);
  show();
  return () => model.off("change:value", show);
}

function render(view) {
  return (view.model.get("part") === "choice" ? renderChoice : renderLive)(view);
}

export default { render };
