"""Notebook 03's hand-played harness: the three moves a learner writes in each empty ✏️
tour, as edits of the cell's source. For tests/test_suggestions.py (nbclient) and
test_browser_practice.py (typed in Lab).

    ((old, new),) = play(1).items()   # the cell's last line, and the moves before it
"""

from __future__ import annotations

# 03's hand-played harness: its ✏️ tours start empty; each move the learner writes, here.
TOURS = {1: 'harness.read_file("README.md")', 2: 'harness.list_files(".")',
         3: 'harness.read_file("docs/README.md")'}


def play(tour: int, tool: str | None = None, rule_1: bool = True,
         call_id: str = 'demande["id"]') -> dict[str, str]:
    """The edit that writes tour `tour`'s three moves into its empty ✏️ cell of 03, before
    the call to the model; one of them changed to try the prose's « cassez-les exprès »."""
    last = f"reponse = harness.call(messages)           # appel {tour + 1}"
    moves = (("# " if not rule_1 else "") + "messages.append(reponse.message)\n"
             f"resultat = {tool or TOURS[tour]}\n"
             f"messages.append(tool_result({call_id}, resultat))\n")
    return {last: moves + last}
