"""A command's output, bounded: its head and its tail, as valid text.

A command may print gigabytes; the model needs its beginning (what started) and its
end (the error, the summary). `HeadTail` keeps both halves of a byte budget, counts
what it drops between, and turns the bytes into text that says when they were not UTF-8.

>>> out = HeadTail(10)
>>> out.add(b"abcdefghijklmnop")
>>> print(out.text())
abcde
… [tronqué : 6 octets au milieu] …
lmnop
"""

from __future__ import annotations

from ..text import french_number


class HeadTail:
    """The first and last `limit // 2` bytes of a stream, and how many were dropped between."""

    def __init__(self, limit: int) -> None:
        self.half = limit // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = max(0, self.half - len(self.head))
        self.head += chunk[:room]
        self.tail += chunk[room:]
        excess = len(self.tail) - self.half
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        """The output as text; bytes that are not UTF-8 become �, and the text says so."""
        if not self.dropped:
            parts = [bytes(self.head + self.tail)]
        else:  # the cuts may fall inside a character: those bytes are the cut's, dropped
            head = self.head[: len(self.head) - _partial_end(self.head)]
            tail = self.tail.lstrip(bytes(range(0x80, 0xC0)))
            dropped = self.dropped + len(self.head) - len(head) + len(self.tail) - len(tail)
            cut = f"\n… [tronqué : {french_number(dropped)} octets au milieu] …\n"
            parts = [bytes(head), cut.encode(), bytes(tail)]
        texts = [part.decode("utf-8", "replace") for part in parts]
        if any("\ufffd" in text and "\ufffd".encode() not in part
               for text, part in zip(texts, parts, strict=True)):
            texts.insert(0, "[sortie non UTF-8 : octets illisibles remplacés par �]\n")
        return "".join(texts)


def _partial_end(data: bytearray) -> int:
    """How many bytes at the end of `data` begin a UTF-8 character that is not complete."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return 0
        if byte >= 0xC0:  # a lead byte: does the character need more than what follows?
            size = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return back if size > back else 0
    return 0


def unencodable(err: UnicodeEncodeError) -> str:
    """Why a text (a path, a command) cannot be handed to the system, in French: a lone
    surrogate, half of a UTF-16 pair, which no program can receive (Python says it in English).

    >>> said = unencodable(UnicodeEncodeError("utf-8", "ab\\ud800", 2, 3, "?"))
    >>> said.startswith("caractère U+D800 en position 3"), "UTF-16" in said
    (True, True)
    """
    return (f"caractère U+{ord(err.object[err.start]):04X} en position {err.start + 1} : "
            "une moitié de paire UTF-16 seule, qui n’est pas un caractère")
