"""The chapter's loop in a dozen lines: read it first, then loop.py.

`boucle` keeps what the chapter's loop cannot do without, and nothing else: one list,
`messages`, its two appends (RULE 1, RULE 2), the exit (EXIT) and a limit of turns.
No budget, no permission, no trace: loop.py adds those around the same lines. Its
names are the ones a learner types in notebook 08, where it is the corrigé; the
grader compares each learner's calls with what it would send, and the incidents
`missing-call` and `missing-result` are this very loop with one marked line deleted.

>>> from harness_lib import MockModel, workspace_tools
>>> from harness_lib.course.missions.tasks import example_workspace
>>> outils = workspace_tools(example_workspace("mini"))
>>> messages = boucle("Lis README.md et résume le projet", MockModel(), outils)
>>> [m["role"] for m in messages]
['system', 'user', 'assistant', 'tool', 'assistant']
"""

from __future__ import annotations

from .messages import SYSTEM_PROMPT, Message, read_call, system, tool_result, user
from .models.model import Model
from .tools.tool import Tool, run_tool

__all__ = ["boucle"]


def boucle(mission: str, modele: Model, outils: list[Tool], max_tours: int = 15) -> list[Message]:
    messages = [system(SYSTEM_PROMPT), user(mission)]
    definitions = [outil.schema() for outil in outils]
    for _ in range(max_tours):                                  # la limite de tours
        reponse = modele.complete(messages, definitions)        # appeler le modèle
        messages.append(reponse.message)                        # RULE 1
        if not reponse.tool_calls:                              # EXIT
            return messages
        for appel in reponse.tool_calls:
            resultat = run_tool(read_call(appel), outils).content  # exécuter l'outil
            messages.append(tool_result(appel["id"], resultat))  # RULE 2
    return messages                                             # plus de tours : on rend la main
