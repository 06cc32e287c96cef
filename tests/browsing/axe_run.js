// axe-core on each of the course's outputs, one at a time, scrolled into view (axe
// measures contrast only where an element is on screen): the violations, and how many
// elements passed the contrast check (tests/test_accessibility.py).
async ([include, tags]) => {
  const seen = { checked: 0, outputs: 0, violations: [] };
  for (const output of document.querySelectorAll(include)) {
    output.scrollIntoView({ block: "start" });
    const found = await axe.run(output, { runOnly: { type: "tag", values: tags } });
    const contrast = found.passes.find((p) => p.id === "color-contrast");
    seen.checked += contrast ? contrast.nodes.length : 0;
    seen.outputs += 1;
    seen.violations.push(...found.violations.flatMap((v) => v.nodes.map((n) => ({
      id: v.id, impact: n.impact || v.impact, help: v.help,
      where: `${n.target.join(" ")} (${n.html.slice(0, 120)}) in `
             + `${output.firstElementChild?.className} : ${n.failureSummary}` }))));
  }
  return seen;
}
