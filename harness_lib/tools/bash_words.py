"""A command line read as bash reads it: the simple commands it would run.

The policy (policy.py) judges each simple command on its own: its program and its
arguments. Reading the raw text with regular expressions misses what bash does with
it (`r''m` is `rm`, `"$HOME"` is `~`, `cd x && sudo y` runs `sudo`), so the words come
from `shlex`, the standard library's tokenizer, and this module only groups them:

- `;`, `&&`, `||`, `|`, `&`, a newline, `(`, `)` end a simple command;
- a redirection is a command of its own: `echo x > /etc/hosts` gives `[">", "/etc/hosts"]`;
- leading `VAR=valeur` and wrappers (`env`, `exec`, `command`, `nohup`, `time`, `xargs`,
  `{`, `then`, `do`...) are set aside: `env X=1 rm -rf /` runs `rm -rf /`;
- `$HOME/x` and `${HOME}/x` are written `~/x`; a program is named without its folder;
- what bash runs from inside a word is read too: `$(...)`, backquotes, `bash -c '...'`,
  `eval ...`, `find -exec ... ;`; a function piped into itself gives `["()", name]`.

The work is linear in the length of the text (each nesting level reads at most the
whole text again, and there are at most MAX_DEPTH of them).

>>> simple_commands("cd src && env X=1 r''m -rf \\"$HOME\\"/notes 2>/dev/null")
[['cd', 'src'], ['>', '/dev/null'], ['rm', '-rf', '~/notes', '2']]
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

MAX_DEPTH = 4  # $(...) inside bash -c '...' inside eval...: deeper is refused, not read
OPERATORS = "();<>|&\n"
REDIRECTIONS = {">", ">>", ">|", "<", "<<", "<<<", "<<-", "<>", "&>", "&>>", ">&", "<&"}
SHELLS = {"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "fish"}
# Words that run the words after them as a command, with their options that take a value.
WRAPPERS: dict[str, frozenset[str]] = {
    name: frozenset(options) for name, options in {
        "env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"},
        "exec": {"-a"}, "nice": {"-n", "--adjustment"}, "ionice": {"-c", "-n", "-p"},
        "timeout": {"-s", "--signal", "-k", "--kill-after"}, "stdbuf": {"-i", "-o", "-e"},
        "xargs": {"-I", "-i", "-n", "-d", "-P", "-L", "-s", "-a", "-E"},
        **dict.fromkeys(["command", "builtin", "nohup", "time", "setsid", "busybox", "{",
                         "!", "if", "then", "elif", "else", "do", "while", "until"], ()),
    }.items()
}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}


class _Source:
    """The text, handed to shlex one character at a time.

    shlex returns a quoted ";" and the operator ";" as the same string. Its state while
    it reads tells them apart: "c" is its state inside an operator.
    """

    def __init__(self, text: str) -> None:
        self.text, self.at, self.operator = text, 0, False
        self.lexer: shlex.shlex | None = None

    def read(self, size: int = 1) -> str:
        if self.lexer is not None and getattr(self.lexer, "state", None) == "c":  # not typed
            self.operator = True
        self.at += 1
        return self.text[self.at - 1 : self.at]

    def readline(self) -> str:  # shlex asks for it only for comments, which are off
        return ""


def tokens(text: str) -> Iterator[tuple[str, bool]]:
    """(word, is_operator) pairs of `text`; ValueError on an unclosed quote."""
    source = _Source(text)
    lexer = shlex.shlex(source, posix=True, punctuation_chars=OPERATORS)  # type: ignore[arg-type]
    lexer.whitespace = " \t\r"  # a newline ends a command, like ";"
    lexer.commenters = ""  # shlex would drop the rest of `echo a#b; rm -rf /`
    lexer.whitespace_split = True
    source.lexer = lexer
    while True:
        source.operator = False
        token = lexer.get_token()
        if token is None:
            return
        yield token, source.operator


def simple_commands(text: str, depth: int = 0) -> list[list[str]]:
    """Every simple command of `text`, as [program, arguments...]; ValueError if unreadable."""
    if depth > MAX_DEPTH:
        raise ValueError(f"plus de {MAX_DEPTH} niveaux de commandes imbriquées")
    found: list[list[str]] = []
    words: list[str] = []
    redirect, piped, functions = "", "", set()
    for token, operator in tokens(text):
        if operator and token in REDIRECTIONS:
            redirect = token
        elif redirect:  # the target of the redirection, a command of its own
            found.append([redirect, home(token)])
            redirect = ""
        elif operator:  # the end of a simple command
            if token == "()" and words:  # f() { ...; }: a function named f
                functions.add(words[-1])
            command = _expand(words, depth)
            found += command
            program = command[0][0] if command else ""
            if piped and program == piped and program in functions:  # f | f: a fork bomb
                found.append(["()", program])
            piped, words = (program if token == "|" else ""), []
        else:
            words.append(token)
            if "$(" in token:  # $(...) inside quotes: bash runs it all the same
                found += simple_commands(token.split("$(", 1)[1], depth + 1)
    found += _expand(words, depth)
    for inside in text.split("`")[1::2]:  # `...`: a command too
        if inside.strip():
            found += simple_commands(inside, depth + 1)
    return found


def _expand(words: list[str], depth: int) -> list[list[str]]:
    """One simple command without its prefixes, then what it runs in its turn."""
    start = _program_index(words)
    if start >= len(words):
        return []
    program = words[start].rsplit("/", 1)[-1] or words[start]
    arguments = [home(word) for word in words[start + 1 :]]
    found = [[program, *arguments]]
    options = [a for a in arguments if a.startswith("-")]
    texts = [a for a in arguments if not a.startswith("-")]
    if program in SHELLS and any("c" in o for o in options if not o.startswith("--")) and texts:
        found += simple_commands(texts[0], depth + 1)  # bash -c '...'
    if program in ("eval", "watch"):
        found += simple_commands(" ".join(texts), depth + 1)
    if program == "find":  # find ... -exec rm {} ;
        for k, word in enumerate(arguments):
            if word in _FIND_EXEC:
                rest = arguments[k + 1 :]
                end = next((i for i, w in enumerate(rest) if w in (";", "+")), len(rest))
                found += _expand(rest[:end], depth + 1)
    return found


def _program_index(words: list[str]) -> int:
    """Where the program is, after `VAR=valeur` words and wrappers with their options."""
    k = 0
    while k < len(words):
        word = words[k]
        if _ASSIGNMENT.match(word):
            k += 1
        elif word in WRAPPERS:
            wrapper, k = word, k + 1
            while k < len(words) and words[k].startswith("-"):
                k += 2 if words[k] in WRAPPERS[wrapper] else 1
            if wrapper == "timeout" and k < len(words):
                k += 1  # its duration
        else:
            return k
    return k


def home(word: str) -> str:
    """`$HOME/x` and `${HOME}/x` written as bash will see them: `~/x`."""
    for variable in ("${HOME}", "$HOME"):
        if word == variable or word.startswith(variable + "/"):
            return "~" + word[len(variable) :]
    return word
