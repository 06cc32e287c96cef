"""The course's JupyterLab plugin (jupyter-config/labextension) checked in a page where a
notebook is open: in Lab, in Notebook 7 and in the site.

    check_editor_styles(notebook)   # asserts; a new cell is added to the notebook (not saved)
"""

from __future__ import annotations

from browsing.chromium import RUN_TIMEOUT_MS
from browsing.notebook import Notebook

PLUGIN = "harness-lib:editor-styles"

# What the page holds once an editor is made: the plugin active, CodeMirror's one <style>
# marked by it, its rules applied (CodeMirror's base theme makes each editor a flex box).
STATE = """(plugin) => {
  const tags = [...document.querySelectorAll('style[data-harness-lib]')];
  const editor = document.querySelector('.cm-editor');
  return {active: window.jupyterapp.isPluginActivated(plugin), marked: tags.length,
          rules: tags.length === 1 && tags[0].textContent.includes('.cm-'),
          flex: !!editor && getComputedStyle(editor).display === 'flex'};
}"""

# A new cell makes a new editor, which writes CodeMirror's style text again, the same text:
# the page keeps its style sheet (without the plugin, the write makes a new one).
NEW_EDITOR = """async () => {
  const tag = document.querySelector('style[data-harness-lib]'), sheet = tag.sheet;
  const editors = document.querySelectorAll('.cm-editor').length;
  await window.jupyterapp.commands.execute('notebook:insert-cell-below');
  const deadline = performance.now() + 30000;
  while (document.querySelectorAll('.cm-editor').length === editors) {
    if (performance.now() > deadline) return {made: false};
    await new Promise((done) => requestAnimationFrame(done));
  }
  return {made: true, kept: tag.sheet === sheet};
}"""

# Any other text still goes through: a new sheet, with the new text.
NEW_TEXT = """() => {
  const tag = document.querySelector('style[data-harness-lib]'), sheet = tag.sheet;
  tag.textContent = tag.textContent + '\\n.harness-lib-test { color: inherit; }';
  return {replaced: tag.sheet !== sheet,
          read: [...tag.sheet.cssRules].some((r) => r.selectorText === '.harness-lib-test')};
}"""


def check_editor_styles(notebook: Notebook) -> None:
    page = notebook.page
    # CodeMirror's <style> comes with the first editor; the plugin marks it at once.
    page.wait_for_function("() => !!document.querySelector('.cm-editor')", timeout=RUN_TIMEOUT_MS)
    assert page.evaluate(STATE, PLUGIN) == {"active": True, "marked": 1, "rules": True,
                                            "flex": True}
    notebook.cell(0).click()  # a cell selected: the new one goes below it
    assert page.evaluate(NEW_EDITOR) == {"made": True, "kept": True}
    assert page.evaluate(NEW_TEXT) == {"replaced": True, "read": True}
