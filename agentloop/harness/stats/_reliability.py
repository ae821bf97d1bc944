"""How reliably a run passes the same task across epochs: per reward with a pass verdict,
the tasks that flip (pass in one epoch, fail in another), those always and never passed,
how often two epochs of a task agree, and pass^k, each under both ways of counting a trial
without a verdict.

A task's trials are its planned epochs the reward applies to (a ``NotApplicable`` result
is no trial). A trial has a verdict (passed or failed) when its result has the reward's
pass verdict; it has none when the result errored before scoring, the reward raised, or
the result is missing. The two conventions, labelled wherever they are shown:

- **errors counted failed** (agentloop's rule, the headline's): every trial counts, one
  without a verdict as failed; its pass^k equals the summary's ``pass_hat_k``;
- **errors left out** (τ²-bench's metrics, which drop its infrastructure errors): a trial
  without a verdict is dropped, and a task left with none is no task.

Over the tasks with at least two trials (``repeated_tasks``; a single trial cannot flip):
``flip_rate`` = tasks with both a passed and a failed trial / repeated tasks,
``always_passed`` and ``never_passed`` likewise (the three add up to 1), and
``consistency`` = the mean over those tasks of the chance that two distinct trials of the
task agree, (C(c, 2) + C(n − c, 2)) / C(n, 2) for c passed of n. pass^k = the mean over
tasks of C(c, k) / C(n, k), for k up to the fewest trials a task has.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

from pydantic import BaseModel, Field

from agentloop.harness.stats._estimators import pass_hat_k

__all__ = ["ReliabilityFigures", "RewardReliability", "TaskTrials", "reliability"]


class TaskTrials(NamedTuple):
    """One task's trials of one reward."""

    planned: int
    """Trials counted: its planned epochs the reward applies to."""
    verdicts: int
    """Of those, trials with a pass verdict."""
    passed: int
    """Of those, trials that passed."""


class ReliabilityFigures(BaseModel):
    """One reward's reliability under one convention (see the module doc)."""

    tasks: int = 0
    """Tasks with at least one trial counted."""
    trials: int = 0
    """Trials counted over those tasks."""
    repeated_tasks: int = 0
    """Tasks with at least two trials counted: the ones the shares below are over."""
    flipped: int = 0
    """Repeated tasks with both a passed and a failed trial."""
    always_passed: int = 0
    """Repeated tasks whose every trial passed."""
    never_passed: int = 0
    """Repeated tasks none of whose trials passed."""
    flip_rate: float | None = None
    """``flipped`` / ``repeated_tasks``; None without a repeated task."""
    always_passed_share: float | None = None
    """``always_passed`` / ``repeated_tasks``; None without a repeated task."""
    never_passed_share: float | None = None
    """``never_passed`` / ``repeated_tasks``; None without a repeated task."""
    consistency: float | None = None
    """Mean over repeated tasks of the chance that two distinct trials agree (both pass or
    both fail): 1 when no task flips; None without a repeated task."""
    pass_hat_k: dict[int, float] = Field(default_factory=dict)
    """k -> mean over tasks of C(c, k) / C(n, k), k from 1 to the fewest trials a task has."""


class RewardReliability(BaseModel):
    """One reward's reliability across epochs, both conventions (see the module doc)."""

    passed: int = 0
    """Trials that passed (the same under both conventions)."""
    without_verdict: int = 0
    """Trials without a pass verdict (errored, the reward raised, missing): with none, the
    two conventions agree."""
    errors_counted_failed: ReliabilityFigures
    """Every trial counted, one without a verdict as failed (agentloop's rule)."""
    errors_left_out: ReliabilityFigures
    """Trials without a verdict left out (τ²-bench's convention)."""


def _figures(tasks: Iterable[tuple[int, int]]) -> ReliabilityFigures:
    """The figures over (trials, passed) per task; tasks without a trial are none."""
    kept = [(n, c) for n, c in tasks if n > 0]
    figures = ReliabilityFigures(tasks=len(kept), trials=sum(n for n, _ in kept))
    repeated = [(n, c) for n, c in kept if n >= 2]
    if repeated:
        count = len(repeated)
        figures.repeated_tasks = count
        figures.flipped = sum(0 < c < n for n, c in repeated)
        figures.always_passed = sum(c == n for n, c in repeated)
        figures.never_passed = sum(c == 0 for _, c in repeated)
        figures.flip_rate = figures.flipped / count
        figures.always_passed_share = figures.always_passed / count
        figures.never_passed_share = figures.never_passed / count
        figures.consistency = (
            sum((math.comb(c, 2) + math.comb(n - c, 2)) / math.comb(n, 2) for n, c in repeated)
            / count
        )
    most_k = min((n for n, _ in kept), default=0)
    for k in range(1, most_k + 1):
        figures.pass_hat_k[k] = sum(pass_hat_k(n, c, k) for n, c in kept) / len(kept)
    return figures


def reliability(tasks: Iterable[TaskTrials]) -> RewardReliability:
    """A reward's reliability over its tasks' trials, both conventions."""
    found = list(tasks)
    for task in found:
        if not 0 <= task.passed <= task.verdicts <= task.planned:
            raise ValueError(f"need 0 <= passed <= verdicts <= planned, got {task}")
    return RewardReliability(
        passed=sum(t.passed for t in found),
        without_verdict=sum(t.planned - t.verdicts for t in found),
        errors_counted_failed=_figures((t.planned, t.passed) for t in found),
        errors_left_out=_figures((t.verdicts, t.passed) for t in found),
    )
