"""A course diagram as a file, for slides or a static site: Mermaid text, SVG or PNG.

The course itself never needs this module: it draws its diagrams in the page, offline
(the bundled Mermaid, player/renderer.py). It is for teachers who want a picture
outside the notebooks.

- `export_text` writes the annotated Mermaid text (a `.mmd` file): offline, always works.
- `export_image` asks a mermaid.ink server to draw it, through mermaid-py: that
  needs the network (the public https://mermaid.ink, or your own server).

>>> text = diagram_text("deux_tours", step=2)  # the first two arrows, the 2nd highlighted
>>> [line.strip() for line in text.splitlines() if "->>" in line]
['U->>H: Lis README.md et résume le projet', 'H->>M: messages[] + définition des outils']
>>> parse(text).steps[1].note  # the annotations travel with it
'Le modèle reçoit le contexte. Il ne connaît pas le dépôt.'
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import HarnessError
from ...files import write_atomically
from ...trace import Trace
from .diagram import Diagram, DiagramError
from .mermaid import CHAPTER, chapter_diagram, parse, to_mermaid
from .trace_diagram import from_trace

if TYPE_CHECKING:  # for the annotation only: mermaid-py is imported when drawing
    import mermaid

DEFAULT_SERVER = "https://mermaid.ink"
IMAGE_SUFFIXES = (".svg", ".png")


def as_diagram(source: Diagram | Trace | str) -> Diagram:
    """A Diagram from a Diagram, a Trace, a chapter diagram name or annotated Mermaid text."""
    if isinstance(source, Diagram):
        return source
    if isinstance(source, Trace):
        return from_trace(source)
    return chapter_diagram(source) if source in CHAPTER else parse(source)


def diagram_text(source: Diagram | Trace | str, step: int | None = None) -> str:
    """The Mermaid text of steps 1..step (all if None); a given step is highlighted."""
    # The whole diagram is drawn plainly: a highlighted last arrow would mean « you are here ».
    return to_mermaid(as_diagram(source), upto=step, highlight=step is not None)


def export_text(source: Diagram | Trace | str, path: str | Path,
                step: int | None = None) -> Path:
    """Write the annotated Mermaid text to `path` (offline). `parse` reads it back."""
    return _write(Path(path), diagram_text(source, step).encode("utf-8"))


def export_image(source: Diagram | Trace | str, path: str | Path, *,
                 step: int | None = None, server: str | None = None) -> Path:
    """Draw the diagram as SVG (path ending in .svg) or PNG (.png) and write it.

    NEEDS THE NETWORK: mermaid-py sends the text (base64, in the URL) to a
    mermaid.ink server: `server`, else $MERMAID_INK_SERVER, else https://mermaid.ink.
    It asks for both the SVG and the PNG whichever you keep, and sets no time
    limit: a server that accepts the connection but never answers blocks (Ctrl-C).
    Any failure (no network, an error answer, not an image) is a HarnessError
    with a French `explication`; nothing is written then.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in IMAGE_SUFFIXES:
        raise HarnessError(f"unsupported image suffix: {path.suffix!r}", explication=(
            f"« {path.name} » : une image se termine par .svg ou .png "
            "(pour le texte Mermaid, hors ligne : export_text, fichier .mmd)."))
    text = diagram_text(source, step)  # a wrong diagram or step fails here, before the network
    drawing = _draw(text, server or os.environ.get("MERMAID_INK_SERVER") or DEFAULT_SERVER)
    # The server's bytes, written as they came: Mermaid.to_svg() would write requests'
    # decoded text, whose encoding is a guess when the server names no charset.
    if suffix == ".svg":
        data = drawing.svg_response.content
        valid = b"<svg" in data[:2000]
    else:
        data = drawing.img_response.content
        valid = data.startswith(b"\x89PNG")
    if not valid:  # a proxy's or a captive portal's HTML page must not become the image
        raise HarnessError(f"not an image: {data[:80]!r}", explication=(
            f"Le serveur Mermaid a répondu, mais pas par une image {suffix[1:].upper()} : "
            "vérifiez l’adresse du serveur (MERMAID_INK_SERVER)."))
    return _write(path, data)


def _draw(text: str, server: str) -> mermaid.Mermaid:
    """Ask `server` to draw `text`; every failure becomes a French HarnessError."""
    # Imported here, not at the top: mermaid-py imports requests and, inside IPython,
    # registers a cell magic. `import harness_lib` must do neither.
    import mermaid
    import requests

    try:
        with _server_env(server.rstrip("/")):  # mermaid-py only reads the environment
            return mermaid.Mermaid(text)
    except mermaid.MermaidError as err:
        raise HarnessError(f"HTTP {err.status_code} from {server}", explication=(
            f"Le serveur Mermaid ({server}) a refusé de dessiner le diagramme "
            f"(HTTP {err.status_code}). Le texte reste exportable hors ligne "
            "avec export_text (.mmd).")) from None
    except requests.RequestException as err:  # no network, refused, bad address…
        raise HarnessError(f"{type(err).__name__} for {server}", explication=(
            f"Impossible de joindre le serveur Mermaid ({server}) : l’export en image "
            "a besoin du réseau. Hors ligne, exportez le texte (.mmd) : JupyterLab "
            "le dessine sans réseau.")) from None  # no requests traceback for learners


@contextmanager
def _server_env(server: str) -> Iterator[None]:
    """Set $MERMAID_INK_SERVER for one request, then put back what was there."""
    before = os.environ.get("MERMAID_INK_SERVER")
    os.environ["MERMAID_INK_SERVER"] = server
    try:
        yield
    finally:
        if before is None:
            del os.environ["MERMAID_INK_SERVER"]
        else:
            os.environ["MERMAID_INK_SERVER"] = before


def _write(path: Path, data: bytes) -> Path:
    """Whole or not at all (files.write_atomically): never a FIFO, a device, half a file."""
    write_atomically(path, data)  # its FileError is a HarnessError, in French
    return path


def load(name_or_file: str) -> Diagram:
    """What the CLI accepts: a chapter diagram name, a .mmd file or a saved trace (.jsonl)."""
    if name_or_file in CHAPTER:
        return chapter_diagram(name_or_file)
    path = Path(name_or_file)
    if not path.is_file():
        raise HarnessError(f"unknown diagram: {name_or_file!r}", explication=(
            f"« {name_or_file} » n’est ni un diagramme du chapitre "
            f"({', '.join(CHAPTER)}), ni un fichier (.mmd ou trace .jsonl)."))
    try:
        if path.suffix.lower() == ".jsonl":
            return from_trace(Trace.load(path))
        return parse(path.read_text(encoding="utf-8"))
    except DiagramError:
        raise  # already says, in French, which line is wrong
    except (OSError, ValueError, TypeError, KeyError) as err:  # JSON errors are ValueErrors
        raise HarnessError(f"unreadable {path}: {err}", explication=(
            f"« {path} » est illisible : ni un diagramme Mermaid annoté, ni une trace "
            f"enregistrée par Trace.save ({err}).")) from None
