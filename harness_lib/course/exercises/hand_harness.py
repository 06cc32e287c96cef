"""Be the harness for a whole mission: call the model, run its tools, append, call again.

`HandHarness(workspace)` gives you a workspace, its tools and a checker. You keep
messages[] yourself, and do by hand what the loop does:

    reponse = harness.call(messages)                  # the model's next message
    messages.append(reponse.message)                  # RULE 1
    resultat = harness.read_file("README.md")         # you run the tool it asked for
    messages.append(tool_result("call_1", resultat))  # RULE 2, then call again

Before each call, `check(messages)` compares messages[] with what happened (the model's
replies, the tools you ran and what they returned) and says, step by step, what is there
and what is missing. send() then draws the conversation: the diagram grows with yours.

>>> from harness_lib.messages import system, tool_result, user
>>> harness = HandHarness("mini")
>>> messages = [system("Tu es un agent."), user("Lis README.md et résume le projet")]
>>> reponse = harness.call(messages, show=False)
>>> [f.ok for f in harness.check(messages)]  # RULE 1 not done, read_file not run
[False, False]
>>> messages.append(reponse.message)
>>> messages.append(tool_result("call_1", harness.read_file("README.md")))
>>> [f.ok for f in harness.check(messages)], harness.call(messages, show=False).tool_calls
([True, True], [])
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from ...errors import HarnessError
from ...messages import ToolCall, read_call
from ...models.model import Completion
from ...tools.builtin import workspace_tools
from ...tools.tool import ERROR, run_tool
from ..missions.tasks import example_workspace
from ..playground.sending import send
from .french import kind
from .hand_checks import api_verdict, asked, misplaced, rule_1
from .tool_message import Feedback, feedback_html


def _whole(n: object) -> object:
    """A call's number as typed: "1" or 1.0 mean 1; anything else is left as it is."""
    if isinstance(n, str) and n.strip().isdecimal() and len(n.strip()) < 10:
        return int(n.strip())
    return int(n) if isinstance(n, float) and n.is_integer() and abs(n) < 1e9 else n


class TourError(HarnessError):
    """A tour that cannot be played as written: shown as its French explanation alone."""

    def _render_traceback_(self) -> list[str]:  # IPython shows these lines, no traceback
        return [f"✘ {self.explication}"]


@dataclass(frozen=True)
class ToolRun:
    """A tool you ran by hand, and what it returned."""

    name: str
    arguments: dict[str, Any]
    result: str


class HandHarness:
    """A workspace, its tools, and a record of what the model asked and what you ran."""

    def __init__(self, workspace: str = "docs") -> None:
        self.folder = example_workspace(workspace)  # a fresh copy: edit it freely
        self.tools = workspace_tools(self.folder)
        self.replies: list[Completion] = []
        self.runs: list[ToolRun] = []
        self.sent: list[tuple[list[Any], int]] = []  # each call: messages[] sent, tools run

    def call(self, messages: object, show: bool = True) -> Completion | HarnessError:
        """Check messages[], then send it with the tool definitions (never raises)."""
        if show:
            from IPython.display import HTML, display

            display(HTML(feedback_html(self.check(messages))))
        result = send(messages, [tool.schema() for tool in self.tools], show=show)
        if isinstance(result, Completion):
            self.replies.append(result)
            self.sent.append((copy.deepcopy(messages), len(self.runs)))
        return result

    def turn(self, n: int) -> tuple[list[Any], Completion]:
        """Back to just after call `n`: a copy of messages[] as it was sent, and the reply.

        A tour cell starts with it, so that it can be run again and again: what came after
        call `n` (later calls, tools run since) is forgotten.
        """
        n = _whole(n)  # turn("1") is turn(1)
        if not isinstance(n, int) or isinstance(n, bool):
            raise TourError("turn", explication=(
                f"turn attend le numéro d’un appel, un entier comme 1 ou 2, pas "
                f"{kind(n)} : écrivez par exemple harness.turn(1)."))
        if not 1 <= n <= len(self.replies):
            done = len(self.replies)
            said = "n’a pas encore répondu" if not done else \
                f"n’a répondu que {'une fois' if done == 1 else f'{done} fois'}"
            raise TourError(f"turn {n}", explication=(
                f"L’appel {n} n’a pas eu lieu : le modèle {said} (un appel refusé par l’API ne "
                "compte pas). Relancez les tours précédents, dans l’ordre, "
                "jusqu’à ce que l’API accepte messages[]."))
        messages, runs = self.sent[n - 1]
        self.replies, self.sent, self.runs = self.replies[:n], self.sent[:n], self.runs[:runs]
        return copy.deepcopy(messages), self.replies[-1]

    def request(self, reply: Completion) -> dict[str, Any]:
        """The tool call `reply` asks for; if it asks none, a French explanation, not an
        IndexError (a tour played differently may have led the model to answer already)."""
        if not isinstance(reply, Completion):
            raise TourError("request", explication=(
                f"request attend une réponse du modèle (ce que rend harness.call), pas "
                f"{kind(reply)} : si l’API a refusé l’appel, corrigez messages[] et rappelez "
                "le modèle."))
        if reply.tool_calls:
            return reply.tool_calls[0]
        n = next((i for i, r in enumerate(self.replies, 1) if r is reply), len(self.replies))
        raise TourError("no tool call", explication=(
            f"L’appel {n} ne demande aucun outil : le modèle a déjà donné sa réponse finale, "
            "d’après ce que messages[] lui a apporté. Il n’y a rien à exécuter à ce tour. Si "
            "vous avez changé un tour précédent (un autre fichier, un autre résultat), c’est "
            "l’effet de ce changement : relancez ce tour avec les gestes d’origine, puis les "
            "suivants, dans l’ordre."))

    def run(self, name: str, /, **arguments: Any) -> str:
        """Run one tool yourself, as the harness would; its result is text, errors included.
        (`name` is positional only: an argument called `name` or `self` still reaches the tool.)"""
        if not isinstance(name, str):  # the tools' own checks say everything else
            return (f"{ERROR}le nom de l’outil doit être un texte, comme \"read_file\", pas "
                    f"{kind(name)}.")
        result = run_tool(ToolCall(name, arguments, "manuel"), self.tools).content
        self.runs.append(ToolRun(name, arguments, result))
        return result

    def read_file(self, path: str) -> str:
        return self.run("read_file", path=path)

    def list_files(self, path: str = ".") -> str:
        return self.run("list_files", path=path)

    def execute(self, call: dict[str, Any]) -> str:
        """Run a tool call exactly as the model wrote it (its name and arguments)."""
        request = read_call(call)  # never raises: unreadable arguments count as none
        return self.run(str(request.name), **(request.arguments or {}))

    @property
    def done(self) -> bool:
        """The model has given its final answer (a reply without tool calls)."""
        return bool(self.replies) and not self.replies[-1].tool_calls

    def check(self, messages: object) -> list[Feedback]:
        """Each step so far, ✔ or ✘, with what is missing; last, what the API would refuse
        (so that no list of ✔ is followed by a refusal). Never raises."""
        if not isinstance(messages, list):
            return [Feedback(False, "messages", "messages[] doit être une liste de messages.")]
        try:
            return self._steps(messages) + api_verdict(messages)
        except Exception:  # an object that refuses to be read (its == or str() raises)
            odd = next((i for i, m in enumerate(messages) if not isinstance(m, dict)), None)
            where = f"messages[{odd}] est {kind(messages[odd])}" if odd is not None else \
                "un message contient une valeur que Python ne sait pas lire"
            return [Feedback(False, "messages", f"Vérification impossible : {where}. Chaque "
                             "message est un dict, comme user(\"…\") ou tool_result(…) en "
                             "donnent.")]

    def _steps(self, messages: list[Any]) -> list[Feedback]:
        if not self.replies:
            asked = any(isinstance(m, dict) and m.get("role") == "user" for m in messages)
            return [Feedback(asked, "mission", "messages[] contient la mission : appelez le "
                             "modèle." if asked else "Ajoutez la mission à messages[] (role "
                             "user) avant d’appeler le modèle.")]
        reply = self.replies[-1]
        if not reply.tool_calls:
            return [Feedback(True, "fin", "Le modèle a répondu sans demander d’outil : la "
                             "mission est terminée, il n’y a plus rien à exécuter.")]
        return [rule_1(messages, reply, len(self.replies)),
                *(item for call in reply.tool_calls
                  for item in self._answer(messages, call, reply))]

    def _answer(self, messages: list[Any], call: dict[str, Any],
                reply: Completion) -> list[Feedback]:
        """Was the call run as asked, and its result appended under its id, unchanged?"""
        name, arguments, call_id = asked(call)
        shown = f"{call_id} : {name}({json.dumps(arguments, ensure_ascii=False)})"
        run = next((r for r in reversed(self.runs) if (r.name, r.arguments) == (name, arguments)),
                   None)
        if run is None:
            other = next((r for r in reversed(self.runs) if r.name == name), None)
            wrong = (f" Vous avez exécuté {name}({json.dumps(other.arguments)}), pas ces "
                     "arguments-là." if other else "")
            return [Feedback(False, "outil", f"{shown} n’a pas encore été exécuté.{wrong} "
                             "Exécutez-le, par exemple avec harness.execute(appel).")]
        results = [m for m in messages if isinstance(m, dict) and m.get("role") == "tool"]
        mine = next((m for m in results if m.get("tool_call_id") == call_id), None)
        if mine is None:
            stray = next((m for m in results if m.get("content") == run.result), None)
            why = (f"le résultat de {name} porte tool_call_id {stray.get('tool_call_id')!r}, "
                   f"la demande s’appelle {call_id!r}" if stray else "aucun message tool "
                   f"ne répond à {call_id} (règle 2)")
            return [Feedback(False, "règle 2", f"{shown} a été exécuté, mais {why}. Ajoutez "
                             f"tool_result({call_id!r}, resultat).")]
        where = misplaced(messages, mine, reply, call_id)
        if where:
            return [Feedback(False, "règle 2", f"{shown} a été exécuté et son résultat est dans "
                             f"messages[], mais {where}")]
        if mine.get("content") != run.result:
            return [Feedback(False, "règle 2", f"Le résultat de {call_id} n’est pas ce que {name} "
                             "a renvoyé : renvoyez-le tel quel, erreur comprise, sans rien "
                             "inventer.")]
        return [Feedback(True, "règle 2", f"{shown} exécuté, son résultat ajouté sous {call_id}.")]
