"""The recorded traffic of real providers (tests/data/real_traffic/) and its replay:
each sample served by `httpx.MockTransport` to a real `OpenRouterModel`, through `run()`.
Used by tests/test_real_traffic.py, test_causes.py, test_playground_causes.py and
test_reasoning_views.py.

    result, provider = replay(BY_NAME[name])   # the Run, and what the provider was sent
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from harness_lib import run
from harness_lib.limits import Limits
from harness_lib.models.openrouter import OpenRouterModel
from harness_lib.policy import Policy
from harness_lib.tools import Tool
from harness_lib.trace import Run

DATA = Path(__file__).parent / "data" / "real_traffic"
SAMPLES: list[dict[str, Any]] = [
    sample for file in sorted(DATA.glob("*.json"))
    for sample in json.loads(file.read_text(encoding="utf-8"))]
BY_NAME = {sample["name"]: sample for sample in SAMPLES}
KEY = "sk-test-not-a-real-key-36"
CLOSING = {"choices": [{"message": {"role": "assistant", "content": "Terminé."},
                        "finish_reason": "stop"}]}  # ours, after a recorded tool call


class Provider:
    """Serves the recorded answers in order, then CLOSING; keeps every request body."""

    def __init__(self, answers: list[tuple[int, Any]], headers: dict[str, str] | None = None
                 ) -> None:
        self.answers = list(answers)
        self.headers = headers or {}  # with the first answer, as recorded
        self.requests: list[dict[str, Any]] = []
        self.sleeps: list[float] = []  # the waits between two tries

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        status, body = self.answers.pop(0) if self.answers else (200, CLOSING)
        headers, self.headers = self.headers, {}
        if isinstance(body, str):  # an HTML page from a proxy, as it came
            return httpx.Response(status, text=body, headers=headers)
        return httpx.Response(status, json=body, headers=headers)


def answers(sample: dict[str, Any]) -> list[tuple[int, Any]]:
    if "exchange" in sample:
        return [(200, body) for body in sample["exchange"]]
    return [(sample["status"], sample["body"])]


def recorded_messages(sample: dict[str, Any]) -> list[dict[str, Any]]:
    return [body["choices"][0]["message"] for status, body in answers(sample)
            if status == 200 and "choices" in body and "explains" not in sample]


def stub_tools(sample: dict[str, Any]) -> list[Tool]:
    """One tool per name the recorded replies call, accepting the arguments they pass."""
    params: dict[str, set[str]] = {}
    for message in recorded_messages(sample):
        for call in message.get("tool_calls") or []:
            arguments = json.loads(call["function"].get("arguments") or "{}")
            params.setdefault(call["function"]["name"], set()).update(arguments)
    return [Tool(name, f"outil {name}", {"type": "object", "properties": {
        field: {} for field in sorted(fields)}}, lambda _n=name, **_: f"résultat de {_n}")
        for name, fields in params.items()]


def replay(sample: dict[str, Any], provider: Provider | None = None,
           limits: Limits = Limits(max_turns=6)) -> tuple[Run, Provider]:
    provider = provider or Provider(answers(sample), sample.get("headers"))
    model = OpenRouterModel(sample["body"]["model"] if "body" in sample and isinstance(
        sample["body"], dict) and "model" in sample["body"] else "test/model",
        api_key=KEY, base_url=sample["base_url"], transport=httpx.MockTransport(provider),
        sleep=provider.sleeps.append)
    tools = stub_tools(sample)
    result = run("Mission", model, tools, policy=Policy(allow=[t.name for t in tools]),
                 limits=limits)
    return result, provider


# The samples that are errors: a status, an error body, or a reply the harness explains.
ERRORS = [s for s in SAMPLES if s["status"] != 200 or "error" in s.get("body", {})
          or "explains" in s]
