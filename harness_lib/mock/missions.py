"""How MockModel chooses its next action, from messages[] alone.

A real model reads the whole conversation and picks the next step. This module
does the same with plain rules, one small function per kind of mission:

- « Lis README.md et résume le projet »: read the file; if it is missing, list
  the folder, read the file found there; then summarise what was actually read.
- « Corrige formatPrice pour les montants négatifs »: read price.py, edit the
  faulty line, run the tests, report the diff and the test result.
- « Attends que fini.txt apparaisse »: poll the folder (a mission that never ends).
- « Lance `cmd` »: run the command, retry while it fails (a stubborn model).

>>> decide("Lis a.txt et b.txt", [], {"read_file"}).calls
[('read_file', {'path': 'a.txt'}), ('read_file', {'path': 'b.txt'})]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..messages import Message, read_call

# A file name: a word ending in .ext (matched on one word at a time: linear, see files()).
FILE = re.compile(r"[\w./-]*\w\.[A-Za-z]{1,5}")
BUGGY = '    euros, rest = divmod(cents, 100)\n    return f"{euros},{rest:02d} €"'
FIXED = (
    '    sign = "-" if cents < 0 else ""\n'
    "    euros, rest = divmod(abs(cents), 100)\n"
    '    return f"{sign}{euros},{rest:02d} €"'
)


@dataclass(frozen=True)
class Seen:
    """One tool call of the conversation and what came back."""

    name: str
    args: dict[str, Any]
    result: str

    @property
    def failed(self) -> bool:
        return self.result.startswith(("Erreur", "Refusé"))


@dataclass(frozen=True)
class Action:
    calls: list[tuple[str, dict[str, Any]]]
    thought: str = ""


def read_conversation(messages: list[Message]) -> tuple[str, list[Seen]]:
    """The last user message, and the tool calls made since, with their results."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    mission = str(messages[last_user].get("content") or "") if last_user >= 0 else ""
    results = {
        m.get("tool_call_id"): str(m.get("content")) for m in messages if m.get("role") == "tool"
    }
    history = []
    for m in messages[last_user + 1 :]:
        calls = m.get("tool_calls") if m.get("role") == "assistant" else None
        for call in map(read_call, calls if isinstance(calls, list) else []):
            history.append(Seen(call.name or "", call.arguments or {}, results.get(call.id, "")))
    return mission, history


def decide(mission: str, history: list[Seen], available: set[str | None]) -> Action | str:
    """The next action (tool calls) or the final answer (a string)."""
    text = mission.lower()
    if re.search(r"format_?price", text):
        return _fix_price(history)
    if "`" in mission and _is_command(mission.split("`")[1], text):
        return _command(mission.split("`")[1], history)
    files = find_files(mission)
    if files and re.search(r"\battend|\bsurveille", text):
        return _wait_for(files[0], history)
    if files:
        return _read(files, history)
    names = ", ".join(sorted(n for n in available if n)) or "aucun"
    return (
        f"Je peux agir avec ces outils : {names}. Dites-moi quel fichier lire "
        "ou quelle commande lancer (entre `accents graves`)."
    )


def _is_command(quoted: str, mission: str) -> bool:
    """Between backquotes, a command; but a bare file name (« Lis `price.py` ») is a file
    to read, unless the mission says to run it (« Lance `build.sh` »)."""
    return not FILE.fullmatch(quoted) or bool(re.match(r"\s*(lance|exécute|run)\b", mission))


def find_files(text: str) -> list[str]:
    """The words of `text` that name a file, in order.

    One word at a time: a single regular expression over the whole text backtracks
    at every position of a long word, and a 40 000-character mission took seconds.

    >>> find_files("Lis (docs/README.md), puis a.txt.")
    ['docs/README.md', 'a.txt']
    """
    words = (word.lstrip("([{«\"'`").rstrip(".,;:!?)]}»\"'`") for word in text.split())
    return [word for word in words if FILE.fullmatch(word)]


def _read(files: list[str], history: list[Seen]) -> Action | str:
    if not history:  # one call per file, all in the same turn
        return Action(
            [("read_file", {"path": f}) for f in files], f"Je dois lire {', '.join(files)}."
        )
    last = history[-1]
    if (
        last.name == "read_file"
        and last.failed
        and not any(h.name == "list_files" for h in history)
    ):
        return Action(
            [("list_files", {"path": "."})], "Le fichier est absent : j’explore le dossier."
        )
    if last.name == "list_files":
        name = files[0].rsplit("/", 1)[-1]
        found = [p for p in last.result.split() if p.rsplit("/", 1)[-1] == name and p != files[0]]
        if found:
            return Action(
                [("read_file", {"path": found[0]})], f"{found[0]} ressemble au bon fichier."
            )
        return f"Je n’ai trouvé {files[0]} nulle part dans le dossier : je ne peux pas le résumer."
    return _summary([h for h in history if h.name == "read_file"])


def _summary(reads: list[Seen]) -> str:
    parts = []
    for h in [h for h in reads if not h.failed] or reads:  # failures only when nothing worked
        if h.failed:
            parts.append(f"{h.args.get('path')} : {h.result}")
            continue
        lines = [ln.strip() for ln in h.result.splitlines() if ln.strip()]
        title = next((ln.lstrip("# ") for ln in lines if ln.startswith("#")), h.args.get("path"))
        body = _sentences(" ".join(ln for ln in lines if not ln.startswith("#")), 240)
        parts.append(f"« {title} » : {body}" if body else f"« {title} »")
    return "Résumé. " + " | ".join(parts)


def _sentences(text: str, limit: int) -> str:
    """Whole sentences, up to about `limit` characters (a summary never stops mid-word)."""
    kept = ""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if kept and len(kept) + len(sentence) > limit:
            return kept
        kept = f"{kept} {sentence}".strip()
    return kept


def _fix_price(history: list[Seen]) -> Action | str:
    done = {h.name: h for h in history}
    if "read_file" not in done:
        return Action([("read_file", {"path": "price.py"})], "Je dois d’abord lire price.py.")
    if done["read_file"].failed:
        return f"Impossible de lire price.py : {done['read_file'].result}"
    if "edit_file" not in done and BUGGY in done["read_file"].result:
        edit = {"path": "price.py", "old": BUGGY, "new": FIXED}
        return Action(
            [("edit_file", edit)], "divmod arrondit vers le bas : je traite le signe à part."
        )
    if "edit_file" in done and done["edit_file"].failed:  # say so, never claim a fix
        return f"Je n’ai pas pu corriger price.py : {done['edit_file'].result}"
    if "bash" not in done:
        return Action(
            [("bash", {"command": "python test_price.py"})],
            "Il me faut une preuve : je lance les tests.",
        )
    # The tests' summary (« 5 tests réussis ») is their last line, before the exit code.
    lines = [ln for ln in done["bash"].result.strip().splitlines() if not ln.startswith("[")]
    verdict = lines[-1] if lines else done["bash"].result.strip()
    diff = (
        "\n".join(f"- {a}" for a in BUGGY.splitlines())
        + "\n"
        + "\n".join(f"+ {b}" for b in FIXED.splitlines())
    )
    return f"format_price traite maintenant le signe à part.\n\n{diff}\n\nTests : {verdict}"


def _command(command: str, history: list[Seen]) -> Action | str:
    if not history or history[-1].failed:  # a stubborn model retries what failed
        return Action([("bash", {"command": command})], f"Je lance {command}.")
    return f"La commande {command} a réussi :\n{history[-1].result}"


def _wait_for(name: str, history: list[Seen]) -> Action | str:
    last = history[-1] if history else None
    if last and last.name == "read_file":
        return _summary([last])
    if last and name in last.result.split():
        return Action([("read_file", {"path": name})], f"{name} est arrivé : je le lis.")
    return Action(
        [("list_files", {"path": "."})], f"{name} n’est pas encore là : je regarde à nouveau."
    )
