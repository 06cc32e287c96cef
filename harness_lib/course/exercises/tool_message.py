"""Check the tool message a learner writes when playing the harness.

The model asked read_file("README.md") with the id call_1, and the file is absent.
`check_tool_message` checks, field by field, the message to append to messages[]:
role, tool_call_id, content (the error, and nothing invented), no extra field.
exercises.py shows its verdicts in a widget.

>>> solution = '{"role": "tool", "tool_call_id": "call_1", "content": "Erreur : README.md absent"}'
>>> all(feedback.ok for feedback in check_tool_message(solution))
True
>>> wrong = check_tool_message(solution.replace('"tool"', '"user"'))
>>> [(f.field, f.ok) for f in wrong]
[('role', False), ('tool_call_id', True), ('content', True), ('invention', True), ('champs', True)]
>>> print(wrong[0].text)
role vaut "user" : ce serait la personne qui parle, et call_1 resterait sans réponse. Le harness \
renvoie le résultat de l’outil avec role "tool".
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...text import shorten

ALLOWED = ("role", "tool_call_id", "content")  # the whole of a tool message
ERROR_WORDS = ("erreur", "introuvable", "absent", "n’existe pas", "inexistant", "manquant",
               "pas trouvé", "impossible", "échec", "échoué", "error", "not found", "no such",
               "missing", "failed")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s", re.MULTILINE)  # "# Mini harness": a file, not an error
INVENTED = ("Le modèle ne doit pas recevoir un contenu inventé : {file} n’existe pas, il n’y a "
            "rien à résumer. Avec ce texte, le modèle résumerait un fichier imaginaire ({why}).")
JSON_HINTS = {  # json's English messages, said in French with the usual cause
    "Expecting property name": "nom de champ attendu entre guillemets doubles \"…\" (les "
    "guillemets simples et la virgule avant } ne sont pas du JSON)",
    "Illegal trailing comma": "virgule en trop avant } ou ]",
    "Expecting value": "valeur attendue : \"texte\", nombre, null, true ou false (None, True "
    "et les guillemets simples viennent de Python, pas de JSON)",
    "Expecting ',' delimiter": "virgule attendue entre deux champs",
    "Expecting ':' delimiter": "deux-points attendus après le nom du champ",
    "Unterminated string": "chaîne jamais fermée : il manque un guillemet \"",
    "Invalid control character": "retour à la ligne dans une chaîne : écrivez \\n",
    "Extra data": "texte en trop après la fin du message }",
    "Invalid \\escape": "barre oblique inverse seule : écrivez \\\\",
}
# The exercise's data: the model's request, the skeleton the learner fills, a solution.
REQUEST = {"role": "assistant", "content": None, "tool_calls": [{
    "id": "call_1", "type": "function",
    "function": {"name": "read_file", "arguments": "{\"path\": \"README.md\"}"}}]}
SKELETON = '{\n  "role": "",\n  "tool_call_id": "",\n  "content": ""\n}'
SOLUTION = {"role": "tool", "tool_call_id": "call_1", "content": "Erreur : README.md introuvable"}
FIELD_HINTS = {"tool_calls": "il appartient au message assistant",
               "id": "le résultat reprend l’identifiant dans tool_call_id",
               "name": "tool_call_id suffit à relier le résultat à sa demande"}


@dataclass(frozen=True)
class Feedback:
    """One verdict: `field` checked, `ok` or not, and why (French)."""

    ok: bool
    field: str
    text: str


def check_tool_message(candidate: object, call_id: str = "call_1",
                       file: str = "README.md") -> list[Feedback]:
    """Check the tool message answering `call_id` when `file` is absent. Never raises."""
    message = _parse(candidate)
    if isinstance(message, Feedback):
        return [message]
    return [_role(message.get("role")), _call_id(message, call_id),
            *_content(message, file), _fields(message)]


def _parse(candidate: object) -> dict[Any, Any] | Feedback:
    """The message as a dict, or the Feedback saying why it is not one."""
    if isinstance(candidate, str):
        if not candidate.strip():
            return Feedback(False, "json", "La cellule est vide : écrivez le message en JSON.")
        try:
            candidate = json.loads(candidate)
        except json.JSONDecodeError as err:
            why = next((fr for en, fr in JSON_HINTS.items() if err.msg.startswith(en)), err.msg)
            curly = " Remplacez les guillemets “ ” par des guillemets droits \"." if re.search(
                "[“”«»]", err.doc[:err.pos + 1]) else ""
            return Feedback(False, "json", f"JSON invalide, ligne {err.lineno}, colonne "
                            f"{err.colno} : {why}.{curly}")
        except RecursionError:
            return Feedback(False, "json", "JSON illisible : trop de [ ou de { imbriqués.")
    if isinstance(candidate, dict):
        return candidate
    hint = " Retirez les crochets [ ] : un seul message." if isinstance(candidate, list) else ""
    return Feedback(False, "message", "Un message est un objet {\"role\": …, …}, pas "
                    f"{_kind(candidate)}.{hint}")


def _role(role: object) -> Feedback:
    if role == "tool":
        return Feedback(True, "role", "role vaut \"tool\" : c’est le résultat d’un outil.")
    who = {"assistant": "ce message ferait parler le modèle", "user": "ce serait la personne "
           "qui parle, et call_1 resterait sans réponse", "system": "ce serait une consigne"}
    said = who.get(role, "ce rôle ne répond pas à une demande d’outil") if isinstance(
        role, str) else "le champ manque ou n’est pas un texte"
    return Feedback(False, "role", f"role vaut {_show(role)} : {said}. Le harness renvoie le "
                    "résultat de l’outil avec role \"tool\".")


def _call_id(message: dict[Any, Any], call_id: str) -> Feedback:
    found = message.get("tool_call_id")
    if found == call_id:
        return Feedback(True, "tool_call_id", f"tool_call_id vaut \"{call_id}\" : le résultat "
                        "est relié à sa demande.")
    if "tool_call_id" not in message:
        return Feedback(False, "tool_call_id", "Il manque tool_call_id : sans lui, l’API ne sait "
                        f"pas à quelle demande ce résultat répond. Écrivez \"{call_id}\".")
    near = isinstance(found, str) and found.strip().lower() == call_id.lower()
    why = ("presque : un identifiant se recopie exactement, caractère par caractère"
           if near else "ce n’est pas l’identifiant de la demande du modèle")
    return Feedback(False, "tool_call_id", f"tool_call_id vaut {_show(found)} : {why}. "
                    f"Attendu : \"{call_id}\", l’id de la demande à laquelle on répond.")


def _content(message: dict[Any, Any], file: str) -> list[Feedback]:
    content = message.get("content")
    if not isinstance(content, str):
        said = "manque" if "content" not in message else f"vaut {_show(content)}"
        return [Feedback(False, "content", f"content {said} : il faut un texte, celui que le "
                         f"modèle lira. Écrivez l’erreur, par exemple « Erreur : {file} "
                         "introuvable ».")]
    lowered = content.lower().replace("'", "’")  # as ERROR_WORDS write it
    missing = [what for what, present in (
        (f"le nom du fichier ({file})", file.lower() in lowered),
        ("un mot d’erreur (erreur, introuvable…)", any(w in lowered for w in ERROR_WORDS)))
        if not present]
    reports = Feedback(not missing, "content", "content signale l’erreur : le modèle pourra "
                       "chercher ailleurs ou expliquer l’échec." if not missing else
                       f"content doit dire ce qui s’est passé ; il manque {' et '.join(missing)}.")
    return [reports, _invention(content, lowered, file)]


def _invention(content: str, lowered: str, file: str) -> Feedback:
    why = ("un titre markdown « # … »" if HEADING.search(content) else
           "le texte du vrai README" if "mini harness" in lowered else
           "un long texte qui se fait passer pour le fichier" if len(content) > 200 else "")
    if why:
        return Feedback(False, "invention", INVENTED.format(file=file, why=why))
    return Feedback(True, "invention", "Aucun contenu inventé : seulement ce qui s’est passé.")


def _fields(message: dict[Any, Any]) -> Feedback:
    extra = [key for key in message if key not in ALLOWED]
    if not extra:
        return Feedback(True, "champs", "Pas de champ en trop.")
    named = ", ".join(f"{key} ({FIELD_HINTS[key]})" if key in FIELD_HINTS else str(key)
                      for key in extra)
    return Feedback(False, "champs", f"Champs en trop : {named}. Un message tool n’a que role, "
                    "tool_call_id et content.")


def _show(value: object) -> str:
    """A value as the learner wrote it in JSON, shortened."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return shorten(text, 60)


def _kind(value: object) -> str:
    kinds = {type(None): "null", bool: "un booléen", int: "un nombre", float: "un nombre",
             list: "une liste", str: "un texte"}
    return kinds.get(type(value), f"un objet Python {type(value).__name__}")


def feedback_html(items: Sequence[Feedback]) -> str:
    """The verdicts as an HTML list, ✔ or ✘ in front of each field."""
    rows = "".join(f"<li>{'✔' if f.ok else '✘'} <b>{html.escape(f.field)}</b> : "
                   f"{html.escape(f.text)}</li>" for f in items)
    return f'<ul style="list-style:none;padding-left:0">{rows}</ul>'
