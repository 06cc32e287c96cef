"""The diagrams as annotated Mermaid text: read with `parse`, written with `to_mermaid`.

Both directions sit side by side, so one visibly undoes the other:
`parse(to_mermaid(d))` gives back the steps of `d`. Labels are escaped on the
way out and unescaped on the way in, each in a single pass: in a Mermaid label a
raw `;` breaks the diagram and a raw `#` silently drops the rest of the line.

What a round trip normalises, and nothing else: labels over 80 characters end
in « … »; control characters are dropped (a tab becomes a space, any line break
becomes <br>, read back as "\\n"); spaces around a label are trimmed (Mermaid
trims them too); `%%` lines (entries, notes) and accTitle/accDescr stay on one
line, a note keeping its own lines as several `%% note:` lines.

Every text from data is escaped the same way, labels and `%%` lines and accTitle
alike: Mermaid reads a directive (`%%{init: …}%%`, which restyles the whole diagram,
or unclosed swallows the rest of it) anywhere in the text, comments included, so no
`%` is ever written raw; a label is cut before it is escaped, never inside an escape.

>>> d = parse('''sequenceDiagram
...   participant H as Harness
...   participant M as Modèle
...   H->>M: prix #35;1 #59; remise''')
>>> d.steps[0].text
'prix #1 ; remise'
>>> print(to_mermaid(d), end="")
sequenceDiagram
  autonumber
  participant H as Harness
  participant M as Modèle
  rect rgba(255, 200, 0, 0.25)
    H->>M: prix #35;1 #59; remise
  end
"""

from __future__ import annotations

import re
import textwrap
from html.entities import html5
from importlib import resources

from ...text import LABEL_LIMIT, one_line, shorten
from .diagram import ROLES, Diagram, DiagramError, Entry, Participant, Step

CHAPTER = ("deux_tours", "erreur_outil", "boucle_complete")
HIGHLIGHT = "rgba(255, 200, 0, 0.25)"  # the current arrow's background
# A self-arrow's label (H->>H): Mermaid centres it on the lifeline, which then crosses
# the text. Written after en spaces (half an em each, as many as ASIDE per character of
# the label: a little wider than the text), so that the text proper starts right of the
# line; a zero-width space first, or Mermaid would trim them. parse() drops them again.
ASIDE, EN_SPACE, ZERO_WIDTH = 1.3, "\u2002", "\u200b"


def aside(label: str) -> str:
    """A self-arrow's label, moved right of the lifeline by leading en spaces."""
    return ZERO_WIDTH + EN_SPACE * (round(len(label) * ASIDE) + 2) + label if label else label


def unaside(text: str) -> str:
    """The label aside() moved: its marker and en spaces dropped, nothing of the label's own."""
    return text[1:].lstrip(EN_SPACE) if text.startswith(ZERO_WIDTH + EN_SPACE) else text


def chapter_source(name: str) -> str:
    """The text of one of the chapter's diagrams, exactly as the chapter prints it."""
    if name not in CHAPTER:
        raise DiagramError(f"diagramme inconnu : {name!r} (attendu : {', '.join(CHAPTER)})")
    data = resources.files("harness_lib.course") / "data"
    return (data / f"{name}.mmd").read_text(encoding="utf-8")


def chapter_diagram(name: str) -> Diagram:
    return parse(chapter_source(name))


# Labels. One regex pass each way: chained .replace() calls would escape again
# the `#` of the entities made by the previous call.

_ESCAPES = {";": "#59;", "#": "#35;", "<": "#60;", ">": "#62;", "%": "#37;", "\t": " ",
            "\r\n": "<br>", "\r": "<br>", "\n": "<br>", "\u2028": "<br>", "\u2029": "<br>"}
# `<` could start HTML; `%` could start a directive (`%%{init: …}%%` restyles the whole
# diagram, wherever it stands). Other control characters are dropped (mapped to "").
_TO_ESCAPE = re.compile(r"\r\n|[;#<>%\u2028\u2029]|[\x00-\x1f\x7f-\x9f]")
_ESCAPED = re.compile(r"#([0-9]{1,7}|[A-Za-z]{2,8});|<br\s*/?>", re.IGNORECASE)


def escape(label: str) -> str:
    """A label safe in a Mermaid line: « a;b » -> « a#59;b », a newline -> <br>."""
    return inert(shorten(label))


def inert(text: str) -> str:
    """Any text safe in a Mermaid line, whole: no directive, no statement break, no HTML.

    >>> inert('%%{init: {"theme": "dark"}}%% a;b')
    '#37;#37;{init: {"theme": "dark"}}#37;#37; a#59;b'
    """
    return _TO_ESCAPE.sub(lambda match: _ESCAPES.get(match[0], ""), text)


def unescape(text: str) -> str:
    """The inverse of escape(): « a#59;b » -> « a;b », <br> -> a newline."""
    return _ESCAPED.sub(_decode, text)


def _decode(match: re.Match[str]) -> str:
    code = match[1]
    if code is None:
        return "\n"
    if not code.isdigit():  # a named entity: #quot; -> "
        return html5.get(code + ";", match[0])
    n = int(code)  # keep what is not a character (0, surrogates, too large) as it was
    return chr(n) if 0 < n < 0x110000 and not 0xD800 <= n < 0xE000 else match[0]


# The parser: one line at a time, every line either understood or refused.

_ID = r"[^\s:;,<>+\-#%]+"  # no dash: A->>B must split into A, ->>, B; no % (directives)
_ARROWS = r"<<-->>|<<->>|-->>|->>|--x|-x|--\)|-\)|-->|->"  # longest first: -->> before -->
_ARROW = re.compile(rf"({_ID})\s*({_ARROWS})\s*[+-]?({_ID})\s*:(.*)")
_PARTICIPANT = re.compile(rf"(participant|actor)\s+({_ID})(?:\s+as\s+(.*))?")
_ANNOTATION = re.compile(r"%%\s*(ctx|note|budget)\s*:(.*)")
_CTX = re.compile(r"(\S+)\s+(\S+)\s*(.*)")
_ACC = re.compile(r"(accTitle|accDescr)\s*:(.*)")
_BLOCK = re.compile(r"(loop|rect|alt|opt|par|critical|break|box)\b(.*)")
# Mermaid statements that change nothing in messages[]: accepted, not kept.
_IGNORED = {"autonumber", "else", "and", "option", "note", "activate", "deactivate",
            "title", "create", "destroy", "link", "links", "properties", "details"}


def parse(text: str) -> Diagram:
    """Read an annotated diagram; raise DiagramError (line number, French) if it is wrong."""
    if not isinstance(text, str):
        raise DiagramError(f"le diagramme doit être un texte (str), pas {type(text).__name__}")
    return _Parser(text).run()


def _tokens(value: str, number: int) -> int:
    if not re.fullmatch(r"[0-9]{1,12}", value):
        raise DiagramError(f"« {value} » n’est pas un nombre de tokens (entier positif)", number)
    return int(value)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.title = self.description = ""
        self.budget: int | None = None
        self.participants: dict[str, Participant] = {}
        self.initial: list[Entry] = []
        self.steps: list[dict] = []  # drafts, frozen into Steps at the end
        self.blocks: list[tuple[str, str, int]] = []  # open blocks: (kind, label, line)

    def run(self) -> Diagram:
        started = False
        for number, raw in enumerate(re.split(r"\r\n|\r|\n", self.text), start=1):
            line = raw.strip()
            if started and line:
                self.read(line, number)
            elif line == "sequenceDiagram":
                started = True
            elif line and (not line.startswith("%%") or _ANNOTATION.match(line)):
                raise DiagramError("le diagramme doit commencer par « sequenceDiagram »", number)
        if not started:
            raise DiagramError("texte vide : il manque la ligne « sequenceDiagram »", 1)
        if self.blocks:
            kind, _, opened = self.blocks[-1]
            raise DiagramError(f"bloc « {kind} » jamais fermé par « end »", opened)
        return self.diagram()

    def read(self, line: str, number: int) -> None:
        word = line.split(maxsplit=1)[0].lower()
        if line.startswith("%%"):
            self.annotation(line, number)
        elif match := _ARROW.fullmatch(line):
            self.arrow(*match.groups())
        elif match := _PARTICIPANT.fullmatch(line):
            kind, pid, label = match.groups()
            self.participants[pid] = Participant(pid, unescape(label or pid).strip(), kind)
        elif match := _ACC.fullmatch(line):
            setattr(self, "title" if match[1] == "accTitle" else "description",
                    unescape(match[2].strip()))
        elif match := _BLOCK.fullmatch(line):
            self.open_block(match[1], unescape(match[2].strip()), number)
        elif line == "end":
            if not self.blocks:
                raise DiagramError("« end » sans bloc ouvert (loop, rect…)", number)
            self.blocks.pop()
        elif word not in _IGNORED:
            raise DiagramError(f"ligne non reconnue : « {line[:60]} »", number)

    def annotation(self, line: str, number: int) -> None:
        match = _ANNOTATION.match(line)
        if match is None:
            return  # an ordinary comment
        key, value = match[1], match[2].strip()
        if key == "budget":
            self.budget = _tokens(value, number)
        elif key == "note":
            if not self.steps:
                raise DiagramError("une note doit suivre une flèche", number)
            self.steps[-1]["notes"].append(unescape(value))
        elif (ctx := _CTX.fullmatch(value)) is None:
            raise DiagramError("annotation ctx incomplète : attendu « ctx: RÔLE TOKENS LIBELLÉ »",
                               number)
        elif ctx[1] not in ROLES:
            raise DiagramError(f"rôle inconnu « {ctx[1]} » (attendu : {', '.join(ROLES)})", number)
        else:
            entry = Entry(ctx[1], _tokens(ctx[2], number), unescape(ctx[3]))
            (self.steps[-1]["entries"] if self.steps else self.initial).append(entry)

    def arrow(self, source: str, arrow: str, target: str, text: str) -> None:
        for pid in (source, target):  # Mermaid creates undeclared participants
            self.participants.setdefault(pid, Participant(pid, pid))
        loop = next((label for kind, label, _ in self.blocks if kind == "loop"), None)
        self.steps.append({"source": source, "target": target, "arrow": arrow,
                           "text": unescape(unaside(text.strip())),
                           "loop": loop,
                           "entries": [], "notes": []})

    def open_block(self, kind: str, label: str, number: int) -> None:
        if kind == "loop" and any(k == "loop" for k, _, _ in self.blocks):
            raise DiagramError("boucle dans une boucle : non prise en charge par le cours", number)
        self.blocks.append((kind, label, number))

    def diagram(self) -> Diagram:
        model = {p.id for p in self.participants.values() if p.label == "Modèle" or p.id == "M"}
        steps, turn = [], 0
        for index, draft in enumerate(self.steps, start=1):
            turn += draft["target"] in model and draft["source"] not in model
            notes, entries = draft.pop("notes"), draft.pop("entries")
            steps.append(Step(index, **draft, entries=tuple(entries), note="\n".join(notes),
                              turn=turn))
        return Diagram(self.title, self.description, tuple(self.participants.values()),
                       tuple(self.initial), tuple(steps), self.budget, self.text)


# Writing.


def to_mermaid(diagram: Diagram, upto: int | None = None, highlight: bool = True,
               window: int | None = None, label_limit: int = LABEL_LIMIT,
               rows: int = 1) -> str:
    """Mermaid text of steps 1..upto (all if None), the last one shown highlighted.

    With `window`, only the last `window` arrows are drawn: a note at the top says
    how many came before, `autonumber` keeps their real numbers, and participants
    that none of them involves are left out (the drawing stays narrow).
    `label_limit`: labels longer than this end in « … »; with `rows` > 1, they are
    first wrapped at spaces onto `rows` lines of at most `label_limit` characters.
    """
    if upto is not None and not 0 <= upto <= len(diagram.steps):
        raise DiagramError(f"étape {upto} hors du diagramme (0 à {len(diagram.steps)})")
    shown = diagram.steps[:upto]
    first = max(1, len(shown) - window + 1) if window else 1
    lines = ["sequenceDiagram", *_header(diagram, first, shown[first - 1:])]
    loop: str | None = None  # the loop currently open
    for number, step in enumerate(shown[first - 1:], start=first):
        if step.loop != loop:  # close the previous loop, open the next one
            lines += ["  end"] if loop is not None else []
            lines += [f"  loop {escape(step.loop)}".rstrip()] if step.loop is not None else []
            loop = step.loop
        body = _step_lines(step, label_limit, rows)
        if highlight and number == len(shown):
            body = [f"rect {HIGHLIGHT}", *("  " + line for line in body), "end"]
        lines += [("  " if loop is None else "    ") + line for line in body]
    lines += ["  end"] if loop is not None else []  # a cut inside a loop still closes it
    return "\n".join(lines) + "\n"


def _header(diagram: Diagram, first: int = 1, shown: tuple[Step, ...] = ()) -> list[str]:
    lines = [f"  accTitle: {inert(one_line(diagram.title))}"] if one_line(diagram.title) else []
    if one_line(diagram.description):
        lines.append(f"  accDescr: {inert(one_line(diagram.description))}")
    lines.append(f"  autonumber {first}" if first > 1 else "  autonumber")
    involved = {pid for step in shown for pid in (step.source, step.target)}
    participants = [p for p in diagram.participants if first == 1 or p.id in involved]
    for p in participants:
        label = escape(p.label).strip()
        lines.append(f"  {p.kind} {p.id} as {label}" if label else f"  {p.kind} {p.id}")
    if diagram.budget is not None:
        lines.append(f"  %% budget: {diagram.budget}")
    if first > 1 and participants:  # what the window hides, said where it starts
        ends = ",".join(dict.fromkeys((participants[0].id, participants[-1].id)))
        hidden = "une étape plus haut" if first == 2 else f"{first - 1} étapes plus haut"
        lines.append(f"  Note over {ends}: ⋯ {hidden}")
    return lines + ["  " + _ctx_line(entry) for entry in diagram.initial]


def _ctx_line(entry: Entry) -> str:
    return f"%% ctx: {entry.role} {entry.tokens} {inert(one_line(entry.label))}".rstrip()


def wrap(text: str, limit: int, lines: int = 1) -> str:
    """`text` on at most `lines` lines of `limit` characters, cut with « … » beyond.

    >>> print(wrap('tool_call call_1 : read_file("README.md")', 24, 2))
    tool_call call_1 :
    read_file("README.md")
    """
    if lines < 2 or len(text) <= limit:
        return shorten(text, limit)
    parts = textwrap.wrap(one_line(text), limit, break_on_hyphens=False) or [""]
    if len(parts) > lines:  # the last line shown ends in « … »: something follows
        parts[lines - 1] = shorten(parts[lines - 1] + " " + parts[lines], limit)
    return "\n".join(parts[:lines])


def arrow_line(step: Step, label_limit: int = LABEL_LIMIT, lines: int = 1) -> str:
    """A step's arrow as written: `H->>M: label`, a self-arrow's label set aside (on one
    line: the en spaces that set it aside would not move a second one)."""
    if step.source == step.target:
        text = aside(escape(shorten(step.text, label_limit)))
    else:
        text = escape(wrap(step.text, label_limit, lines))
    return f"{step.source}{step.arrow}{step.target}: {text}".rstrip()


def _step_lines(step: Step, label_limit: int = LABEL_LIMIT, lines: int = 1) -> list[str]:
    lines_ = [arrow_line(step, label_limit, lines)]
    lines_ += [_ctx_line(entry) for entry in step.entries]
    # A note may span lines: one `%% note:` line each, joined again by the parser.
    notes = step.note.split("\n") if step.note else []
    return lines_ + [f"%% note: {inert(one_line(part))}".rstrip() for part in notes]
