"""Permissions: before running a tool call, allow it, ask a human, or deny it.

The check sits between the model's request and the execution (« vérifier que
l'action respecte la politique d'accès »). A `Policy` names the tools allowed,
the tools that need a human's yes, the tools denied, and the bash commands that
are never run. The command rules are a list of known dangers, not a sandbox:
a determined command can always be written another way. The workspace and a
human's validation are the real protections.

>>> decision = check_permission(ToolCall("bash", {"command": "sudo reboot"}), DEFAULT_POLICY)
>>> decision.verdict
'deny'
>>> print(decision.reason)
bash : la commande enfreint la règle « élévation de privilèges (sudo, su) »
>>> check_permission(ToolCall("edit_file", {}), STRICT_POLICY).verdict
'ask'
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Literal

from .messages import ToolCall

SHELL_TOOL = "bash"  # the tool whose `command` argument the rules look at

# (rule, regular expression): a bash command matching the expression is denied.
DANGEROUS_COMMANDS: tuple[tuple[str, str], ...] = (
    ("suppression hors du dossier (rm sur / ou ~)", r"\brm\s+(?:[^;&|\s]+\s+)*[/~]"),
    ("élévation de privilèges (sudo, su)", r"\b(?:sudo|doas)\b|(?:^|[;&|]\s*)su\b"),
    ("accès réseau (curl, wget, ssh)", r"\b(?:curl|wget|ssh|scp|ftp|telnet)\b"),
    # An option's value never starts with "-": one way only to read `git -C dir push`,
    # else a long `git -a -a -a ... x` takes the regex engine an exponential time.
    ("publication (git push)", r"\bgit\s+(?:-\S+\s+(?:[^-\s]\S*\s+)?)*push\b"),
    ("écriture hors du dossier (> / ou > ~)", r">\s*(?!/dev/null\b)[/~]|\btee\s+(?:-\S+\s+)*[/~]"),
    ("écriture sur un disque (mkfs, dd)", r"\bmkfs\b|\bdd\b[^;&|]*\bof=/dev/"),
    ("arrêt de la machine", r"\b(?:shutdown|reboot|halt|poweroff)\b"),
    ("bombe fork", r":\(\)\s*\{"),
    # A child can read its parent's environment, API key included (see docs/reliability.md).
    ("lecture de l'environnement d'un processus (/proc/…/environ)", r"/proc/\S*environ"),
)


@dataclass(frozen=True)
class Decision:
    """The verdict on one tool call, and its reason in French (shown in the trace)."""

    verdict: Literal["allow", "ask", "deny"]
    reason: str


@dataclass(frozen=True)
class Policy:
    """Who may do what. A tool in none of allow, ask or deny_tools is denied."""

    allow: Collection[str] = ()  # run without asking
    ask: Collection[str] = ()  # run only after a human's yes
    deny_tools: Collection[str] = ()  # never run
    deny_commands: tuple[tuple[str, str], ...] = ()  # (rule, regex) on bash's command

    def __post_init__(self) -> None:
        # ("rm",) would silently unpack as the rule "r" with the pattern "m".
        for rule in self.deny_commands:
            pair = isinstance(rule, tuple) and len(rule) == 2
            if not pair or not all(isinstance(part, str) for part in rule):
                raise ValueError(f"deny_commands attend des paires (règle, expression) : {rule!r}")


DEFAULT_POLICY = Policy(allow=("read_file", "list_files", "edit_file", "bash"),
                        deny_commands=DANGEROUS_COMMANDS)
STRICT_POLICY = Policy(allow=("read_file", "list_files"), ask=("edit_file", "bash"),
                       deny_commands=DANGEROUS_COMMANDS)


def check_permission(call: ToolCall, policy: Policy) -> Decision:
    """allow, ask or deny this tool call. Never raises: a malformed call is denied."""
    name, arguments = call.name, call.arguments
    if name is None:
        return Decision("deny", "appel d'outil mal formé (pas de nom d'outil) : rien n'est exécuté")
    if name in policy.deny_tools:
        return Decision("deny", f"{name} : outil interdit par la politique (deny_tools)")
    if name == SHELL_TOOL:
        broken = _broken_rule(arguments, policy)
        if broken:
            return Decision("deny", f"{name} : {broken}")
    if name in policy.ask:
        return Decision("ask", f"{name} : validation humaine demandée par la politique (ask)")
    if name in policy.allow:
        return Decision("allow", f"{name} : autorisé par la politique (allow)")
    return Decision("deny", f"{name} : ni dans allow ni dans ask, refusé par défaut")


def _broken_rule(arguments: object, policy: Policy) -> str | None:
    """Why the shell command is denied, or None when no rule matches."""
    command = arguments.get("command") if isinstance(arguments, dict) else None
    if not isinstance(command, str):
        return "commande illisible (arguments mal formés) : impossible de la vérifier"
    for rule, pattern in policy.deny_commands:
        try:
            if re.search(pattern, command):
                return f"la commande enfreint la règle « {rule} »"
        except (re.error, OverflowError, RecursionError):
            # A broken rule (bad syntax, a{99999999999}, brackets nested too deep)
            # must not let everything through.
            return f"la règle « {rule} » est une expression invalide : refus par prudence"
    return None


Approver = Callable[[ToolCall, Decision], bool]  # True: the human says yes


def auto_approve(call: ToolCall, decision: Decision) -> bool:
    """Say yes to everything (tests, demos)."""
    return True


def auto_refuse(call: ToolCall, decision: Decision) -> bool:
    """Say no to everything."""
    return False


def cli_approver(call: ToolCall, decision: Decision) -> bool:
    """Show the call in the terminal and ask. Only "o" or "oui" say yes; no answer says no."""
    # json.dumps escapes newlines and control characters: the human sees the whole command.
    readable = call.arguments if call.arguments is not None else call.text
    shown = json.dumps(readable, ensure_ascii=False, default=repr)
    print(f"L'agent veut appeler {call.name or '?'} avec {shown}")
    print(f"Raison : {decision.reason}")
    try:
        answer = input("Autoriser ? [o/N] ")
    except EOFError:  # nobody at the keyboard: refuse
        return False
    return answer.strip().lower() in {"o", "oui"}
