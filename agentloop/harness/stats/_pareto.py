"""The accuracy-cost table of runs compared (``agentloop compare A B [C ...]``), per reward,
with the Pareto-optimal runs marked, as HAL's leaderboards plot them.

A run's point is (its ``cost_usd``, its reward's headline score). A run is Pareto-optimal
when no other run is at least as good on both (cost no higher, score no worse: higher, or
lower for a lower-is-better reward) and better on one. Identical points are all optimal.
A run without a known cost (``cost_usd`` null) or without the reward's score is not
placed: its row says why, and it neither is optimal nor keeps another run from being so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from agentloop.harness.stats._summary import RunSummary

__all__ = ["CostAccuracy", "CostAccuracyRow", "cost_accuracy", "pareto_front"]


class CostAccuracyRow(BaseModel):
    """One run's place in a reward's accuracy-cost table."""

    label: str
    """The run's label in the comparison (A, B, C, ...)."""
    run: str
    """The run's path as given."""
    score: float | None
    """The reward's headline score; None when the run has no score of it."""
    cost_usd: float | None
    """The run's ``cost_usd`` (the agent's requests; judges apart); None when unknown."""
    cost_per_pass_usd: float | None = None
    """``cost_usd`` over the results that passed the reward (``RunSummary.cost_per_pass_usd``)."""
    pareto: bool | None = None
    """True when no other placed run dominates this one; None when not placed."""
    not_placed: str | None = None
    """Why the run has no point: no known cost, or no score of the reward."""


class CostAccuracy(BaseModel):
    """A reward's accuracy-cost table over the runs compared."""

    reward: str
    better: Literal["higher", "lower"] = "higher"
    """Which way the reward's score is good."""
    rows: list[CostAccuracyRow] = Field(default_factory=list)


def pareto_front(points: Sequence[tuple[float, float] | None]) -> list[bool | None]:
    """For each (cost, score) point, score higher is better, whether it is Pareto-optimal
    among the others; None for a missing point (not placed)."""
    placed = [p for p in points if p is not None]

    def dominated(cost: float, score: float) -> bool:
        return any(c <= cost and s >= score and (c < cost or s > score) for c, s in placed)

    return [None if p is None else not dominated(*p) for p in points]


def cost_accuracy(
    labels: Sequence[str], runs: Sequence[str], summaries: Sequence[RunSummary]
) -> list[CostAccuracy]:
    """Per reward of any of the runs (in the runs' order), every run's row."""
    keys = list(dict.fromkeys(key for s in summaries for key in s.rewards))
    tables = []
    for key in keys:
        better = next(s.rewards[key].better for s in summaries if key in s.rewards)
        rows = []
        for label, run, summary in zip(labels, runs, summaries, strict=True):
            stats = summary.rewards.get(key)
            score = stats.headline if stats is not None else None
            row = CostAccuracyRow(
                label=label,
                run=run,
                score=score,
                cost_usd=summary.cost_usd,
                cost_per_pass_usd=summary.cost_per_pass_usd.get(key),
            )
            if score is None:
                row.not_placed = "no score of this reward"
            elif summary.cost_usd is None:
                row.not_placed = f"no cost data: {summary.cost_unknown or 'cost unknown'}"
            rows.append(row)
        sign = -1.0 if better == "lower" else 1.0
        points = [
            None
            if row.not_placed is not None or row.score is None or row.cost_usd is None
            else (row.cost_usd, sign * row.score)
            for row in rows
        ]
        for row, optimal in zip(rows, pareto_front(points), strict=True):
            row.pareto = optimal
        tables.append(CostAccuracy(reward=key, better=better, rows=rows))
    return tables
