// A course question in the browser (question.py says which traits exist): the prompt, the
// answer (radio buttons, a text field or, for an open question, a text area), the buttons
// and the feedback. One widget model per question: the kernel grades, the page shows.
// A click sends {event: "check" | "show", value: the answer}; the kernel writes `feedback`.

function make(tag, props = {}, children = []) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

// Ids for this page: radio groups and labels must not meet another question's. anywidget
// loads this module once per widget model, so a module-level counter would restart at 1
// for every question (one shared radio group, labels pointing at the first prompt): the
// counter lives on the page instead, one number per view.
const nextId = () => {
  globalThis.harnessQuestionCount = (globalThis.harnessQuestionCount ?? 0) + 1;
  return `harness-question-${globalThis.harnessQuestionCount}`;
};

// The arrows choose in a radio group, as everywhere: done here, and kept here (capture
// phase, at the group), because JupyterLab reads ↑/↓ as « select another cell » even on a
// focused radio (a data-lm-suppress-shortcuts mark is not enough), and takes the focus away.
const MOVES = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 };
function arrowsChoose(part, inputs) {
  part.addEventListener("keydown", (event) => {
    const move = MOVES[event.key], at = inputs.indexOf(event.target);
    if (!move || at < 0 || event.ctrlKey || event.altKey || event.metaKey) return;
    event.preventDefault();
    event.stopPropagation();
    const next = inputs[(at + move + inputs.length) % inputs.length];
    next.focus();
    next.checked = true;
    next.dispatchEvent(new Event("change", { bubbles: true }));
  }, true);
}

function answerPart(model, id, onEnter) {
  const kind = model.get("kind"), value = () => model.get("value");
  const part = make("div", { className: "harness-answer" });
  if (kind === "choice") {
    part.setAttribute("role", "radiogroup");
    part.setAttribute("aria-labelledby", id);
    const inputs = model.get("choices").map((text, i) => {
      const input = make("input", { type: "radio", name: `${id}-choix`, value: String(i) });
      // The choice is kept in the model at once: a view drawn again (the cell scrolled
      // back into view, the notebook reopened) shows it checked, not « Choisissez ».
      input.addEventListener("change", () => { model.set("value", i); model.save_changes(); });
      part.append(make("label", {}, [input, make("span", { textContent: text })]));
      return input;
    });
    arrowsChoose(part, inputs);
    const show = () => inputs.forEach((input, i) => (input.checked = value() === i));
    model.on("change:value", show);
    show();
    return [part, () => { const i = inputs.findIndex((input) => input.checked); return i < 0 ? null : i; }];
  }
  const field = make(kind === "open" ? "textarea" : "input",
                     { placeholder: model.get("placeholder"), spellcheck: kind === "open" });
  if (kind !== "open") {
    field.type = "text";
    field.addEventListener("keydown", (event) => { // Entrée checks, as « Vérifier »
      if (event.key === "Enter") { event.preventDefault(); onEnter(); }
    });
  }
  field.setAttribute("aria-labelledby", id);
  field.addEventListener("change", () => { model.set("value", field.value); model.save_changes(); });
  const show = () => { if (field.value !== (value() ?? "")) field.value = value() ?? ""; };
  model.on("change:value", show);
  show();
  part.append(field);
  return [part, () => field.value];
}

function render({ model, el }) {
  const id = nextId();
  const prompt = make("div", { className: "harness-prompt", id });
  prompt.innerHTML = model.get("prompt"); // the course's own HTML (questions.py)
  const [answer, read] = answerPart(model, id, () => send("check")); // Entrée in a field
  const send = (event) => model.send({ event, value: read() });
  const buttons = make("div", { className: "harness-buttons" });
  let restart = null; // « Recommencer »: there once an answer was given (kept, or shown)
  for (const [event, label, style] of [["check", model.get("check_label"), " mod-primary"],
                                       ["show", model.get("show_label"), ""],
                                       ["restart", model.get("restart_label"), ""]]) {
    if (!label) continue;
    const button = make("button", { type: "button", textContent: label,
                                    className: `jupyter-button widget-button harness-${event}${style}` });
    button.addEventListener("click", () => send(event));
    buttons.append(button);
    if (event === "restart") restart = button;
  }
  // role="status": a screen reader reads the feedback when it comes.
  const feedback = make("div", { className: "harness-feedback", role: "status" });
  const showFeedback = () => {
    feedback.innerHTML = model.get("feedback");
    // Not `hidden`: the buttons' own CSS sets their display, which would win over it.
    if (restart) restart.style.display = model.get("feedback") ? "" : "none";
  };
  model.on("change:feedback", showFeedback);
  showFeedback();
  el.classList.add("harness-exercise");
  // French for assistive tech, here and in the notebook around (its Markdown).
  el.lang = "fr";
  el.closest(".jp-Notebook")?.setAttribute("lang", "fr");
  el.append(prompt, answer, buttons, feedback);
}

export default { render };
