"""The harness's own limits: the stop conditions that the model does not control.

The chapter's mini-harness allows 15 turns, 120 seconds per model call and
60 seconds per tool. Those figures are written here once; everything else
(the models' and tools' default timeouts, the command line) refers to them.

>>> Limits()
Limits(max_turns=15, model_timeout=120.0, tool_timeout=60.0, max_tokens=None, max_cost=None, \
max_failures=3)
>>> Limits(max_turns=3).max_turns, MAX_TURNS
(3, 15)
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_TURNS = 15  # model calls that may ask for tools
MODEL_TIMEOUT = 120.0  # seconds for one model call
TOOL_TIMEOUT = 60.0  # seconds for one tool
MAX_FAILURES = 3  # failed tool results in a row


@dataclass(frozen=True)
class Limits:
    """What one run may spend. None means no limit."""

    max_turns: int = MAX_TURNS
    model_timeout: float = MODEL_TIMEOUT
    tool_timeout: float = TOOL_TIMEOUT
    max_tokens: int | None = None  # tokens billed over the whole run (input + output)
    max_cost: float | None = None  # dollars, with the model's `price`
    max_failures: int = MAX_FAILURES

    def __post_init__(self) -> None:
        # Said here, where the typo is, rather than deep inside httpx in the middle of a run.
        checks = (
            ("max_turns", _whole(self.max_turns, 1), "un entier ≥ 1"),
            ("max_failures", _whole(self.max_failures, 1), "un entier ≥ 1"),
            ("model_timeout", _seconds(self.model_timeout), "un nombre de secondes > 0 (et fini)"),
            ("tool_timeout", _seconds(self.tool_timeout), "un nombre de secondes > 0 (et fini)"),
            ("max_tokens", self.max_tokens is None or _whole(self.max_tokens, 0),
             "None ou un entier ≥ 0"),
            ("max_cost", self.max_cost is None or (_number(self.max_cost) and self.max_cost >= 0),
             "None ou un nombre ≥ 0"),
        )
        for name, ok, rule in checks:
            if not ok:
                raise ValueError(f"Limits : {name} doit être {rule}, pas {getattr(self, name)!r}")


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)  # True is an int


def _whole(value: object, minimum: int) -> bool:
    return _number(value) and isinstance(value, int) and value >= minimum


def _seconds(value: object) -> bool:
    return _number(value) and 0 < value < float("inf")  # type: ignore[operator]  # NaN fails
