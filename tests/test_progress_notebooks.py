"""The course's own cells, run in a kernel as a learner would (nbclient): two questions of 04
answered (one wrong, one right) through the page's click message, 08's loop written and
graded; the cells run again show the earlier answers, 04's first cell and 00's map say
what was done (issue 34)."""

from __future__ import annotations

import inspect
import os
import re
from pathlib import Path

import nbclient
import nbformat

from harness_lib import minimal_loop
from harness_lib.course.progress import read_progress

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


class Kernel:
    """One notebook's kernel: its cells run by source, the widgets' state as the page gets it."""

    def __init__(self, client: nbclient.NotebookClient, nb: nbformat.NotebookNode) -> None:
        self.client, self.nb = client, nb

    def run(self, source: str) -> nbformat.NotebookNode:
        cell = nbformat.v4.new_code_cell(source)
        self.nb.cells.append(cell)
        self.client.execute_cell(cell, len(self.nb.cells) - 1)
        return cell

    def run_cell_with(self, needle: str) -> nbformat.NotebookNode:
        """Run the notebook's own cell whose source contains `needle` (as written)."""
        source = next(c.source for c in self.nb.cells
                      if c.cell_type == "code" and needle in c.source)
        return self.run(source)

    def widget(self, cell: nbformat.NotebookNode) -> dict:
        """The state of the widget a cell displayed (its model, as the page receives it)."""
        view = next(o for o in cell.outputs if "data" in o and
                    "application/vnd.jupyter.widget-view+json" in o["data"])
        return self.client.widget_state[view["data"]["application/vnd.jupyter.widget-view+json"]
                                        ["model_id"]]

    def click(self, cell: nbformat.NotebookNode, event: str, value: object) -> None:
        """What question.js sends on a click: {event, value}, to the widget the cell showed."""
        self.run(f"Out[{cell.execution_count}]._clicked(None, "
                 f"{{'event': {event!r}, 'value': {value!r}}}, [])")


def printed(cell: nbformat.NotebookNode) -> str:
    text = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
    text += "".join(o["data"].get("text/plain", "") for o in cell.outputs if "data" in o)
    return re.sub(r"[\u202f\xa0]", " ", text)


def kernel(name: str, progress: Path):
    nb = nbformat.v4.new_notebook()
    nb.cells = nbformat.read(NOTEBOOKS / name, as_version=4).cells
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=300,
                                     store_widget_state=True,
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    env = {k: v for k, v in os.environ.items() if k not in ("OPENROUTER_API_KEY", "HARNESS_MODEL")}
    env["HARNESS_PROGRESSION"] = str(progress)
    return client, nb, env


def test_answers_come_back_and_the_map_says_what_was_done(fresh_progress: Path):
    client, nb, env = kernel("04_boucle_complete.ipynb", fresh_progress)
    with client.setup_kernel(env=env):
        four = Kernel(client, nb)
        first = four.run(next(c.source for c in nb.cells if c.cell_type == "code"))
        assert "04 La boucle complète : questions justes : 0 sur 3" in printed(first)
        bill = four.run_cell_with('question("04-facture")')
        four.click(bill, "check", "36 000")  # wrong
        calls = four.run_cell_with('question("04-appels")')
        four.click(calls, "check", 4)  # right
        assert four.widget(bill)["feedback"].startswith("<p>✘")
        # The cells run again (the next day): the earlier answers and their feedback.
        bill, calls = (four.run_cell_with(f'question("04-{n}")') for n in ("facture", "appels"))
        assert four.widget(bill)["value"] == "36 000" and four.widget(calls)["value"] == 4
        for shown, mark in ((four.widget(bill), "✘"), (four.widget(calls), "✔")):
            assert "Votre réponse enregistrée" in shown["feedback"] and mark in shown["feedback"]
            assert shown["restart_label"] == "Recommencer"
        again = four.run(next(c.source for c in nb.cells if c.cell_type == "code"))
        assert ("questions justes : 1 sur 3 ; reste : 1 question à revoir, 1 question."
                in printed(again))

    client, nb, env = kernel("08_ecrire_la_boucle.ipynb", fresh_progress)
    with client.setup_kernel(env=env):
        eight = Kernel(client, nb)
        eight.run(next(c.source for c in nb.cells if c.cell_type == "code"))
        lines = inspect.getsource(minimal_loop.boucle).splitlines()  # the corrigé, as typed
        mine = "\n".join(["def ma_boucle(mission, modele, outils, max_tours=15):", *lines[1:]])
        graded = eight.run(mine + "\n\nrapport = grade(ma_boucle)\nrapport")  # the ✏️ cell, done
        assert "5 / 5 missions réussies" in printed(graded).replace("\u202f", " ")

    client, nb, env = kernel("00_bienvenue.ipynb", fresh_progress)
    with client.setup_kernel(env=env):
        shown = printed(Kernel(client, nb).run_cell_with("progression()"))
    assert "04 La boucle complète : questions justes : 1 sur 3" in shown
    assert ("08 Écrire la boucle : exercices réussis : 1 sur 1 ; dernière correction : 5 / 5"
            in shown)
    items = read_progress(fresh_progress).items
    assert {n: items[n].correct for n in items} == {"04-facture": False, "04-appels": True,
                                                     "08-grade": True}
