// axe-core on the course's outputs, a screenful at a time: axe measures contrast only where
// an element is on screen (not clipped by the notebook's scroller), so each run takes the
// first output not yet checked, scrolled to the top of the scroller, and every output after
// it that is whole on screen with it. Returns the violations, how many outputs and runs, and
// how many elements passed the contrast check (tests/browsing/axe.py).
async ([include, tags]) => {
  const seen = { checked: 0, outputs: 0, runs: 0, violations: [] };
  const outputs = [...document.querySelectorAll(include)];
  const where = (target) => document.querySelector(target)
    ?.closest(".jp-OutputArea-output")?.firstElementChild?.className;
  for (let i = 0; i < outputs.length;) {
    outputs[i].scrollIntoView({ block: "start" });
    const scroller = outputs[i].closest(".jp-WindowedPanel-outer") ?? document.documentElement;
    const view = scroller.getBoundingClientRect();
    const batch = [outputs[i]];
    while (i + batch.length < outputs.length) {
      const box = outputs[i + batch.length].getBoundingClientRect();
      if (box.top < view.top || box.bottom > Math.min(view.bottom, innerHeight)) break;
      batch.push(outputs[i + batch.length]);
    }
    const found = await axe.run({ include: batch }, { runOnly: { type: "tag", values: tags } });
    const contrast = found.passes.find((p) => p.id === "color-contrast");
    seen.checked += contrast ? contrast.nodes.length : 0;
    seen.outputs += batch.length;
    seen.runs += 1;
    seen.violations.push(...found.violations.flatMap((v) => v.nodes.map((n) => ({
      id: v.id, impact: n.impact || v.impact, help: v.help,
      where: `${n.target.join(" ")} (${n.html.slice(0, 120)}) in `
             + `${where(n.target[0])} : ${n.failureSummary}` }))));
    i += batch.length;
  }
  return seen;
}
