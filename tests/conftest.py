"""Shared pytest fixtures (each test module may add its own; others append here)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_server import FakeServer


@pytest.fixture
def fake_openai() -> Iterator[FakeServer]:
    """A fake OpenAI-compatible server on 127.0.0.1 (see fake_server.py), stopped after."""
    with FakeServer() as server:
        yield server
