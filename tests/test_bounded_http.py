"""Bounded decoding and bounded waiting, against a real server on 127.0.0.1.

A few kB of double gzip would become 1 GB in the client's memory if every layer of
`Content-Encoding` were undone with no limit; a server that trickles its headers one
byte at a time, or streams `100 Continue`, would keep the HTTP worker thread and its
socket alive long after the call gave up. Here the memory is measured (tracemalloc) and
the worker looked for (threading.enumerate) after `run()` returns: outcomes, never
durations (speed lives in bench/).
"""

from __future__ import annotations

import gzip
import threading
import tracemalloc
import zlib
from collections.abc import Callable
from typing import TypeVar

import pytest
from fake_server import FakeServer, text_reply

from harness_lib import Limits, Run, run
from harness_lib.models.openrouter import OpenRouterModel

KEY = "sk-or-v1-bounded-http-test-key"
T = TypeVar("T")
MB = 1 << 20


def zeros_gzipped(megabytes: int) -> bytes:
    """gzip of `megabytes` MiB of zeros, made chunk by chunk (never whole in memory)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31, 9, zlib.Z_RLE)
    block = bytes(MB)
    return b"".join(packer.compress(block) for _ in range(megabytes)) + packer.flush()


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """gzip(gzip(1 GiB of zeros)): about 3 kB on the wire."""
    return gzip.compress(zeros_gzipped(1024), 9)


def peak_memory(work: Callable[[], T]) -> tuple[T, int]:
    """work()'s result, and the most memory Python held meanwhile (every thread's)."""
    tracemalloc.start()
    try:
        return work(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def mission(fake: FakeServer, timeout: float = 30.0) -> Run:
    model = OpenRouterModel(base_url=fake.url, api_key=KEY, max_retries=0)
    return run("Mission", model, [], limits=Limits(max_turns=2, model_timeout=timeout))


@pytest.mark.parametrize(("encoding", "words"), [
    ("gzip, gzip", "illisible"),  # two layers: refused, nothing inflated
    ("gzip", "pas du JSON valide"),  # one layer undone (1 MB of gzip), which is not JSON
])
def test_a_double_gzip_bomb_stays_small_in_memory(fake_openai: FakeServer, bomb: bytes,
                                                  encoding: str, words: str) -> None:
    assert len(bomb) < 8_000  # the 1 GiB behind it is never made
    fake_openai.push(bomb, headers={"Content-Type": "application/json",
                                    "Content-Encoding": encoding})
    result, peak = peak_memory(lambda: mission(fake_openai))
    assert result.reason == "api_error" and words in result.message
    assert peak < 64 * MB, peak  # not the 1 GiB an unbounded decoder allocates


def test_a_single_gzip_bomb_stops_at_the_cap_small_in_memory(fake_openai: FakeServer) -> None:
    fake_openai.push(zeros_gzipped(256), headers={"Content-Type": "application/json",
                                                  "Content-Encoding": "gzip"})
    result, peak = peak_memory(lambda: mission(fake_openai))
    assert result.reason == "api_error" and "La réponse dépasse 10" in result.message
    assert peak < 64 * MB, peak


def workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "harness-http"]


@pytest.mark.parametrize("fault", [
    {"trickle_headers": 0.05},  # the status line and headers, one byte at a time
    {"interim": 100_000},  # `100 Continue`, again and again, never the answer
    {"interim": 3, "trickle_headers": 0.05},
], ids=["trickled-headers", "endless-100-continue", "both"])
def test_headers_and_interim_answers_end_at_the_deadline_with_their_worker(
        fake_openai: FakeServer, fault: dict[str, float]) -> None:
    assert workers() == []
    fake_openai.push(text_reply("trop tard"), **fault)
    result = mission(fake_openai, timeout=0.5)
    assert result.reason == "timeout" and "0,5 s" in result.message
    assert workers() == []  # the worker ended with the call: no socket left reading
    assert len(fake_openai.chat_requests) == 1  # a timeout is not retried
