"""What a model costs, when the provider does not say it in its reply.

OpenRouter writes the price of each call in `usage.cost`: the bill uses it first
(recorder.py). Other servers do not, and a budget in dollars (`Limits.max_cost`)
must still stop a run: then the price per million tokens comes from this table,
for the course's default models (OpenRouter's list prices), or from OpenRouter's
models list when online (`prices_from_models_list`, cached by the caller). A model
in neither has no price: its cost is unknown, and the course says so.

>>> known_price("openai/gpt-4o-mini")
(0.15, 0.6)
>>> prices_from_models_list({"data": [{"id": "a/b", "pricing": {"prompt": "0.000001",
...                                                              "completion": "0.000002"}}]})
{'a/b': (1.0, 2.0)}
"""

from __future__ import annotations

from typing import Any

from .model import Price

# Dollars per million tokens (input, output): the list prices of https://openrouter.ai/models
# when this table was written. A price can change: `usage.cost`, when given, always wins.
PRICES: dict[str, Price] = {
    "openai/gpt-4o-mini": (0.15, 0.60),  # DEFAULT_MODEL
    "openai/gpt-4.1-mini": (0.40, 1.60),
    "google/gemini-2.5-flash": (0.30, 2.50),
    "anthropic/claude-3.5-haiku": (0.80, 4.00),
}


def known_price(model: str) -> Price | None:
    """The table's price of `model` (OpenRouter's name, or the name without its vendor)."""
    if model in PRICES:
        return PRICES[model]
    by_short_name = {name.split("/", 1)[1]: price for name, price in PRICES.items()}
    return by_short_name.get(model)


def prices_from_models_list(body: Any) -> dict[str, Price]:
    """Prices from the JSON of GET /models (OpenRouter: dollars per token, as strings)."""
    prices: dict[str, Price] = {}
    for model in body.get("data", []) if isinstance(body, dict) else []:
        pricing = model.get("pricing") if isinstance(model, dict) else None
        if not isinstance(pricing, dict):
            continue
        try:  # one odd entry (no pricing, "-1" for a variable price) must not lose the others
            prompt, completion = float(pricing["prompt"]), float(pricing["completion"])
        except (TypeError, KeyError, ValueError):
            continue
        if isinstance(model.get("id"), str) and prompt >= 0 and completion >= 0:
            prices[model["id"]] = (round(prompt * 1e6, 6), round(completion * 1e6, 6))
    return prices
