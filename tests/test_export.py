"""export.py: the text offline, the images through a (fake) mermaid.ink, French errors."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import replace

import pytest
from fake_ink import PNG, FakeInk

from harness_lib.course.drawing.diagram import DiagramError
from harness_lib.course.drawing.export import diagram_text, export_image, export_text, load
from harness_lib.course.drawing.mermaid import CHAPTER, chapter_diagram, parse, to_mermaid
from harness_lib.course.drawing.trace_diagram import from_trace
from harness_lib.course.missions.scenarios import replay
from harness_lib.errors import HarnessError


@pytest.fixture(autouse=True)
def _local_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # A proxy configured on the machine must not see the test traffic.
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("MERMAID_INK_SERVER", raising=False)


@pytest.fixture
def ink() -> Iterator[FakeInk]:
    with FakeInk() as server:
        yield server


def closed_port_url() -> str:
    with socket.socket() as sock:  # a port that was free a moment ago: nobody listens
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def arrows(text: str) -> int:
    return len(parse(text).steps)


def test_svg_carries_exactly_the_diagram_text(ink, tmp_path):
    path = export_image("deux_tours", tmp_path / "d.svg", server=ink.url)
    assert path == tmp_path / "d.svg"
    desc = ET.fromstring(path.read_text(encoding="utf-8")).find("{http://www.w3.org/2000/svg}desc")
    expected = to_mermaid(chapter_diagram("deux_tours"), highlight=False)
    assert desc is not None and desc.text == expected
    # mermaid-py asks for both drawings, whichever one is kept.
    assert [p.split("/")[1] for p in ink.paths] == ["svg", "img"]


def test_png_is_the_servers_image(ink, tmp_path):
    path = export_image("erreur_outil", tmp_path / "e.PNG", server=ink.url)
    assert path.read_bytes() == PNG
    assert ink.texts[-1] == diagram_text("erreur_outil")


def test_step_sends_the_first_k_arrows_the_last_highlighted(ink, tmp_path):
    export_image("boucle_complete", tmp_path / "b.svg", step=3, server=ink.url)
    sent = ink.texts[0]
    assert sent == to_mermaid(chapter_diagram("boucle_complete"), upto=3)
    assert arrows(sent) == 3 and "rect rgba" in sent


def test_a_trace_and_a_text_are_sources_too(ink, tmp_path):
    trace = replay("normal").run.trace
    export_image(trace, tmp_path / "t.svg", server=ink.url)
    assert arrows(ink.texts[0]) == len(trace.events)
    text = "sequenceDiagram\n  H->>M: bonjour #59; au revoir\n"
    export_image(text, tmp_path / "x.svg", server=ink.url)
    assert "H->>M: bonjour #59; au revoir" in ink.texts[-1]


def test_environment_names_the_server_and_server_wins_without_changing_it(
        ink, tmp_path, monkeypatch):
    monkeypatch.setenv("MERMAID_INK_SERVER", ink.url + "/")  # a trailing slash is fine
    export_image("deux_tours", tmp_path / "env.svg")
    assert ink.paths and ink.paths[0].startswith("/svg/")
    monkeypatch.setenv("MERMAID_INK_SERVER", closed_port_url())
    export_image("deux_tours", tmp_path / "arg.svg", server=ink.url)
    assert (tmp_path / "arg.svg").exists()
    assert os.environ["MERMAID_INK_SERVER"] != ink.url  # put back as it was


def test_server_error_is_a_french_harness_error(tmp_path):
    with FakeInk(status=400) as bad, pytest.raises(HarnessError) as caught:
        export_image("deux_tours", tmp_path / "d.svg", server=bad.url)
    assert "a refusé de dessiner" in caught.value.explication
    assert "HTTP 400" in caught.value.explication and bad.url in caught.value.explication
    assert not (tmp_path / "d.svg").exists()


def test_unreachable_server_says_the_network_is_needed(tmp_path):
    with pytest.raises(HarnessError) as caught:
        export_image("deux_tours", tmp_path / "d.png", server=closed_port_url())
    err = caught.value
    assert type(err) is HarnessError and "Impossible de joindre" in err.explication
    assert "réseau" in err.explication and ".mmd" in err.explication
    assert err.__cause__ is None and err.__suppress_context__  # no requests traceback
    assert not (tmp_path / "d.png").exists()


def test_an_html_page_is_not_saved_as_an_image(tmp_path):
    with FakeInk(portal=True) as portal, pytest.raises(HarnessError) as caught:
        export_image("deux_tours", tmp_path / "d.png", server=portal.url)
    assert "pas par une image PNG" in caught.value.explication
    assert not (tmp_path / "d.png").exists()


def test_wrong_suffix_or_step_fails_before_any_request(ink, tmp_path):
    with pytest.raises(HarnessError) as caught:
        export_image("deux_tours", tmp_path / "d.jpg", server=ink.url)
    assert ".svg ou .png" in caught.value.explication and ".mmd" in caught.value.explication
    with pytest.raises(DiagramError, match="hors du diagramme"):
        export_image("deux_tours", tmp_path / "d.svg", step=99, server=ink.url)
    assert ink.paths == []


def test_unwritable_path_is_a_french_error(ink, tmp_path):
    with pytest.raises(HarnessError) as image:
        export_image("deux_tours", tmp_path / "absent" / "d.svg", server=ink.url)
    with pytest.raises(HarnessError) as text:
        export_text("deux_tours", tmp_path / "absent" / "d.mmd")
    for caught in (image, text):
        assert caught.value.explication.lower().startswith("impossible d’écrire")
        assert "absent" in caught.value.explication and "No such" not in str(caught.value)


def test_a_named_pipe_is_refused_not_waited_on(tmp_path):
    import os

    fifo = tmp_path / "d.mmd"
    os.mkfifo(fifo)  # writing would wait forever for a reader
    with pytest.raises(HarnessError, match="rien n’y est écrit"):
        export_text("deux_tours", fifo)


@pytest.mark.parametrize("name", CHAPTER)
@pytest.mark.parametrize("step", [None, 0, 4])
def test_export_text_round_trip(name, step, tmp_path):
    path = export_text(name, tmp_path / f"{name}.mmd", step)
    steps = chapter_diagram(name).steps[:step]
    assert parse(path.read_text(encoding="utf-8")).steps == steps


def test_export_text_of_a_trace_round_trip(tmp_path):
    trace = replay("tool-error").run.trace
    path = export_text(trace, tmp_path / "t.mmd")
    written = [replace(s, messages=None) for s in from_trace(trace).steps]
    assert list(parse(path.read_text(encoding="utf-8")).steps) == written


def test_export_text_loads_neither_mermaid_py_nor_requests(tmp_path):
    code = (f"import sys; from harness_lib.course.drawing.export import export_text; "
            f"export_text('deux_tours', {str(tmp_path / 'd.mmd')!r}); "
            "print(sorted(m for m in ('mermaid', 'requests') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


def test_load_names_files_and_traces(tmp_path):
    assert load("deux_tours") == chapter_diagram("deux_tours")
    (tmp_path / "d.mmd").write_text("sequenceDiagram\n  A->>B: salut\n", encoding="utf-8")
    assert [s.text for s in load(str(tmp_path / "d.mmd")).steps] == ["salut"]
    trace = replay("normal").run.trace
    trace.save(tmp_path / "t.jsonl")
    assert len(load(str(tmp_path / "t.jsonl")).steps) == len(trace.events)


def test_load_refuses_in_french(tmp_path):
    with pytest.raises(HarnessError) as caught:
        load("trois_tours")
    assert "ni un diagramme du chapitre" in caught.value.explication
    (tmp_path / "bad.jsonl").write_text("pas du JSON\n", encoding="utf-8")
    with pytest.raises(HarnessError) as caught:
        load(str(tmp_path / "bad.jsonl"))
    assert "est illisible" in caught.value.explication
    (tmp_path / "bad.mmd").write_text("graph TD\n", encoding="utf-8")
    with pytest.raises(DiagramError, match="sequenceDiagram"):
        load(str(tmp_path / "bad.mmd"))
