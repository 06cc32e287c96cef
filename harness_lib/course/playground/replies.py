"""What `playground.send()` shows: the model's reply, or the API's refusal, as HTML.

Pure functions, no widgets: `render(result, problems)` takes what send() returns
(a Completion or an error) and the problems check_conversation found; `outputs` gives
the diagram as a `Figure` (data), which send() displays as a widget.

>>> from harness_lib.mock import check_conversation
>>> problems = check_conversation([{"role": "tool", "content": "?"}])
>>> page = render(problems[0].as_api_error(), problems)
>>> "HTTP 400" in page and "tool_call_id" in page
True
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from ...errors import ApiError, HarnessError, ModelTimeout
from ...messages import got, read_call
from ...mock.message_rules import Problem
from ...models.causes import CONTEXT, FILTER
from ...models.http_errors import ProviderError
from ...models.model import Completion
from ...text import dollars, french_number, plural, shorten
from ...tools.builtin import workspace_tools
from ..drawing.diagram import message_label, transcript
from ..missions.tasks import example_workspace
from ..player.figure import Figure
from .conversation import Mark, context_html, conversation_diagram, locate, mermaid_text
from .listing import messages_html
from .misconceptions import explain

# A coloured bar says the kind of answer, and the title says it in words.
LISTED = 20  # problems listed under a refusal; the others are counted
COLORS = {"reply": "#2e7d32", "refused": "#c62828", "failed": "#a34a00", "other": "#616161"}
# A box's own page, white whatever Lab's theme: COLORS are chosen for white (4.5:1 at least);
# under a dark theme they would sit on Lab's #111.
PAGE = "background:#fff;color:#212529"


def outputs(messages: object, tools: object, result: object,
            problems: Sequence[Problem] = ()) -> list[dict[str, str] | Figure]:
    """What send() displays: the verdict (a MIME bundle), then for a list of messages the
    conversation as a sequence diagram (a Figure, which the course draws itself:
    player/figure.py) and the context bar of what the model receives (a bundle)."""
    mark = locate(problems, result)
    shown_first = {"text/html": render(result, problems, messages, mark),
                   "text/plain": _plain(result)}
    if not isinstance(messages, (list, tuple)):
        return [shown_first]
    try:
        refused = isinstance(result, ApiError) and result.status is not None
        diagram = conversation_diagram(messages, tools, _outcome(result), refused,
                                       mark.index if mark else None)
        drawn = Figure(mermaid_text(diagram, mark), transcript(diagram), drawing_title(result))
        return [shown_first, drawn, _bar(result, diagram)]
    except Exception:  # the verdict matters most: a drawing that fails is left out
        return [shown_first]


def drawing_title(result: object) -> str:
    """The diagram's name, by its verdict: what a screen reader says of the image.

    >>> drawing_title(ApiError(400, "tool_call_id inconnu"))
    'Votre conversation, refusée par l’API\xa0: HTTP 400\xa0: tool_call_id inconnu'
    """
    if isinstance(result, Completion):
        verdict = "envoyée au modèle"
    elif isinstance(result, ApiError) and result.status is not None:
        verdict = f"refusée par l’API : {shorten(str(result), 160)}"
    else:
        verdict = f"non envoyée : {shorten(_outcome(result), 160)}"
    return f"Votre conversation, {verdict}"


def _bar(result: object, diagram: Any) -> dict[str, str]:
    """The context bar, titled by what happened to it: only a reply means the model read it."""
    if isinstance(result, Completion):
        title, plain = "Ce que le modèle a reçu :", "Contexte reçu par le modèle"
    elif isinstance(result, ApiError) and result.status is not None:
        title = ("Ce que l’appel portait (l’API l’a refusé : le modèle ne l’a jamais "
                 "reçu) :")
        plain = "Contexte refusé par l’API, jamais reçu par le modèle"
    else:
        title, plain = "Ce que l’appel portait (il n’a pas abouti) :", "Contexte non reçu"
    return {"text/html": f"<p>{_esc(title)}</p>{context_html(diagram)}", "text/plain": plain}


def _outcome(result: object) -> str:
    """The last arrow's label: the reply, the refusal, or why no answer came."""
    if isinstance(result, Completion):
        return "Réponse : " + message_label(result.message)
    if isinstance(result, (ApiError, ModelTimeout)):
        return str(result)
    if isinstance(result, HarnessError):
        return f"Appel impossible : {result.message}"
    return "?"


def _plain(result: object) -> str:
    """The verdict in one line, for viewers without HTML."""
    if isinstance(result, HarnessError):
        return f"{result} — {result.explication}"
    return _outcome(result)


def render(result: object, problems: Sequence[Problem] = (), messages: object = None,
           mark: Mark | None = None) -> str:
    """HTML for a reply (tool calls or text) or an error (status, provider text, explication).

    With `messages` and the `mark` of a refusal, the list follows, the refused message in red.
    """
    try:
        if isinstance(result, Completion):
            return _box("reply", "Réponse du modèle", _reply(result))
        if isinstance(result, ApiError):
            listed = messages_html(messages, mark) if mark is not None else ""
            return _box("refused", _error_title(result), _never_seen(result) + _error(result)
                        + _misconception(messages, problems) + listed + _problems(problems))
        if isinstance(result, ModelTimeout):
            return _box("failed", "Pas de réponse", f"<p>{_esc(result.explication)}</p>")
        if isinstance(result, HarnessError):
            return _box("failed", "Appel impossible", f"<p>{_esc(result.explication)}</p>")
        return _box("other", "Résultat inattendu", f"<code>{_esc(repr(result))}</code>")
    except Exception as err:  # a strange reply must not break the display
        return _box("other", "Affichage impossible", _esc(f"{type(err).__name__}: {err}"))


def _reply(reply: Completion) -> str:
    calls = reply.tool_calls
    parts = []
    if calls:
        rows = "".join(_call_row(call) for call in calls)
        todo = ("Au harness de l’exécuter, puis d’ajouter à messages[] ce message assistant et "
                "un message tool sous son id." if len(calls) == 1 else
                "Au harness de les exécuter, puis d’ajouter à messages[] ce message assistant "
                "et un message tool par id.")
        asked = "un outil" if len(calls) == 1 else plural(len(calls), "outil")
        parts.append(f"<p>Le modèle demande {asked}. {todo}</p><table><tr>"
                     f"<th>id</th><th>name</th><th>arguments</th></tr>{rows}</table>")
    if reasoning := reply.reasoning:  # a reasoning model's own field: shown, named, apart
        parts.append("<p><i>Raisonnement visible, renvoyé par le fournisseur (ce n’est pas une "
                     "action : seules les demandes d’outil en sont) :</i></p><div style="
                     '"white-space:pre-wrap;font-style:italic">'
                     f"{_esc(shorten(reasoning, 2000))}</div>")
    if text := reply.text:  # content as text, or its text parts
        parts.append(f'<div style="white-space:pre-wrap">{_esc(text)}</div>')
    if not calls:
        parts.append("<p>Pas de demande d’outil : c’est la réponse finale, la boucle s’arrête.</p>")
    usage = reply.usage or {}
    tokens = (f", {french_number(usage['prompt_tokens'])} tokens en entrée"
              if "prompt_tokens" in usage else "")
    # The provider's own bill (OpenRouter's usage.cost); without it, no figure is made up.
    cost = f", coût : {dollars(reply.cost)} (facturé par le fournisseur)" if (
        reply.cost is not None) else ""
    parts.append(f"<small>finish_reason : {_esc(reply.finish_reason)}{tokens}{cost}</small>")
    return "".join(parts)


def _call_row(request: dict[str, Any]) -> str:
    call = read_call(request)  # the arguments as the model wrote them: JSON text
    return (f"<tr><td><code>{_esc(call.id)}</code></td>"
            f"<td><b>{_esc(call.name)}</b></td>"
            f"<td><code>{_esc(call.text)}</code></td></tr>")


def _error_title(error: ApiError) -> str:
    if error.status is None:
        return "Pas de réponse du modèle"
    cause = cause_of(error)
    return f"L’API refuse la requête : HTTP {error.status}" + (f" ({cause})" if cause else "")


def cause_of(error: ApiError) -> str:
    """The cause's short name when the provider's words say it (models/causes.py), or ""."""
    cause = error.cause if isinstance(error, ProviderError) else None
    return cause.name if cause is not None else ""


def _never_seen(error: ApiError) -> str:
    """The refusal's consequence, said first: the API answers, not the model."""
    if error.status is None:
        return "<p>Aucune réponse : le modèle n’a rien répondu à cette conversation.</p>"
    if isinstance(error, ProviderError) and error.cause not in (None, CONTEXT, FILTER):
        return ("<p>C’est le fournisseur qui répond, pas le modèle, et la cause n’est pas dans "
                "votre liste messages[] : l’explication ci-dessous dit quoi changer.</p>")
    return ("<p>C’est l’API qui répond, pas le modèle : elle refuse la requête avant de la "
            "transmettre, et le modèle ne verra jamais cette conversation.</p>")


def _error(error: ApiError) -> str:
    body = error.body.get("error") if isinstance(error.body, dict) else None
    param = body.get("param") if isinstance(body, dict) else None
    rows = f"<li>Message du fournisseur : <code>{_esc(error.message)}</code></li>"
    if param:
        rows += f"<li>param : <code>{_esc(param)}</code></li>"
    if cause := cause_of(error):
        rows += f"<li>Cause : <b>{_esc(cause)}</b></li>"
    return f"<ul>{rows}<li>Explication : {_esc(error.explication)}</li></ul>"


def _misconception(messages: object, problems: Sequence[Problem]) -> str:
    """The classic mistake behind the refusal, when we recognise it (misconceptions.py)."""
    found = explain(messages, problems)
    if found is None:
        return ""
    return (f'<p class="harness-misconception"><b>Ce qui s’est sans doute passé :</b> '
            f"{_esc(found.text)}</p>")


def _problems(problems: Sequence[Problem]) -> str:
    if len(problems) < 2:  # the one problem is the refusal above: nothing more to list
        return ""
    # A cell of 100 000 broken messages must not print megabytes: the first ones, and a count.
    items = "".join(f"<li>{_esc(problem)}</li>" for problem in problems[:LISTED])
    rest = len(problems) - LISTED
    more = (f"<p>… et {plural(rest, 'autre problème', 'autres problèmes')}, non listés : "
            "corrigez d’abord ceux-ci.</p>" if rest > 0 else "")
    which = "les voici tous" if rest <= 0 else f"voici les {LISTED} premiers"
    found = plural(len(problems), "problème")
    return (f"<p>Vérifié avant l’envoi : {found} dans messages[]. L’API "
            f"ne signale que le premier (ci-dessus) ; {which} :</p><ol>{items}</ol>{more}")


def _box(kind: str, title: str, body: str) -> str:
    color = COLORS[kind]
    return (f'<div style="{PAGE};border-left:4px solid {color};padding:4px 10px;'
            'margin:4px 0">'
            f'<b style="color:{color}">{_esc(title)}</b>{body}</div>')


def _esc(value: object) -> str:
    return html.escape(str(value))


def default_tools() -> list[dict[str, Any]]:
    """The definitions of read_file, list_files, edit_file and bash, as sent to the model."""
    return [tool.schema() for tool in workspace_tools(_example())]


@cache
def _example() -> Path:
    return example_workspace("mini")  # one copy per kernel: only the schemas are used


def tools_error(tools: object) -> ApiError | None:
    """The API's answer when `tools` is not a list of objects (None when it is)."""
    if isinstance(tools, list):
        bad = next((i for i, t in enumerate(tools) if not isinstance(t, dict)), None)
        if bad is None:
            return None
        where, value, expected = f"tools[{bad}]", tools[bad], "an object"
    else:
        where, value, expected = "tools", tools, "an array of objects"
    kind = got(value)["got"]  # the API's name of its JSON type: "an integer", "null"...
    return ApiError(400, f"Invalid type for '{where}': expected {expected}, but got {kind} "
                    "instead.", explication=f"{where} doit être une liste de définitions "
                    "d’outils ({\"type\": \"function\", \"function\": {...}}), ou None "
                    "pour les quatre outils de l’espace de travail.")


def unexpected(err: Exception) -> HarnessError:
    """An error nobody planned for, told calmly: the kernel is fine."""
    return HarnessError(f"{type(err).__name__}: {err}", explication=(
        f"Erreur inattendue ({type(err).__name__}) : vérifiez messages[] et tools. "
        "Rien n’est cassé : corrigez la cellule et relancez-la."))
