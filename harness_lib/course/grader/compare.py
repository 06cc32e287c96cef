"""What a learner's loop sent at each call, against what a correct loop would have sent.

A correct loop sends, at call 1, the system prompt then the mission; at call k, exactly
what it sent at call k-1, then the model's reply (RULE 1), then one result per tool call
of that reply, under its id (RULE 2); with the tool definitions each time. `first_fault`
walks the calls of a watched run and says, in French, the first place where the loop's
call differs: the context cut, reordered or not resent, a rule missing or misplaced, only
the first tool call answered, no tool definitions.

>>> from harness_lib.course.missions.spy import Sent
>>> sent = Sent([{"role": "user", "content": "Lis README.md"}], [{"type": "function"}], None)
>>> first_call(sent, "Lis README.md").split(".")[0]
'Appel 1\xa0: le prompt système manque'
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ...messages import RULE_1, RULE_2
from ...models.model import Completion
from ...text import plural
from ..missions.own_loop import Watched
from ..missions.spy import Sent
from .lines import code_line, code_only, source_line

RESEND = ("Le modèle n’a aucune mémoire : chaque appel doit lui renvoyer tout `messages[]`, "
          "depuis le prompt système, sans rien retirer ni déplacer.")


@dataclass(frozen=True)
class Fault:
    call: int  # the call (from 1) where the loop's request differs from a correct one
    text: str  # French: what differs, and how to write it


def first_fault(watched: Watched, task: str, schemas: list[dict[str, Any]],
                loop: Any) -> Fault | None:
    """The first call whose request differs from a correct loop's (None if none does)."""
    names = sorted(s["function"]["name"] for s in schemas)
    for k, sent in enumerate(watched.sends, start=1):
        if k == 1:
            text = first_call(sent, task, loop)
        elif k - 2 < len(watched.replies) and watched.replies[k - 2].tool_calls:
            text = next_call(k, watched.sends[k - 2], watched.replies[k - 2], sent, loop,
                             watched.runs.get(k - 1, 0))
        else:
            return None  # called again after the final answer: NoExit says it
        text = text or tools_sent(k, sent, names)
        if text:
            return Fault(k, _bare(text))
    return None


def _bare(text: str) -> str:
    """« Appel 2 : le contexte… » -> « Le contexte… »: the call is said by whoever shows it."""
    text = re.sub(r"^Appel \d+\s:\s", "", text)
    return text[:1].upper() + text[1:]


def first_call(sent: Sent, task: str, loop: Any = None) -> str | None:
    messages, where = sent.messages, _at(sent)
    part = _sliced(sent) or sent.held
    roles = [m.get("role") if isinstance(m, dict) else None for m in messages]
    if "system" in roles[1:]:
        return (f"Appel 1 : l’ordre des messages a changé : le prompt système doit venir en "
                f"premier, puis la mission{where}. {RESEND}")
    if part and roles[:1] != ["system"]:
        return (f"Appel 1 : votre boucle n’envoie qu’une partie de `messages[]`{where}. {RESEND}"
                " Écrivez `modele.complete(messages, definitions)`, la liste entière.")
    if roles[:1] != ["system"]:
        first = _role(messages[0]) if messages else "rien"
        return ("Appel 1 : le prompt système manque. Le premier message envoyé est "
                f"{first} ; une boucle correcte commence par "
                "`messages = [system(SYSTEM_PROMPT), user(mission)]`.")
    if not any(isinstance(m, dict) and m.get("role") == "user" and m.get("content") == task
               for m in messages):
        return ("Appel 1 : la mission n’est pas dans les messages envoyés : le modèle ne sait "
                "pas ce qu’on lui demande. Ajoutez `user(mission)` après le prompt système.")
    made = [r for r in roles if r in ("assistant", "tool", "function")]  # the model's, or a tool's
    if made:
        maker = r"tool_result\(|[\"']tool[\"']" if made[0] == "tool" else rf"[\"']{made[0]}[\"']"
        return (f"Appel 1 : votre boucle envoie {_role({'role': made[0]})} que le modèle n’a "
                f"jamais produit{code_line(loop, maker) or where} : au premier appel, il n’a "
                "encore rien répondu ni demandé. Un historique inventé fausse tout ce qu’il fera : "
                "le premier appel envoie le prompt système et la mission, rien d’autre.")
    return None


def tools_sent(k: int, sent: Sent, names: list[str]) -> str | None:
    """The tool definitions of call k: all of them, or which are missing."""
    tools = sent.tools if isinstance(sent.tools, list) else []
    given = sorted(str((t.get("function") or {}).get("name")) for t in tools
                   if isinstance(t, dict) and isinstance(t.get("function"), dict))
    if not given:
        return (f"Appel {k} : aucune définition d’outil envoyée : le modèle ne peut rien "
                "demander, il ne sait même pas qu’il peut lire un fichier. Envoyez-les à "
                "chaque appel : `modele.complete(messages, definitions)`, avec "
                "`definitions = [outil.schema() for outil in outils]`.")
    missing = [n for n in names if n not in given]
    if missing:
        return (f"Appel {k} : il manque des définitions d’outils ({', '.join(missing)}) : "
                "envoyez celles de tous les outils, `[outil.schema() for outil in outils]`.")
    return None


def next_call(k: int, before: Sent, reply: Completion, sent: Sent, loop: Any,
              ran: int | None = None) -> str | None:
    """Call k against call k-1 plus what a correct loop appends (RULE 1, then RULE 2);
    `ran`: how many tools the loop started after that reply (None: not checked)."""
    previous, now = before.messages, sent.messages
    if now[:len(previous)] != previous:
        return _context_lost(k, previous, now, reply, sent)
    added = now[len(previous):]
    return _rule_1(k, reply, added, loop) or _rule_2(k, reply, added, loop) or \
        _invented(k, reply, added, loop, ran)


def _invented(k: int, reply: Completion, added: list[Any], loop: Any,
              ran: int | None) -> str | None:
    """A message the model never sent, or a result no tool produced, among those added."""
    other = [m for m in added if isinstance(m, dict) and m.get("role") == "assistant"
             and m != reply.message]
    if other:
        return (f"Appel {k} : votre boucle ajoute un message assistant que le modèle n’a jamais "
                f"produit{source_line(loop, 'complete(')} : `messages[]` ne garde que ses "
                "vraies réponses, `messages.append(reponse.message)`.")
    got = [m.get("tool_call_id") for m in added if isinstance(m, dict) and m.get("role") == "tool"]
    unrun = got[ran:] if ran is not None else []  # more results than tools run
    if unrun:
        return (f"Appel {k} : le résultat de {unrun[0]} n’a été produit par aucun outil : votre "
                f"boucle l’a écrit elle-même{_made_at(loop)}. Exécutez chaque demande, "
                "`run_tool(read_call(appel), outils).content`, et renvoyez ce qu’elle rend.")
    return None


def _made_at(loop: Any) -> str:
    """The line that makes a result without running a tool: the one `resultat =`, else RULE 2's."""
    return code_line(loop, r"\bresultat\s*=") or code_line(loop, r"tool_result\(")


def _context_lost(k: int, previous: list[Any], now: list[Any], reply: Completion,
                  sent: Sent) -> str:
    """How the start of call k's context differs from call k-1's: dropped, moved, changed."""
    where = _at(sent)
    keys = [_key(m) for m in now]
    expected = [*previous, reply.message, *now[len(previous) + 1:]]  # the same, in order
    if Counter(keys[:len(previous)]) == Counter(map(_key, previous)) or \
            Counter(keys) == Counter(map(_key, expected)):
        turned = " : la liste est à l’envers" if now[::-1][:len(previous)] == previous else ""
        return (f"Appel {k} : l’ordre des messages a changé{turned}. Le premier envoyé est "
                f"{_role(now[0])} au lieu du prompt système{where}. {RESEND}")
    kept = sum(1 for m in previous if _key(m) in set(keys))
    if kept < len(previous) and (len(now) <= 2 or _sliced(sent) or sent.held):
        return (f"Appel {k} : votre boucle n’envoie que {plural(len(now), 'message')}, les "
                "derniers, "
                f"au lieu de tout `messages[]` ({len(previous)} messages déjà envoyés à "
                f"l’appel {k - 1}, plus la réponse et les résultats){where}. {RESEND}")
    i = next((i for i, (a, b) in enumerate(zip(previous, now, strict=False)) if a != b), len(now))
    if i >= len(now):
        return (f"Appel {k} : les derniers messages de l’appel {k - 1} ne sont plus envoyés "
                f"(à partir du message {i}){where}. {RESEND}")
    old, new = previous[i], now[i]
    if _shorter(old, new):
        return (f"Appel {k} : le message {i} ({_role(old)}) est raccourci : "
                f"{len(new['content'])} caractères au lieu de {len(old['content'])}{where}. "
                f"{RESEND}")
    if i + 1 < len(previous) and new == previous[i + 1]:
        return (f"Appel {k} : le message {i} de l’appel {k - 1} ({_role(old)}) a été retiré "
                f"de `messages[]`{where}. {RESEND}")
    return (f"Appel {k} : le message {i} ({_role(old)}) n’est plus celui de l’appel {k - 1} : "
            f"votre boucle l’a modifié ou remplacé{where}. {RESEND}")


def _rule_1(k: int, reply: Completion, added: list[Any], loop: Any) -> str | None:
    """The model's reply, appended as is, before its results."""
    if reply.message in added:
        before = added[:added.index(reply.message)]
        if not any(isinstance(m, dict) and m.get("role") == "tool" for m in before):
            return None
        line = code_line(loop, r"\.append\(\s*\w+\.message\s*\)")
        return (f"Appel {k} : la ligne RULE 1 est à la mauvaise place : la réponse du "
                f"modèle est ajoutée après ses résultats{line}. La demande doit précéder ses "
                "résultats : placez `messages.append(reponse.message)` juste après l’appel au "
                "modèle, avant la boucle sur les outils.")
    copied = any(isinstance(m, dict) and m.get("role") == "assistant" for m in added)
    after = source_line(loop, "complete(")
    if copied:
        return (f"Appel {k} : le message assistant ajouté n’est pas celui du modèle (ses "
                "`tool_calls` manquent ou diffèrent) : la règle 1 veut la réponse telle quelle, "
                f"`messages.append(reponse.message)`{after}.")
    return (f"Appel {k} : la ligne RULE 1 manque ({RULE_1.name} : {RULE_1.says}) : la réponse du "
            f"modèle à l’appel {k - 1}, celle qui porte `tool_calls`, n’est pas dans "
            f"`messages[]`. Ajoutez `{RULE_1.code}` {RULE_1.where}{after}.")


def _rule_2(k: int, reply: Completion, added: list[Any], loop: Any) -> str | None:
    """One result per tool call of the reply, each under the call's own id."""
    asked = [str(c.get("id")) for c in reply.tool_calls]
    got = [m.get("tool_call_id") for m in added if isinstance(m, dict) and m.get("role") == "tool"]
    line = code_line(loop, r"tool_result\(")
    if not got:
        stays = "reste" if len(asked) == 1 else "restent"
        return (f"Appel {k} : la ligne RULE 2 manque ({RULE_2.name} : {RULE_2.says}) : "
                f"{_count(len(asked))} de l’appel {k - 1} ({', '.join(asked)}) {stays} sans "
                f"résultat dans `messages[]`. Ajoutez `{RULE_2.code}` {RULE_2.where}.")
    strangers = [g for g in got if g not in asked]
    if strangers:
        return (f"Appel {k} : un résultat porte l’identifiant {strangers[0]!r}, qui n’est celui "
                f"d’aucune demande ({', '.join(asked)}){line} : écrivez "
                "`tool_result(appel[\"id\"], resultat)`, l’identifiant de la demande.")
    twice = [i for i, n in Counter(got).items() if n > 1]
    if twice:
        return (f"Appel {k} : deux résultats répondent à {twice[0]}{line} : chaque demande "
                "reçoit un seul résultat, sous son propre identifiant.")
    missing = [a for a in asked if a not in got]
    if missing and got == asked[:1]:
        n = len(asked)
        said = "trois demandes, trois résultats" if n == 3 else f"{n} demandes, {n} résultats"
        loop_line = code_line(loop, r"tool_calls\s*\[\s*0\s*\]")
        return (f"Appel {k} : seule la première demande est traitée. Le modèle a demandé "
                f"{n} outils dans le même tour ({', '.join(asked)}) ; votre boucle n’a renvoyé "
                f"que le résultat de {asked[0]}{loop_line}. {said.capitalize()} : parcourez-les "
                "toutes, `for appel in reponse.tool_calls:`.")
    if missing:
        stays = "reste" if len(missing) == 1 else "restent"
        return (f"Appel {k} : {', '.join(missing)} {stays} sans résultat : chaque demande "
                "du tour reçoit le sien (la règle 2), `for appel in reponse.tool_calls:`.")
    return None


def _sliced(sent: Sent) -> bool:
    """Whether the call's line sends a slice of the list (`messages[-1:]`, `messages[1:]`)."""
    return bool(sent.line and re.search(r"complete\(\s*(messages=)?\w+\s*\[", sent.line[1]))


def _at(sent: Sent) -> str:
    return f" (ligne {sent.line[0]} : `{code_only(sent.line[1])}`)" if sent.line else ""


def _count(n: int) -> str:
    return "la demande d’outil" if n == 1 else f"les {n} demandes d’outil"


def _role(message: Any) -> str:
    if isinstance(message, dict) and isinstance(message.get("role"), str):
        return f"un message {message['role']}"
    return f"un objet {type(message).__name__}"


def _key(message: Any) -> str:
    """A message as text, to count the same ones in two lists (order aside)."""
    return json.dumps(message, sort_keys=True, default=repr, ensure_ascii=False)


def _shorter(old: Any, new: Any) -> bool:
    return isinstance(old, dict) and isinstance(new, dict) and \
        isinstance(old.get("content"), str) and isinstance(new.get("content"), str) and \
        len(new["content"]) < len(old["content"]) and old["content"].startswith(new["content"])
