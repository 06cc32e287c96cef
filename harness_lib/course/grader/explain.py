"""A learner's Python error, or the cut that stopped their loop, said in French.

Each explanation names what happened, the learner's own line when the error went
through it (« ligne 7 : `…` », counted as in their cell), and how to fix it. No
internal name of the grader is shown, and a huge message is cut.

>>> try:
...     reponse = None
...     reponse.tool_calls
... except AttributeError as err:
...     text = crash_text(err, set())
>>> text.startswith("AttributeError") and "`None` n’a pas d’attribut `tool_calls`" in text
True
"""

from __future__ import annotations

import difflib
import re
import traceback
from typing import Any

from ...models.model import Completion
from ...text import french_number, plural, shorten
from ...tools.tool import Observation
from ..missions.guard import Guard, Quit, TimeUp
from ..missions.logbook import NoExit, TooManyCalls
from ..missions.spy import CallError, LoopModel, Sealed
from .lines import code_only
from .seal import Tampered

LIMIT = 300  # characters of an exception's own message shown (a huge one is cut)


def safe_text(error: BaseException) -> str:
    """str(error), cut to LIMIT characters; a __str__ that fails is said so."""
    try:
        text = str(error)
    except Exception:  # an exception class of the learner's own, whose __str__ fails
        text = "(message illisible)"
    return shorten(text if isinstance(text, str) else "(message illisible)", LIMIT)


def where(error: BaseException, files: set[str]) -> str:
    """« (ligne 7 : `…`) »: the learner's last line the error went through, if any."""
    try:
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename in files]
    except Exception:
        return ""
    if not frames:
        return ""
    text = f" : `{shorten(code_only(frames[-1].line), 120)}`" if frames[-1].line else ""
    return f" (ligne {frames[-1].lineno}{text})"


def crash_text(error: BaseException, files: set[str]) -> str:
    """The French explanation of an exception the loop raised."""
    at = where(error, files)
    if isinstance(error, Sealed):
        return f"AttributeError{at} : {safe_text(error)}"  # not its own name, Sealed
    if isinstance(error, CallError):
        return f"Appel au modèle mal écrit{at} : {error}"
    if isinstance(error, SystemExit):
        return f"Votre boucle a appelé `exit()`{at} : elle doit rendre `messages`, pas quitter."
    # The first kind in this order that the error is (RecursionError is a RuntimeError).
    for kind, say in KINDS:
        if isinstance(error, kind):
            return f"{type(error).__name__}{at} : {say(error)}"
    return f"Votre boucle a levé {type(error).__name__}{at} : {safe_text(error)}"


def _close(error: NameError) -> str:
    """« Vouliez-vous écrire `reponse` ? », from the names the failing line could see."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    seen = [*tb.tb_frame.f_locals, *tb.tb_frame.f_globals] if tb is not None else []
    close = difflib.get_close_matches(str(error.name), [s for s in seen if isinstance(s, str)],
                                      n=1)
    return (f" Vouliez-vous écrire `{close[0]}` ?" if close else
            " Une faute de frappe, ou une variable utilisée avant d’être définie ?")


def _attribute(error: AttributeError) -> str:
    name, obj = getattr(error, "name", None), getattr(error, "obj", None)
    if name is None:  # from `object.__setattr__` and co: Python names nothing
        return f"cet attribut n’existe pas ou ne peut pas être modifié ({safe_text(error)})."
    if isinstance(obj, LoopModel):
        return (f"le modèle n’a pas d’attribut `{name}` : on l’appelle avec "
                "`modele.complete(messages, definitions)`.")
    if isinstance(obj, Completion):
        return (f"la réponse du modèle n’a pas d’attribut `{name}` : le message à garder est "
                "`reponse.message`, ses demandes d’outil `reponse.tool_calls`.")
    if isinstance(obj, Observation):
        return (f"un résultat d’outil (une Observation) n’a pas d’attribut `{name}` : son texte "
                "est `.content`, `run_tool(read_call(appel), outils).content`.")
    if obj is None and name is not None:
        return (f"`None` n’a pas d’attribut `{name}` : cette variable vaut None ici ; une "
                "ligne à compléter, ou une fonction qui ne rend rien ?")
    return f"un objet {type(obj).__name__} n’a pas d’attribut `{name}`."


def _type_error(error: TypeError) -> str:
    text = safe_text(error)
    names = [f.name for f in traceback.extract_tb(error.__traceback__)]
    if "ellipsis" in text:
        return ("un `...` du squelette reste à remplacer : Python ne peut rien en faire. "
                "Remplacez-le par le code qu’il attend (voir le tableau).")
    if "tool_result" in names or "valid_text" in names:
        return ("`tool_result(appel[\"id\"], resultat)` attend un texte pour `resultat`. Un "
                "résultat d’outil est une Observation : prenez son texte, "
                "`run_tool(read_call(appel), outils).content`.")
    found = re.match(r"(\w+)\(\) missing (\d+) required positional arguments?: (.*)", text)
    if found:
        return f"il manque à `{found[1]}()` l’argument {found[3]}."
    found = re.match(r"(\w+)\(\) takes (\d+) positional arguments? but (\d+) (?:was|were) given",
                     text)
    if found:
        return (f"`{found[1]}()` prend {plural(int(found[2]), 'argument')}, votre appel en "
                f"donne {found[3]}.")
    if "NoneType" in text:
        return f"une valeur vaut None ici ({text}) : une ligne à compléter ?"
    return f"une opération sur une valeur du mauvais type ({text})."


KINDS: tuple[tuple[type[BaseException], Any], ...] = (
    (RecursionError, lambda e: "votre fonction s’appelle elle-même sans fin. Une boucle `for` "
                               "suffit, sans appel récursif."),
    (NameError, lambda e: f"Python ne connaît pas le nom `{e.name}`.{_close(e)}"),
    (AttributeError, lambda e: _attribute(e)),
    (TypeError, lambda e: _type_error(e)),
    (KeyError, lambda e: f"la clé {safe_text(e)} n’existe pas dans ce dictionnaire. "
                         "L’identifiant d’une demande s’écrit `appel[\"id\"]`."),
    (IndexError, lambda e: f"un indice dépasse la fin de la liste ({safe_text(e)})."),
)


def cut_text(cut: BaseException, guard: Guard | None, calls: int, files: set[str],
             limit_line: str = "") -> str:
    """Why the grader stopped the loop: no limit of turns, no EXIT, or its time limit."""
    caught = guard is not None and guard.cuts > 1
    swallowed = (" Votre boucle a ensuite rattrapé cet arrêt (`except`) et continué : le "
                 "correcteur l’a arrêtée de nouveau." if caught else "")
    if isinstance(cut, TooManyCalls):
        return (f"Votre boucle a appelé le modèle {calls} fois sans s’arrêter{limit_line} : il "
                "lui manque la limite de tours, `for _ in range(max_tours):`." + swallowed)
    if isinstance(cut, Tampered):
        names = ", ".join(f"`{n}`" for n in cut.names[:4]) + (", …" if len(cut.names) > 4 else "")
        return (f"Votre boucle a modifié le code qui la note ou qu’elle appelle ({names}) : le "
                f"correcteur a remis le sien et l’a arrêtée{where(cut, files)}. Une boucle "
                "appelle le modèle et les outils, sans rien y changer : seule `messages[]` "
                "lui appartient.")
    if isinstance(cut, Quit):
        return (f"Votre boucle a appelé `{cut.how.replace('posix', 'os')}()`{where(cut, files)}"
                " : cela aurait arrêté Python, le noyau du notebook avec lui ; le correcteur l’a "
                "arrêtée là. Une boucle ne quitte pas, elle rend `messages`.")
    if isinstance(cut, NoExit):
        return ("Le modèle a donné sa réponse finale (sans `tool_calls`), et votre boucle le "
                "rappelle : il manque EXIT, `if not reponse.tool_calls: return messages`."
                + swallowed)
    assert isinstance(cut, TimeUp)
    limit = french_number(cut.seconds)
    doing = where(cut, files)
    head = (f"Le temps total de la correction ({limit} s) est écoulé : votre boucle a été "
            "arrêtée" if cut.whole else
            f"Votre boucle tournait encore au bout de {limit} s, la limite de cette mission : "
            "le correcteur l’a arrêtée")
    waits = " (elle attendait : `time.sleep`)" if "sleep(" in doing else \
        (f", en cours{doing}" if doing else "")
    never = " sans avoir appelé le modèle" if calls == 0 else f" après {plural(calls, 'appel')}"
    return (f"{head}{never}{waits}. Une boucle qui attend, qui tourne sans appeler le modèle ou "
            "qui rattrape les erreurs pour continuer ne s’arrête jamais d’elle-même."
            + (" Elle a rattrapé l’arrêt (`except`) : le correcteur a insisté jusqu’à sa "
               "sortie." if caught else ""))
