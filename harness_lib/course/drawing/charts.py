"""What the context weighs, drawn as HTML: the player's context bar and the bill of a run.

Every function returns an HTML string with inline styles only (JupyterLab's
sanitizer keeps them), so this module needs no widget library: the player puts
the strings into `ipywidgets.HTML`, a notebook can `display(HTML(...))` them.

Each model call resends the whole context, so the input tokens billed over a
run grow like the square of the number of turns:

>>> from harness_lib.trace import Event, Trace
>>> t = Trace(events=[Event("request", 1, "Appel 1", ledger={"system": 100}),
...                   Event("request", 2, "Appel 2", ledger={"system": 100, "tool": 900})])
>>> [(c.turn, c.context_tokens, c.billed_input_total) for c in billing(t)]
[(1, 100, 100), (2, 1000, 1100)]
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...messages import Message
from ...tokens import message_tokens
from ...trace import Trace
from .diagram import ROLES, Entry, fr

# Each at 4.5:1 or more as text on white, and 3:1 or more as a block on the bar (#f1f3f5).
ROLE_COLORS = {"system": "#5c6670", "tools": "#7b3f9e", "user": "#1e7a46",
               "assistant": "#1f5f99", "tool": "#a34a00", "compact": "#0b7285"}
# Neighbours in the bar (ROLES order) differ by more than hue: every other role is striped,
# blocks are parted by a white line, and the legend names each role.
_STRIPES = "repeating-linear-gradient({},rgba(255,255,255,.45) 0 2px,transparent 2px 6px)"
ROLE_PATTERNS = {"tools": _STRIPES.format("45deg"), "assistant": _STRIPES.format("-45deg"),
                 "compact": _STRIPES.format("90deg")}
ADDED_STYLE = "outline:3px solid #111;outline-offset:-3px"  # the entries of the current step
BOX = "font:12px/1.4 system-ui,sans-serif;max-width:760px"
# Beyond this many entries, the bar draws the older entries of each role as one block (each
# would be thinner than a pixel), and the current step's own entries apart: a 50 000-step
# run's bar stays a few blocks, not one per message at every step.
MANY = 120


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / max(whole, 1):.3f}%"


def context_bar(entries: Sequence[Entry], added: int, scale: int, budget: int | None = None,
                replaced: int = 0) -> str:
    """The context as a stacked bar: one block per entry, grouped by role in ROLES order.

    The last `added` entries are the ones the current step brought: they get an
    outline. `scale` is the width of the whole bar in tokens (the diagram's peak
    or its budget), so the bar visibly grows from step to step. `replaced` is the
    number of tokens a compaction has just removed (0 otherwise).
    """
    fresh = set(range(len(entries) - added, len(entries)))
    by_role: dict[str, list[int]] = {role: [] for role in ROLES}  # one pass, not a sort
    totals = dict.fromkeys(ROLES, 0)  # and the legend's tokens per role, in the same pass
    for i, entry in enumerate(entries):
        by_role[entry.role].append(i)
        totals[entry.role] += entry.tokens
    order = [i for role in ROLES for i in by_role[role]]
    blocks = [_block(entry, scale, new) for entry, new in _grouped(entries, order, fresh)]
    if budget is not None:  # a vertical line where the budget ends
        blocks.append(f'<div title="budget : {fr(budget)} tokens" style="position:absolute;'
                      f'left:{_pct(budget, scale)};top:-5px;bottom:-5px;'
                      'border-left:3px dashed #c0392b"></div>')
    total = sum(totals.values())
    summary = f"Contexte : <b>{fr(total)}</b> tokens"
    summary += f" · budget : {fr(budget)}" if budget is not None else ""
    summary += " · <b>au-delà du budget</b>" if budget is not None and total > budget else ""
    if replaced:
        summary += (f"<br>Compaction : {fr(replaced)} tokens de conversation disparaissent, "
                    "remplacés par un seul résumé.")
    return (f'<div style="{BOX}"><div role="img" aria-label="Contexte : {fr(total)} tokens" '
            'style="position:relative;display:flex;height:28px;margin:6px 0;background:#f1f3f5;'
            f'border:1px solid #adb5bd">{"".join(blocks)}</div>'
            f"{_legend(totals)}<div>{summary}</div></div>")


def _grouped(entries: Sequence[Entry], order: list[int], fresh: set[int]
             ) -> list[tuple[Entry, bool]]:
    """The bar's blocks in order, each (entry, fresh); beyond MANY entries, the older
    entries of one role as one block."""
    if len(entries) <= MANY:
        return [(entries[i], i in fresh) for i in order]
    runs: list[list] = []  # [first entry, tokens, count, fresh]
    for i in order:
        entry, new = entries[i], i in fresh
        if runs and not new and not runs[-1][3] and runs[-1][0].role == entry.role:
            runs[-1][1] += entry.tokens
            runs[-1][2] += 1
        else:
            runs.append([entry, entry.tokens, 1, new])
    return [(first if count == 1 else Entry(first.role, tokens, f"{fr(count)} messages"), new)
            for first, tokens, count, new in runs]


def _block(entry: Entry, scale: int, fresh: bool) -> str:
    title = html.escape(f"{entry.role} : {fr(entry.tokens)} tokens — {entry.label}")
    style = (f"flex:none;width:{_pct(entry.tokens, scale)};min-width:2px;box-sizing:border-box;"
             f"{_fill(entry.role)};border-right:1px solid #fff")
    return f'<div title="{title}" style="{style};{ADDED_STYLE if fresh else ""}"></div>'


def _fill(role: str) -> str:
    """A role's colour and, every other role, its stripes (CSS declarations)."""
    pattern = ROLE_PATTERNS.get(role)
    return f"background:{ROLE_COLORS[role]}" + (f";background-image:{pattern}" if pattern else "")


def _legend(totals: dict[str, int]) -> str:
    """Tokens per role (in ROLES order), in the colours of the bar."""
    items = [f'<span style="margin-right:14px;white-space:nowrap"><span style="display:'
             f'inline-block;width:11px;height:11px;{_fill(role)};'
             f'margin-right:4px"></span>{role} {fr(tokens)}</span>'
             for role, tokens in totals.items() if tokens]
    return f"<div>{''.join(items)}</div>"


def role_text(role: str) -> str:
    """A role's colour as text: stepper.css lightens it under a dark Lab theme (the page
    says `data-jp-theme-light="false"`), a page without that sheet keeps ROLE_COLORS.

    >>> role_text("tool")
    'var(--harness-role-tool,#a34a00)'
    """
    return f"var(--harness-role-{role},{ROLE_COLORS[role]})"


def ledger_table(entries: Sequence[Entry], added: int, bold: set[int] | None = None) -> str:
    """The context entries as a table (role, tokens, label); the last `added` ones in bold,
    and those whose id() is in `bold`."""
    bold = bold or set()
    strong = {i for i, e in enumerate(entries) if i >= len(entries) - added or id(e) in bold}
    rows = [f'<tr style="{"font-weight:bold" if i in strong else ""}">'
            f'<td style="color:{role_text(e.role)};padding-right:12px">{e.role}</td>'
            f'<td style="text-align:right;padding-right:12px">{fr(e.tokens)}</td>'
            f"<td>{html.escape(e.label)}</td></tr>" for i, e in enumerate(entries)]
    return (f'<table style="{BOX};border-collapse:collapse"><tr><th align="left">rôle</th>'
            f'<th align="right">tokens</th><th align="left">contenu</th></tr>{"".join(rows)}'
            "</table>")


def messages_block(messages: Sequence[Message]) -> str:
    """messages[] as the API would receive it: pretty JSON, escaped."""
    text = html.escape(json.dumps(list(messages), ensure_ascii=False, indent=2, default=str))
    return (f'<div style="{BOX}">{len(messages)} message(s), plus la définition des outils :'
            f'<pre tabindex="0" aria-label="messages[]" '
            f'style="white-space:pre-wrap;max-height:420px;overflow:auto">{text}</pre></div>')


def mermaid_fence(mermaid: str) -> str:
    """A Markdown ```mermaid block (Notebook 7 renders only this form), longer if needed."""
    longest = max((len(run) for run in re.findall("`+", mermaid)), default=0)
    fence = "`" * max(3, longest + 1)  # a label holding ``` must not close the block
    return f"{fence}mermaid\n{mermaid}{fence}\n"


# The bill of a run: one line per model call.


@dataclass(frozen=True)
class TurnCost:
    turn: int
    context_tokens: int  # what this call sent: messages[] + tool definitions
    billed_input_total: int  # input tokens billed from the first call up to this one


def billing(trace: Trace) -> list[TurnCost]:
    """For each model call (a "request" event): the context sent and the running input bill."""
    costs: list[TurnCost] = []
    for i, event in enumerate(trace.events):
        if event.kind != "request":
            continue
        # The ledger recorded right after the request is exactly what was sent.
        sent = sum(event.ledger.values()) or trace.tools_tokens + sum(
            message_tokens(m) for m in trace.messages_at(i))
        billed = (costs[-1].billed_input_total if costs else 0) + sent
        costs.append(TurnCost(event.turn, sent, billed))
    return costs


def context_chart(trace: Trace) -> str:
    """A table of bars: the context of each call, and the input billed so far."""
    costs = billing(trace)
    if not costs:
        return f'<div style="{BOX}">Aucun appel au modèle dans cette trace.</div>'
    scale = costs[-1].billed_input_total
    rows = [f'<tr><td style="padding-right:10px">tour {c.turn}</td>'
            f"<td>{_bar(c.context_tokens, scale, ROLE_COLORS['assistant'])}</td>"
            f"<td>{_bar(c.billed_input_total, scale, ROLE_COLORS['tool'])}</td></tr>"
            for c in costs]
    last = costs[-1]
    return (f'<table style="{BOX};border-collapse:collapse;width:100%"><caption style="'
            'text-align:left">Chaque appel renvoie tout le contexte : le total facturé croît '
            'comme le carré du nombre de tours.</caption><tr><th align="left">appel</th>'
            '<th align="left">contexte envoyé</th><th align="left">entrée facturée (cumul)'
            f'</th></tr>{"".join(rows)}</table><div style="{BOX}">{fr(len(costs))} '
            f'appel{"s" if len(costs) > 1 else ""} : '
            f"<b>{fr(last.billed_input_total)}</b> tokens facturés en entrée, pour un dernier "
            f"contexte de {fr(last.context_tokens)} tokens.</div>")


def _bar(tokens: int, scale: int, color: str) -> str:
    # At most 75 % of the cell, so that the number still fits beside the longest bar.
    return (f'<div style="display:flex;align-items:center;gap:6px"><div style="flex:none;'
            f'width:{75 * tokens / max(scale, 1):.3f}%;min-width:2px;height:14px;'
            f'background:{color}"></div><span>{fr(tokens)}</span></div>')
