"""Error bars for eval scores: intervals, paired tests and power, after Evan Miller,
"Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations"
(Anthropic, 2024, arXiv:2411.00640).

The questions of an eval are taken as drawn from a super-population, so a score is an
estimate with a standard error. Results that are not independent (a sample's epochs; the
questions of one passage, named by ``cluster_by``) form a *cluster*, and the standard
error is Miller's clustered one (his equation 4)::

    SE² = SE_CLT² + (1/n²) Σ_c Σ_i Σ_{j≠i} (s_ic − s̄)(s_jc − s̄),   SE_CLT² = s²/n

(s² the sample variance of the n results); with one result per cluster it is the usual
s/√n. The 95% interval of a mean is s̄ ± t·SE, t Student's quantile with (clusters − 1)
degrees of freedom (its CDF through the regularized incomplete beta function, below), cut
to the scores' range [0, 1] (the mean lies in it, so the cut keeps the coverage);
a score whose every result is 0 or 1 (a pass rate) gets Wilson's score interval instead,
over the effective number of trials when results are clustered (n divided by the design
effect, SE² over SE_CLT², never above n). pass@k and pass^k get a percentile bootstrap:
clusters of tasks resampled with replacement, seeded, so the same results give the same
interval.

Two runs on the same questions are compared by their paired differences (Miller section
4), whose standard error is the clustered one of the differences: McNemar's exact test
when every pair is a lone 0/1 result on both sides, a paired t test on the clustered
standard error otherwise. Several comparisons at once are corrected with Holm's method.
Power (Miller section 5): n = (z_{1−α/2} + z_{power})² σ_d² / δ² samples detect a
difference δ, σ_d² = σ_A² + σ_B² − 2ρσ_Aσ_B the variance of a sample's paired
difference; a finished comparison detects (z_{1−α/2} + z_{power})·SE.

With fewer than ``MIN_CLUSTERS`` independent units no interval is given: it says so.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from functools import lru_cache
from statistics import NormalDist

from pydantic import BaseModel

__all__ = [
    "BOOTSTRAP_DRAWS",
    "BOOTSTRAP_SEED",
    "LEVEL",
    "MIN_CLUSTERS",
    "ClusterTotals",
    "Interval",
    "PairedDifference",
    "bootstrap_intervals",
    "cluster_totals",
    "clustered_se",
    "detectable_difference",
    "holm",
    "mcnemar_exact",
    "mean_interval",
    "paired_difference",
    "regularized_beta",
    "samples_needed",
    "t_cdf",
    "t_quantile",
    "wilson",
]

LEVEL = 0.95
"""The confidence level of every interval and test (two-sided, α = 0.05)."""
MIN_CLUSTERS = 5
"""Fewer independent units (clusters) than this: no interval, and a note says why."""
BOOTSTRAP_DRAWS = 2000
BOOTSTRAP_SEED = 0

ClusterTotals = tuple[int, float, float]
"""One cluster's results: (how many, sum of scores, sum of squared scores)."""


class Interval(BaseModel):
    """A 95% confidence interval of an estimate, and how it was computed."""

    low: float | None = None
    """Lower bound; None when no interval is given (``note`` says why)."""
    high: float | None = None
    """Upper bound; None with ``low``."""
    se: float | None = None
    """The estimate's standard error (clustered where results are): for a bootstrap, the
    standard deviation of the resampled estimates."""
    method: str = ""
    """``t`` (mean ± t·SE, clusters − 1 degrees of freedom, cut to the scores' range
    [0, 1]: ``note`` says when it was), ``wilson`` (Wilson's score interval, over the
    effective number of trials) or ``bootstrap`` (percentiles of 2000 resamples of the
    clusters, seed 0)."""
    clusters: int = 0
    """Independent units the interval rests on: samples, or ``cluster_by`` values, or
    results when each is its own."""
    results: int = 0
    """Results (trials) counted, as the estimate counts them."""
    note: str | None = None
    """Why there is no interval (too few clusters, no spread to resample), or a caveat."""


def cluster_totals(values: Sequence[float], labels: Sequence[object]) -> list[ClusterTotals]:
    """Per cluster label, in first-seen order: (results, sum, sum of squares)."""
    if len(values) != len(labels):
        raise ValueError("values and labels must have the same length")
    totals: dict[object, list[float]] = {}
    for value, label in zip(values, labels, strict=True):
        entry = totals.setdefault(label, [0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += value
        entry[2] += value * value
    return [(int(n), s, q) for n, s, q in totals.values()]


def clustered_se(clusters: Sequence[ClusterTotals]) -> float:
    """Miller's clustered standard error of the mean (equation 4); the plain s/√n when
    every cluster holds one result. 0 with fewer than two results."""
    n = sum(c[0] for c in clusters)
    if n < 2:
        return 0.0
    mean = sum(c[1] for c in clusters) / n
    # Σ_i (s_i − s̄)² within each cluster, and (Σ_i (s_i − s̄))² of each cluster
    squares = sum(max(q - 2 * mean * s + k * mean * mean, 0.0) for k, s, q in clusters)
    cluster_squares = sum((s - k * mean) ** 2 for k, s, _ in clusters)
    variance = squares / (n * (n - 1)) + (cluster_squares - squares) / (n * n)
    return math.sqrt(max(variance, 0.0))


def _z(level: float = LEVEL) -> float:
    return NormalDist().inv_cdf(0.5 + level / 2)


def wilson(successes: float, trials: float, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's score interval of a proportion (trials may be an effective, fractional
    number)."""
    if trials <= 0:
        raise ValueError("Wilson's interval needs at least one trial")
    z = _z(level)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if successes <= 0 else max(centre - half, 0.0)
    return low, 1.0 if successes >= trials else min(centre + half, 1.0)


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function."""
    if a <= 0 or b <= 0:
        raise ValueError("a and b must be positive")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _continued_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError("degrees of freedom must be positive")
    tail = 0.5 * regularized_beta(df / 2, 0.5, df / (df + t * t))  # P(T > |t|)
    return 1.0 - tail if t > 0 else tail


@lru_cache(maxsize=256)
def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t (bisection on ``t_cdf``, to 1e-12)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be between 0 and 1")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        low, high = high, high * 2
    while high - low > 1e-12 * max(1.0, high):
        middle = (low + high) / 2
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def _too_few(clusters: int, results: int, method: str) -> Interval:
    return Interval(
        method=method,
        clusters=clusters,
        results=results,
        note=f"{clusters} independent unit(s), fewer than {MIN_CLUSTERS}: too few for an interval",
    )


def mean_interval(
    clusters: Sequence[ClusterTotals],
    *,
    binary: bool,
    level: float = LEVEL,
    bounds: tuple[float, float] = (0.0, 1.0),
) -> Interval:
    """The interval of the mean of clustered results: Wilson's when every result is 0 or
    1 (``binary``), mean ± t·SE otherwise, cut to ``bounds`` (the scores' range: the
    mean lies in it, so the cut interval covers it exactly as often); none below
    ``MIN_CLUSTERS`` clusters."""
    n = sum(c[0] for c in clusters)
    count = len(clusters)
    method = "wilson" if binary else "t"
    if count < MIN_CLUSTERS:
        return _too_few(count, n, method)
    total = sum(c[1] for c in clusters)
    mean = total / n
    se = clustered_se(clusters)
    if binary:
        independent = math.sqrt(mean * (1 - mean) / (n - 1)) if n > 1 else 0.0
        # n over the design effect of clustering (never above n); every result alike:
        # each cluster one trial
        if count == n:
            effective = float(n)
        else:
            effective = n * min((independent / se) ** 2, 1.0) if se > 0 else float(count)
        low, high = wilson(mean * effective, effective, level)
        note = None if effective == n else f"effective trials {effective:.1f} of {n}"
        return Interval(
            low=low, high=high, se=se, method=method, clusters=count, results=n, note=note
        )
    if se == 0.0:
        return Interval(
            se=0.0,
            method=method,
            clusters=count,
            results=n,
            note="every result has the same score: no spread to estimate an interval from",
        )
    half = t_quantile(0.5 + level / 2, count - 1) * se
    low, high = max(mean - half, bounds[0]), min(mean + half, bounds[1])
    cut = (low, high) != (mean - half, mean + half)
    return Interval(
        low=low,
        high=high,
        se=se,
        method=method,
        clusters=count,
        results=n,
        note=f"cut to the scores' range [{bounds[0]:g}, {bounds[1]:g}]" if cut else None,
    )


def bootstrap_intervals(
    clusters: Sequence[tuple[int, Sequence[float]]],
    *,
    draws: int = BOOTSTRAP_DRAWS,
    seed: int = BOOTSTRAP_SEED,
    level: float = LEVEL,
) -> list[Interval]:
    """Percentile-bootstrap intervals of per-task means, resampling clusters of tasks.

    Each cluster is (its tasks, the sum over its tasks of each statistic); the result is
    one interval per statistic, of Σ sums / Σ tasks. The draws depend only on ``seed``
    and the clusters' order: pass them in a fixed order (e.g. sorted by label)."""
    count = len(clusters)
    width = len(clusters[0][1]) if clusters else 0
    tasks = sum(c[0] for c in clusters)
    if count < MIN_CLUSTERS:
        return [_too_few(count, tasks, "bootstrap") for _ in range(width)]
    sizes = [c[0] for c in clusters]
    columns = [[c[1][j] for c in clusters] for j in range(width)]
    rng = random.Random(seed)
    indices = range(count)
    estimates: list[list[float]] = [[] for _ in range(width)]
    for _ in range(draws):
        picked = rng.choices(indices, k=count)
        drawn_tasks = sum(map(sizes.__getitem__, picked))
        for j in range(width):
            estimates[j].append(sum(map(columns[j].__getitem__, picked)) / drawn_tasks)
    out = []
    for j in range(width):
        values = sorted(estimates[j])
        if values[0] == values[-1]:
            out.append(
                Interval(
                    se=0.0,
                    method="bootstrap",
                    clusters=count,
                    results=tasks,
                    note="every task has the same value: resampling gives no spread",
                )
            )
            continue
        mean = sum(values) / draws
        se = math.sqrt(sum((v - mean) ** 2 for v in values) / (draws - 1))
        low = _percentile(values, (1 - level) / 2)
        high = _percentile(values, 0.5 + level / 2)
        out.append(
            Interval(low=low, high=high, se=se, method="bootstrap", clusters=count, results=tasks)
        )
    return out


def _percentile(ordered: list[float], q: float) -> float:
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """McNemar's exact test, two-sided: the discordant pairs (A passed and B failed;
    the reverse) against an even split, 2·P(X ≤ min) for X ~ Binomial(a_only + b_only,
    ½), at most 1."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (None stays None and is not counted)."""
    present = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(present)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(present):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


class PairedDifference(BaseModel):
    """B − A over the units both runs have: its interval, test and power."""

    pairs: int
    """Paired units: (id, epoch) results, or samples (means over their epochs)."""
    clusters: int
    """Independent units among them (samples, or ``cluster_by`` values)."""
    mean: float
    """The mean paired difference, B − A."""
    se: float | None = None
    """Its clustered standard error (Miller's equation 4 over the differences)."""
    low: float | None = None
    """95% interval of the difference: mean ± t·SE (clusters − 1 degrees of freedom);
    None below 5 clusters."""
    high: float | None = None
    test: str
    """``McNemar exact`` (every pair a lone 0/1 result on both sides) or ``paired t``
    (on the clustered standard error, clusters − 1 degrees of freedom)."""
    p_value: float | None = None
    """Two-sided; None when the test cannot be computed (too few clusters for a t test)."""
    a_only: int | None = None
    """McNemar: pairs where A passed and B failed."""
    b_only: int | None = None
    """McNemar: pairs where B passed and A failed."""
    sd_a: float = 0.0
    """Standard deviation of A's per-cluster mean scores (for power)."""
    sd_b: float = 0.0
    """Standard deviation of B's per-cluster mean scores."""
    correlation: float | None = None
    """Correlation of A's and B's per-cluster mean scores (None without spread)."""
    detectable: float | None = None
    """The smallest difference this comparison detects with 80% power at α = 0.05
    (two-sided): (z_0.975 + z_0.8)·SE, normal approximation."""
    note: str | None = None


def _sd_and_correlation(a: list[float], b: list[float]) -> tuple[float, float, float | None]:
    n = len(a)
    if n < 2:
        return 0.0, 0.0, None
    ma, mb = sum(a) / n, sum(b) / n
    saa = sum((x - ma) ** 2 for x in a)
    sbb = sum((y - mb) ** 2 for y in b)
    sab = sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True))
    correlation = sab / math.sqrt(saa * sbb) if saa > 0 and sbb > 0 else None
    return math.sqrt(saa / (n - 1)), math.sqrt(sbb / (n - 1)), correlation


def paired_difference(
    units: Sequence[tuple[object, float, float]],
    *,
    binary: bool,
    power: float = 0.8,
    level: float = LEVEL,
) -> PairedDifference:
    """B − A over paired units (cluster label, A's score, B's score): the clustered
    standard error of the differences, its interval, a test (McNemar's exact when every
    unit is its own cluster and ``binary``, else a paired t test), and power figures."""
    labels = [u[0] for u in units]
    diffs = [u[2] - u[1] for u in units]
    totals = cluster_totals(diffs, labels)
    pairs, count = len(units), len(totals)
    mean = sum(diffs) / pairs if pairs else 0.0
    se = clustered_se(totals) if pairs > 1 else None
    per_cluster: dict[object, list[float]] = {}
    for label, a, b in units:
        entry = per_cluster.setdefault(label, [0.0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += a
        entry[2] += b
    sd_a, sd_b, correlation = _sd_and_correlation(
        [s / k for k, s, _ in per_cluster.values()], [s / k for k, _, s in per_cluster.values()]
    )
    result = PairedDifference(
        pairs=pairs,
        clusters=count,
        mean=mean,
        se=se,
        test="paired t",
        sd_a=sd_a,
        sd_b=sd_b,
        correlation=correlation,
    )
    if binary and count == pairs:
        result.test = "McNemar exact"
        result.a_only = sum(1 for _, a, b in units if a == 1 and b == 0)
        result.b_only = sum(1 for _, a, b in units if a == 0 and b == 1)
        result.p_value = mcnemar_exact(result.a_only, result.b_only)
    if count < MIN_CLUSTERS:
        result.note = (
            f"{count} independent unit(s), fewer than {MIN_CLUSTERS}: too few for an interval"
            + ("" if result.p_value is not None else " or a test")
        )
        return result
    assert se is not None
    df = count - 1
    if se == 0:  # every pair differs by the same amount: nothing to estimate a spread from
        if result.p_value is None:
            result.p_value = 1.0 if mean == 0 else 0.0
        result.note = (
            "every pair differs by the same amount: no spread to estimate an interval from"
        )
        return result
    if result.p_value is None:
        result.p_value = 2 * (1 - t_cdf(abs(mean) / se, df))
    half = t_quantile(0.5 + level / 2, df) * se
    result.low, result.high = mean - half, mean + half
    result.detectable = detectable_difference(se, 1 - level, power)
    excludes_zero = result.low > 0 or result.high < 0
    if result.a_only is not None and excludes_zero != (result.p_value < 1 - level):
        discordant = result.a_only + (result.b_only or 0)
        result.note = (
            f"the interval (mean ± t·SE) and McNemar's exact test disagree on {discordant} "
            "discordant pair(s): the verdict follows the test"
        )
    return result


def samples_needed(
    sd_difference: float, delta: float, alpha: float = 0.05, power: float = 0.8
) -> int:
    """Independent units (samples, or clusters) a paired comparison needs to detect a
    difference ``delta`` with ``power`` at ``alpha`` (two-sided): ⌈(z_{1−α/2} + z_power)²
    σ_d² / δ²⌉, σ_d the standard deviation of one unit's paired difference."""
    if delta <= 0:
        raise ValueError("the difference to detect must be positive")
    z = NormalDist().inv_cdf(1 - alpha / 2) + NormalDist().inv_cdf(power)
    return max(math.ceil((z * sd_difference / delta) ** 2 - 1e-9), 1)


def detectable_difference(se: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true difference a comparison with standard error ``se`` detects with
    ``power`` at ``alpha`` (two-sided): (z_{1−α/2} + z_power)·SE."""
    return (NormalDist().inv_cdf(1 - alpha / 2) + NormalDist().inv_cdf(power)) * se
