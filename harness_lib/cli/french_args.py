"""argparse in French, for the command line: its help, its usage line and its errors.

argparse writes its own texts in English (« error: the following arguments are
required »). `FrenchArgumentParser` translates them, and leaves everything else to
argparse: a bad command line still ends with exit code 2 and the usage line, never a
traceback. `positive_int` is the type of an option that counts something (turns).

>>> parser = FrenchArgumentParser(prog="harness")
>>> _ = parser.add_argument("--max-turns", type=positive_int)
>>> french("argument --max-turns: invalid int value: 'abc'")
"argument --max-turns\\xa0: valeur invalide\\xa0: 'abc'"
>>> positive_int("0")
Traceback (most recent call last):
    ...
argparse.ArgumentTypeError: un entier ≥ 1 est attendu, pas « 0 »
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any, NoReturn

# argparse's English texts (Python 3.10 to 3.13) and ours, applied in order.
TRANSLATIONS: tuple[tuple[str, str], ...] = (
    (r"^usage: ", "utilisation : "),
    (r"\npositional arguments:\n", "\narguments :\n"),
    (r"\n(?:options|optional arguments):\n", "\noptions :\n"),
    (r"the following arguments are required: ", "arguments obligatoires manquants : "),
    (r"invalid choice: (.*) \(choose from (.*)\)", r"choix invalide : \1 (possibles : \2)"),
    (r"invalid \w+ value: ", "valeur invalide : "),
    (r"unrecognized arguments: ", "arguments inconnus : "),
    (r"expected one argument", "une valeur est attendue"),
    (r"ambiguous option: (\S+) could match ", r"option ambiguë : \1 peut désigner "),
    (r"^argument (\S+): ", r"argument \1 : "),
)


def french(text: str) -> str:
    """argparse's English `text`, in French (what has no translation stays as it is)."""
    for english, ours in TRANSLATIONS:
        text = re.sub(english, ours, text, flags=re.MULTILINE)
    return text


def positive_int(text: str) -> int:
    """An integer ≥ 1 (a number of turns): « 0 », « -1 » or « abc » are refused in French."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"un entier ≥ 1 est attendu, pas « {text} »")
    return value


class FrenchArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser whose help, usage and errors are in French (subcommands too)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("add_help", False)  # argparse's own -h says "show this help..."
        super().__init__(*args, **kwargs)
        self.add_argument("-h", "--help", action="help", help="afficher cette aide et quitter")

    def format_usage(self) -> str:
        return french(super().format_usage())

    def format_help(self) -> str:
        return french(super().format_help())

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog} : erreur : {french(message)}\n")
