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
        for name in ("model_timeout", "tool_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"Limits : {name} doit être un nombre de secondes > 0, "
                                 f"pas {getattr(self, name)!r}")
