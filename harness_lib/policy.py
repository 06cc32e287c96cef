"""Permissions: before running a tool call, allow it, ask a human, or deny it.

The check sits between the model's request and the execution (« vérifier que
l'action respecte la politique d'accès »). A `Policy` names the tools allowed,
the tools that need a human's yes, the tools denied, and the bash commands that
are never run: each `Rule` looks at one simple command as bash reads it (see
tools/bash_words.py: quotes, `$HOME`, prefixes like `env` or `exec`, `;`/`&&`/`|` chains,
`$(...)` and `bash -c` are read as bash would). The rules are a list of known
dangers, not a sandbox: a determined command can always be written another way
(`python -c ...`). What makes the « no » hold is the sandbox bash runs in
(tools/sandbox.py: writable workspace, no network unless `network=True`); where none
can start, `unconfined` says what bash does: "ask" a human before each command (the
default), "allow" it all the same (the learner's explicit choice), or "deny" it.

>>> decision = check_permission(ToolCall("bash", {"command": "sudo reboot"}), DEFAULT_POLICY)
>>> decision.verdict
'deny'
>>> print(decision.reason)
bash : la commande enfreint la règle « élévation de privilèges (sudo, su) »
>>> check_permission(ToolCall("edit_file", {}), STRICT_POLICY).verdict
'ask'
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Literal

from .messages import ToolCall
from .text import french_number
from .tools.bash_words import simple_commands

SHELL_TOOL = "bash"  # the tool whose `command` argument the rules look at
Unconfined = Literal["ask", "allow", "deny"]
UNCONFINED: tuple[str, ...] = Unconfined.__args__  # type: ignore[attr-defined]
# Characters: longer commands are refused unread. shlex builds a word by adding one
# character at a time, so a very long word costs its length squared: the cap bounds it.
MAX_COMMAND = 10_000


@dataclass(frozen=True)
class Rule:
    """Deny a simple command whose program matches `program` and, when `argument` is
    given, one of whose arguments matches it (regular expressions, matched in full).

    A redirection is a command of its own: program ">" (or ">>", "<"...), argument
    its target. A shell function piped into itself is the command ["()", name].

    >>> Rule("réseau", "curl|wget").matches(["curl", "-s", "http://x"])
    True
    >>> Rule("rm hors du dossier", "rm", r"[/~].*").matches(["rm", "-rf", "build/"])
    False
    """

    reason: str
    program: str
    argument: str | None = None

    def __post_init__(self) -> None:
        # Compiled once, and said where the rule is written, not when a command meets it.
        compiled = []
        for part in (self.program, self.argument or ""):
            try:
                compiled.append(re.compile(part).fullmatch)
            except (re.error, OverflowError, RecursionError, TypeError) as err:
                raise ValueError(f"règle « {self.reason} » : {part!r} n’est pas une "
                                 f"expression régulière valide ({err})") from None
        object.__setattr__(self, "_match", compiled)

    def matches(self, command: list[str]) -> bool:
        program, argument = self._match  # type: ignore[attr-defined]
        if not program(command[0]):
            return False
        return self.argument is None or any(argument(word) for word in command[1:])


OUTSIDE = r"[/~].*|\.\.(?:/.*)?"  # an absolute path, the home folder, the parent folder
NOT_A_DEVICE = r"(?!/dev/(?:null|stdout|stderr|tty)$)[/~].*"
DANGEROUS_COMMANDS: tuple[Rule, ...] = (
    Rule("suppression hors du dossier (rm sur / ou ~)", r"rm|rmdir|shred|unlink", OUTSIDE),
    Rule("élévation de privilèges (sudo, su)", r"sudo|doas|su|pkexec|run0"),
    Rule("accès réseau (curl, wget, ssh)",
         r"curl|wget|ssh|scp|sftp|ftp|telnet|nc|ncat|netcat|rsync"),
    Rule("publication (git push)", r"git", r"push"),
    Rule("écriture hors du dossier (> / ou > ~)", r">>?|>\||&>>?|>&|<>", NOT_A_DEVICE),
    Rule("écriture hors du dossier (> / ou > ~)", r"tee", r"[/~].*"),
    Rule("écriture sur un disque (mkfs, dd)", r"mkfs(?:\..+)?|mke2fs|wipefs|fdisk"),
    Rule("écriture sur un disque (mkfs, dd)", r"dd", r"of=/dev/.*"),
    Rule("arrêt de la machine", r"shutdown|reboot|halt|poweroff"),
    Rule("arrêt de la machine", r"systemctl|init|telinit", r"reboot|poweroff|halt|0|6"),
    Rule("bombe fork", r"\(\)"),
    # A child can read its parent's environment, API key included (see docs/reliability.md).
    Rule("lecture de l’environnement d’un processus (/proc/…/environ)", r".*",
         r"/proc/.*environ"),
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
    deny_commands: tuple[Rule, ...] = ()  # bash commands never run
    network: bool = False  # bash's sandbox keeps the network (False: not even 127.0.0.1)
    # What bash does where no sandbox can start (tools/sandbox.py): "ask" a human before
    # each command, "allow" it anyway (the learner's explicit choice), or "deny" it.
    unconfined: Unconfined = "ask"

    def __post_init__(self) -> None:
        if self.unconfined not in UNCONFINED:
            raise ValueError(f"unconfined vaut {self.unconfined!r} : attendu "
                             f"{' ou '.join(map(repr, UNCONFINED))}")
        # ("rm", "rm") is accepted for Rule("rm", "rm"); anything else is said now.
        rules = []
        for rule in self.deny_commands:
            if isinstance(rule, tuple) and len(rule) in (2, 3) and all(
                    isinstance(part, str) for part in rule):
                rule = Rule(*rule)
            if not isinstance(rule, Rule):
                raise ValueError("deny_commands attend des règles Rule(raison, programme, "
                                 f"argument) : {rule!r}")
            rules.append(rule)
        object.__setattr__(self, "deny_commands", tuple(rules))


DEFAULT_POLICY = Policy(allow=("read_file", "list_files", "edit_file", "bash"),
                        deny_commands=DANGEROUS_COMMANDS)
STRICT_POLICY = Policy(allow=("read_file", "list_files"), ask=("edit_file", "bash"),
                       deny_commands=DANGEROUS_COMMANDS)


def check_permission(call: ToolCall, policy: Policy) -> Decision:
    """allow, ask or deny this tool call. Never raises: a malformed call is denied."""
    name, arguments = call.name, call.arguments
    if name is None:
        return Decision("deny", "appel d’outil mal formé (pas de nom d’outil) : rien n’est exécuté")
    if name in policy.deny_tools:
        return Decision("deny", f"{name} : outil interdit par la politique (deny_tools)")
    if name == SHELL_TOOL:
        broken = _broken_rule(arguments, policy) or _unconfined(policy)
        if broken:
            return Decision("deny", f"{name} : {broken}")
        if policy.unconfined == "ask" and name in {*policy.allow, *policy.ask}:
            if why := _no_sandbox():
                return Decision("ask", f"{name} : pas de bac à sable ({why}) : chaque "
                                "commande attend un oui (Policy(unconfined=\"ask\"))")
    if name in policy.ask:
        return Decision("ask", f"{name} : validation humaine demandée par la politique")
    if name in policy.allow:
        return Decision("allow", f"{name} : autorisé par la politique")
    return Decision("deny", f"{name} : ni dans allow ni dans ask, refusé par défaut")


def _unconfined(policy: Policy) -> str | None:
    """Why bash is denied for want of a sandbox (unconfined="deny"), or None."""
    if policy.unconfined != "deny" or not (why := _no_sandbox()):
        return None
    return f"pas de bac à sable ({why}) : la politique refuse bash sans lui (unconfined=\"deny\")"


def _no_sandbox() -> str | None:
    """Why no sandbox can start here, or None. Imported here: `import harness_lib` stays light."""
    from .tools.sandbox import problem

    return problem()


def _broken_rule(arguments: object, policy: Policy) -> str | None:
    """Why the shell command is denied, or None when no rule matches."""
    command = arguments.get("command") if isinstance(arguments, dict) else None
    if not isinstance(command, str):
        return "commande illisible (arguments mal formés) : impossible de la vérifier"
    if not policy.deny_commands:
        return None
    if len(command) > MAX_COMMAND:
        return (f"commande trop longue ({french_number(len(command))} caractères, "
                f"maximum {french_number(MAX_COMMAND)}) : "
                "refusée sans être lue. Écrivez plutôt un script (edit_file), puis lancez-le")
    try:
        commands = simple_commands(command)
    except ValueError as err:  # an unclosed quote: bash would refuse it too
        return f"commande illisible ({err}) : refus par prudence"
    for words in commands:
        for rule in policy.deny_commands:
            if rule.matches(words):
                return f"la commande enfreint la règle « {rule.reason} »"
    return None


Approver = Callable[[ToolCall, Decision], bool]  # True: the human says yes


def auto_approve(call: ToolCall, decision: Decision) -> bool:
    """Say yes to everything (tests, demos)."""
    return True


def auto_refuse(call: ToolCall, decision: Decision) -> bool:
    """Say no to everything."""
    return False


def cli_approver(call: ToolCall, decision: Decision) -> bool:
    """Show the call in the terminal and ask. Only "o" or "oui" say yes; no answer says no.
    Where stdin is not a terminal (CI, a pipe, nothing), nobody can answer: refused at
    once, and said (a pipe left open would otherwise wait for ever)."""
    # json.dumps escapes newlines and control characters: the human sees the whole command.
    readable = call.arguments if call.arguments is not None else call.text
    shown = json.dumps(readable, ensure_ascii=False, default=repr)
    print(f"L’agent veut appeler {call.name or '?'} avec {shown}")
    print(f"Raison : {decision.reason}")
    if not _terminal():
        print("Refusé : personne ne peut répondre ici (l’entrée standard n’est pas un terminal).")
        return False
    try:
        answer = input("Autoriser ? [o/N] ")
    except (EOFError, UnicodeDecodeError):  # nobody at the keyboard, or bytes it cannot read
        print("\nRefusé : pas de réponse.")
        return False
    return answer.strip().lower() in {"o", "oui"}


def _terminal() -> bool:
    """Whether a person can type an answer: stdin is a terminal (not closed, not a pipe)."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):  # closed
        return False
