"""What a sample costs in USD: the price table shipped with agentloop, the config's
``prices:``, and the cost of a trajectory's billed requests.

The price of a run's model is found once, in this order:

1. ``prices:`` in the config, keyed by the model spec exactly as ``model:`` writes it.
2. Models that bill nothing: ``scripted:``, ``replay:``, ``local:`` and score mode (no
   request is made) cost 0.
3. The table (``prices.json`` beside this module: USD per million tokens, its date and
   source in the file), under the provider that serves the requests: the spec's prefix
   for a LangChain provider at its own endpoint, else the provider whose API host the
   endpoint is (``openai:`` without ``base_url`` is ``api.openai.com``; ``openai:`` with
   ``base_url: https://api.groq.com/openai/v1`` is Groq). The model name must be in the
   table exactly: ``gpt-4o-mini-2024-07-18`` is found because the table lists that
   snapshot, never by trimming a date or a suffix.
4. Otherwise the price is unknown: the cost is null with the reason, never 0.

A step served from the response cache (``StepRecord.cached``) made no request and costs
nothing. A request's cost, with rates per million tokens, is::

    (input - cached_input - cache_write) * input + cached_input * cached_input
      + (cache_write - cache_write_1h) * cache_write + cache_write_1h * cache_write_1h
      + (output - reasoning) * output + reasoning * reasoning

(reasoning at the output rate unless the price names its own; the token counts as
``TokenUsage`` reads them, reasoning inside the output even where a provider reports it
apart). It is unknown when the model reported no usage, when the prompt had tokens read
from or written to the provider's cache and the price has no rate for them
(``cached_input``, ``cache_write``, ``cache_write_1h``), or when it had more input tokens
than the price's ``max_input_tokens`` (a higher tier the table does not hold).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:  # a config reads the price types: the engine is imported by a run
    from agentloop.engine import StepRecord, Trajectory

__all__ = [
    "ModelPrice",
    "Pricing",
    "price_table",
    "requests_cost",
    "resolve_pricing",
    "sample_cost",
]

_FREE = {
    "scripted": "scripted replies are not billed",
    "replay": "a replayed recording is not billed",
    "local": "a local model is not billed",
}
"""Model spec prefixes whose requests cost nothing, and why."""
_MILLION = 1_000_000


class ModelPrice(BaseModel):
    """A model's price in USD per million tokens."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0)
    """Prompt tokens not read from the provider's prompt cache."""
    output: float = Field(ge=0)
    """Completion tokens (reasoning tokens too, unless ``reasoning`` is set)."""
    cached_input: float | None = Field(default=None, ge=0)
    """Prompt tokens read from the provider's prompt cache; unset: a request that reports
    cached tokens has an unknown cost."""
    cache_write: float | None = Field(default=None, ge=0)
    """Prompt tokens written to the provider's prompt cache (Anthropic's 5-minute cache
    writes); unset: a request that reports such tokens has an unknown cost."""
    cache_write_1h: float | None = Field(default=None, ge=0)
    """Prompt tokens written to the provider's prompt cache for an hour (Anthropic's 1-hour
    cache writes); unset: a request that reports such tokens has an unknown cost."""
    reasoning: float | None = Field(default=None, ge=0)
    """Reasoning tokens, where the provider bills them apart; unset: the output rate."""
    max_input_tokens: int | None = Field(default=None, ge=1)
    """The price holds for requests of at most this many prompt tokens (a longer one is
    billed at a tier not given here: its cost is unknown); unset: any length."""


@dataclass(frozen=True)
class Pricing:
    """How a run's requests are priced: a price, nothing billed, or unknown (``reason``)."""

    price: ModelPrice | None
    """None when nothing is billed (``free``) or the price is unknown."""
    source: str
    """Where the price comes from, or why there is none."""
    free: bool = False
    """The model's requests are not billed (scripted, replay, local, score mode)."""

    def record(self) -> dict[str, Any]:
        """As ``run.json`` records it: ``source``, and ``usd_per_million`` (the price's
        fields; null when nothing is billed or the price is unknown)."""
        price = self.price.model_dump(exclude_none=True) if self.price is not None else None
        return {"source": self.source, "usd_per_million": price}


@functools.cache
def price_table() -> dict[str, Any]:
    """The shipped table: ``date``, ``source``, ``about`` and ``providers`` (name ->
    ``pricing_page``, ``hosts``, ``models``: name -> price fields)."""
    text = resources.files("agentloop.harness.config").joinpath("prices.json").read_text("utf-8")
    table: dict[str, Any] = json.loads(text)
    return table


def _provider(prefix: str, endpoint: str | None) -> str | None:
    """The table provider that serves requests sent to ``endpoint`` (None: not one of them)."""
    providers = price_table()["providers"]
    if endpoint is None or "://" not in endpoint:  # a LangChain provider's own endpoint
        return prefix if prefix in providers and endpoint in (None, prefix) else None
    host = (urlsplit(endpoint).hostname or "").lower()
    return next((name for name, p in providers.items() if host in p["hosts"]), None)


def resolve_pricing(
    model: str | None,
    endpoint: str | None,
    prices: dict[str, ModelPrice],
    *,
    score_mode: bool = False,
) -> Pricing:
    """The pricing of ``model`` (a spec) served at ``endpoint`` (the model source's, as
    recorded in run.json); ``prices`` are the config's (see the module doc)."""
    if score_mode or model is None:
        return Pricing(None, "score mode makes no model request", free=True)
    if model in prices:
        return Pricing(prices[model], "prices: in the config")
    prefix, _, name = model.partition(":")
    if prefix in _FREE:
        return Pricing(None, _FREE[prefix], free=True)
    table = price_table()
    provider = _provider(prefix, endpoint)
    entry = table["providers"][provider]["models"].get(name) if provider else None
    if entry is not None:
        return Pricing(ModelPrice(**entry), f"agentloop's price table of {table['date']}")
    if provider is not None:
        where = f"{provider} models"
    else:
        where = f"requests to {endpoint}" if endpoint and "://" in endpoint else f"{prefix}:"
    return Pricing(
        None,
        f"no price for {model}: agentloop's price table of {table['date']} has none for "
        f"{where}; set one in the config (prices: {{{model}: {{input: ..., "
        "cached_input: ..., output: ...}})",
    )


def _step_cost(step: StepRecord, price: ModelPrice) -> float | str:
    """One billed request's USD, or why it is unknown."""
    usage = step.usage
    if usage is None:
        return "the model reported no token usage"
    cached = min(usage.cached_input_tokens, usage.input_tokens)
    written = min(usage.cache_write_input_tokens, usage.input_tokens - cached)
    hour = min(usage.cache_write_1h_input_tokens, written)
    for count, rate, name, what in (
        (cached, price.cached_input, "cached_input", "read from the provider's cache"),
        (written - hour, price.cache_write, "cache_write", "written to the provider's cache"),
        (hour, price.cache_write_1h, "cache_write_1h", "written to its cache for an hour"),
    ):
        if count and rate is None:
            return f"{count} prompt tokens were {what} and the price has no {name} rate"
    if price.max_input_tokens is not None and usage.input_tokens > price.max_input_tokens:
        return (
            f"a request of {usage.input_tokens} prompt tokens is above the price's "
            f"max_input_tokens ({price.max_input_tokens})"
        )
    reasoning = min(usage.reasoning_tokens, usage.output_tokens)
    reasoning_rate = price.output if price.reasoning is None else price.reasoning
    dollars = (
        (usage.input_tokens - cached - written) * price.input
        + cached * (price.cached_input or 0.0)
        + (written - hour) * (price.cache_write or 0.0)
        + hour * (price.cache_write_1h or 0.0)
        + (usage.output_tokens - reasoning) * price.output
        + reasoning * reasoning_rate
    )
    return dollars / _MILLION


def _steps_cost(steps: list[StepRecord], pricing: Pricing, failed: bool) -> float | str:
    """USD of one model's requests, or why it is unknown. Steps served from the response
    cache are not billed; neither is the request that failed (``failed``: it reported no
    usage)."""
    if failed and steps and steps[-1].usage is None:
        steps = steps[:-1]
    billed = [step for step in steps if not step.cached]
    if not billed or pricing.free:
        return 0.0
    if pricing.price is None:
        return pricing.source
    total = 0.0
    for step in billed:
        cost = _step_cost(step, pricing.price)
        if isinstance(cost, str):
            return cost
        total += cost
    return total


def sample_cost(
    trajectory: Trajectory | None, pricing: Pricing, user_pricing: Pricing | None = None
) -> tuple[float | None, str | None]:
    """(USD, None) for one sample's billed requests, or (None, why it is unknown): the
    agent's at ``pricing``, a simulated user's (``user_steps``) at ``user_pricing``."""
    if trajectory is None:
        return 0.0, None
    stop = trajectory.stop_reason
    costs = [_steps_cost(list(trajectory.steps), pricing, stop == "error")]
    if trajectory.user_steps:
        side = user_pricing or pricing  # None in score mode, where neither side is billed
        costs.append(_steps_cost(list(trajectory.user_steps), side, stop == "user_error"))
    for cost in costs:
        if isinstance(cost, str):
            return None, cost
    return round(sum(costs), 10), None  # type: ignore[arg-type]


def requests_cost(steps: list[StepRecord], pricing: Pricing) -> tuple[float | None, str | None]:
    """(USD, None) for model requests of one side that answered (a reward's judge), or
    (None, why it is unknown); steps served from the response cache cost nothing."""
    cost = _steps_cost(steps, pricing, False)
    return (None, cost) if isinstance(cost, str) else (round(cost, 10), None)
