"""Planning a comparison (``agentloop power``): how many samples a run needs to detect a
difference, and the smallest difference a finished comparison detects (Miller, "Adding
Error Bars to Evals", section 5).

The variance of one independent unit's paired difference (a sample with its epochs, or a
``cluster_by`` value) is read off the observed standard error: σ_d = SE·√clusters, from
the paired differences of two runs on the same samples, or, from one run, σ_d = σ·√(2(1 −
ρ)) with the run's own σ = SE·√clusters for both runs and ρ the correlation assumed
between their scores (0 unless given: as if the runs were unpaired). Then n = (z_{1−α/2} +
z_power)² σ_d² / δ² units detect a difference δ, and (z_{1−α/2} + z_power)·SE is the
smallest difference the observed comparison detects. The runs' epochs stay as they are:
more epochs per sample shrink σ_d (Miller's resampling), fewer grow it.

Where the observed standard error is 0 (every unit scored alike: 40 of 40 passed, or two
runs that agree everywhere) there is no variance to plan with: no figure, and a note says
so (a zero variance would claim that one sample detects any difference). An incomplete run
counts as its summary does: its missing results as 0, and a note says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from agentloop.harness.stats._compare import compare_runs, incomplete, summarize_run
from agentloop.harness.stats._error_bars import MIN_CLUSTERS, detectable_difference, samples_needed

__all__ = ["PowerPlan", "PowerRow", "plan_power"]


class PowerRow(BaseModel):
    """One reward's figures."""

    reward: str
    units: int
    """Independent units observed: samples (each with its epochs) or ``cluster_by`` values;
    paired ones with two runs."""
    sd_a: float | None = None
    """Standard deviation of one unit's score in A (SE·√units)."""
    sd_b: float | None = None
    """The same in B; one run: A's, assumed."""
    correlation: float | None = None
    """Correlation of A's and B's per-unit scores: observed with two runs, assumed with
    one."""
    sd_difference: float | None = None
    """Standard deviation of one unit's paired difference B − A."""
    se: float | None = None
    """Standard error of the mean difference at the observed size."""
    detectable: float | None = None
    """The smallest difference detectable at the observed size, with the plan's power and
    significance level."""
    needed: int | None = None
    """Units needed to detect ``delta`` (paired runs on the same samples)."""
    needed_unpaired: int | None = None
    """Units needed per run were the runs on different samples (no correlation to use)."""
    note: str | None = None
    """Why figures are missing."""


class PowerPlan(BaseModel):
    """The power figures of one run (a comparison being planned) or of two."""

    runs: list[str]
    alpha: float
    power: float
    delta: float | None = None
    """The difference to detect; None: only the detectable difference is given."""
    correlation_assumed: float | None = None
    """One run: the correlation assumed between the two runs' scores."""
    rows: list[PowerRow] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    """What a reader must know of the runs' figures (an incomplete run)."""


NO_VARIANCE = (
    "no variance observed (every unit scored alike): nothing to plan a sample size with; "
    "run more samples, or a harder set"
)


def _needed(sd: float | None, delta: float | None, alpha: float, power: float) -> int | None:
    if sd is None or delta is None:
        return None
    return samples_needed(sd, delta, alpha, power)


def _one_run(path: str | Path, plan: PowerPlan, rho: float) -> None:
    summary = summarize_run(path)
    if not summary.complete:
        plan.notes.append(incomplete("A", summary))
    for key, stats in summary.rewards.items():
        interval = stats.interval
        if interval is None or interval.se is None or interval.clusters < MIN_CLUSTERS:
            plan.rows.append(
                PowerRow(
                    reward=key,
                    units=interval.clusters if interval else 0,
                    note=f"fewer than {MIN_CLUSTERS} independent units: too few to estimate a "
                    "variance from",
                )
            )
            continue
        units = interval.clusters
        if interval.se == 0:
            plan.rows.append(PowerRow(reward=key, units=units, sd_a=0.0, note=NO_VARIANCE))
            continue
        sd = interval.se * math.sqrt(units)
        sd_difference = sd * math.sqrt(2 * (1 - rho))
        se = sd_difference / math.sqrt(units)
        plan.rows.append(
            PowerRow(
                reward=key,
                units=units,
                sd_a=sd,
                sd_b=sd,
                correlation=rho,
                sd_difference=sd_difference,
                se=se,
                detectable=detectable_difference(se, plan.alpha, plan.power),
                needed=_needed(sd_difference, plan.delta, plan.alpha, plan.power),
                needed_unpaired=_needed(sd * math.sqrt(2), plan.delta, plan.alpha, plan.power),
            )
        )


def _two_runs(a: str | Path, b: str | Path, plan: PowerPlan) -> None:
    comparison = compare_runs(a, b)
    for label, summary in (("A", comparison.summary_a), ("B", comparison.summary_b)):
        if not summary.complete:
            plan.notes.append(incomplete(label, summary))
    for delta in comparison.rewards:
        paired = delta.paired
        if paired is None or paired.se is None or paired.clusters < MIN_CLUSTERS:
            plan.rows.append(
                PowerRow(
                    reward=delta.reward,
                    units=paired.clusters if paired else 0,
                    note=f"fewer than {MIN_CLUSTERS} paired independent units"
                    if paired
                    else "not in both runs",
                )
            )
            continue
        units = paired.clusters
        if paired.se == 0:
            plan.rows.append(
                PowerRow(
                    reward=delta.reward,
                    units=units,
                    sd_a=paired.sd_a,
                    sd_b=paired.sd_b,
                    sd_difference=0.0,
                    note=NO_VARIANCE,
                )
            )
            continue
        sd_difference = paired.se * math.sqrt(units)
        unpaired = math.sqrt(paired.sd_a**2 + paired.sd_b**2)
        plan.rows.append(
            PowerRow(
                reward=delta.reward,
                units=units,
                sd_a=paired.sd_a,
                sd_b=paired.sd_b,
                correlation=paired.correlation,
                sd_difference=sd_difference,
                se=paired.se,
                detectable=detectable_difference(paired.se, plan.alpha, plan.power),
                needed=_needed(sd_difference, plan.delta, plan.alpha, plan.power),
                needed_unpaired=_needed(unpaired, plan.delta, plan.alpha, plan.power),
            )
        )


def plan_power(
    runs: Sequence[str | Path],
    *,
    delta: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    correlation: float | None = None,
) -> PowerPlan:
    """Power figures from one run (``correlation`` assumed between the runs' scores, 0 by
    default) or from two runs' paired differences."""
    if len(runs) not in (1, 2):
        raise ValueError("power takes one run or two")
    plan = PowerPlan(runs=[str(r) for r in runs], alpha=alpha, power=power, delta=delta)
    if len(runs) == 1:
        plan.correlation_assumed = 0.0 if correlation is None else correlation
        _one_run(runs[0], plan, plan.correlation_assumed)
    else:
        _two_runs(runs[0], runs[1], plan)
    return plan
