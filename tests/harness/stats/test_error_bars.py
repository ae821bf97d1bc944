"""The error-bar statistics against independent references: closed forms, published
tables, exact rational arithmetic, numerical integration and direct transcriptions of the
textbook formulas (Miller's equation 4 as a double sum, Holm's procedure step by step)."""

from __future__ import annotations

import math
import random
import statistics
from fractions import Fraction

import pytest

from agentloop.harness.stats._error_bars import (
    MIN_CLUSTERS,
    bootstrap_intervals,
    cluster_totals,
    clustered_se,
    detectable_difference,
    holm,
    mcnemar_exact,
    mean_interval,
    paired_difference,
    regularized_beta,
    samples_needed,
    t_cdf,
    t_quantile,
    wilson,
)

Z = statistics.NormalDist().inv_cdf(0.975)


# --- Student's t, through the regularized incomplete beta function ----------------------


@pytest.mark.parametrize("x", [0.01, 0.2, 0.5, 0.77, 0.999])
def test_incomplete_beta_closed_forms(x: float) -> None:
    assert regularized_beta(3.5, 1, x) == pytest.approx(x**3.5, abs=1e-13)
    assert regularized_beta(1, 2.5, x) == pytest.approx(1 - (1 - x) ** 2.5, abs=1e-13)
    assert regularized_beta(0.5, 0.5, x) == pytest.approx(
        2 / math.pi * math.asin(math.sqrt(x)), abs=1e-13
    )
    assert regularized_beta(2.2, 7.1, x) == pytest.approx(
        1 - regularized_beta(7.1, 2.2, 1 - x), abs=1e-13
    )


@pytest.mark.parametrize("t", [-30.0, -2.5, -0.3, 0.0, 0.7, 1.96, 4.0, 55.0])
def test_t_cdf_closed_forms_for_one_two_and_three_degrees_of_freedom(t: float) -> None:
    assert t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-13)
    assert t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(2 + t * t)), abs=1e-13)
    three = 0.5 + (t / (math.sqrt(3) * (1 + t * t / 3)) + math.atan(t / math.sqrt(3))) / math.pi
    assert t_cdf(t, 3) == pytest.approx(three, abs=1e-13)


def _t_density(x: float, df: float) -> float:
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log_c - (df + 1) / 2 * math.log1p(x * x / df))


@pytest.mark.parametrize(("t", "df"), [(0.4, 7), (1.3, 7), (2.9, 12.5), (-1.1, 25)])
def test_t_cdf_against_simpson_integration_of_the_density(t: float, df: float) -> None:
    steps = 20_000  # even; P(T <= t) = 1/2 + the integral of the density from 0 to t
    h = t / steps
    inner = sum((4 if i % 2 else 2) * _t_density(i * h, df) for i in range(1, steps))
    integral = h / 3 * (_t_density(0, df) + inner + _t_density(t, df))
    assert t_cdf(t, df) == pytest.approx(0.5 + integral, abs=1e-10)


@pytest.mark.parametrize("p", [0.6, 0.9, 0.975, 0.995, 0.025])
def test_t_quantile_closed_forms(p: float) -> None:
    assert t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), abs=1e-9)
    assert t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), abs=1e-9)
    alpha = 4 * p * (1 - p)  # ν = 4: 2·sign(p − ½)·√(q − 1), q = cos(⅓ arccos √α) / √α
    q = math.cos(math.acos(math.sqrt(alpha)) / 3) / math.sqrt(alpha)
    assert t_quantile(p, 4) == pytest.approx(math.copysign(2 * math.sqrt(q - 1), p - 0.5), abs=1e-9)


@pytest.mark.parametrize(
    ("p", "df", "table"),
    # Student's t table (e.g. NIST/SEMATECH e-Handbook, 1.3.6.7.2), six decimals
    [(0.975, 10, 2.228139), (0.975, 30, 2.042272), (0.995, 5, 4.032143), (0.95, 19, 1.729133)],
)
def test_t_quantile_against_a_published_table(p: float, df: int, table: float) -> None:
    assert t_quantile(p, df) == pytest.approx(table, abs=5e-7)


def test_t_tends_to_the_normal() -> None:
    assert t_quantile(0.975, 1e7) == pytest.approx(Z, abs=1e-6)


# --- Wilson's interval ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion",
    # Statistics in Medicine 17:857-872, table I, method 3 (Wilson, no continuity correction)
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_against_newcombes_published_intervals(
    successes: int, trials: int, low: float, high: float
) -> None:
    found = wilson(successes, trials)
    assert found == (pytest.approx(low, abs=5e-5), pytest.approx(high, abs=5e-5))


@pytest.mark.parametrize(("successes", "trials"), [(3, 10), (7, 7), (50, 51), (12.5, 30.2)])
def test_wilson_bounds_solve_the_score_equation(successes: float, trials: float) -> None:
    # the bounds are the p where |p̂ − p| = z·√(p(1 − p)/n): the roots of a quadratic
    p_hat = successes / trials
    a = 1 + Z * Z / trials
    b = -(2 * p_hat + Z * Z / trials)
    c = p_hat * p_hat
    root = math.sqrt(max(b * b - 4 * a * c, 0.0))
    expected = (max((-b - root) / (2 * a), 0.0), min((-b + root) / (2 * a), 1.0))
    assert wilson(successes, trials) == (pytest.approx(expected[0], abs=1e-12),
                                         pytest.approx(expected[1], abs=1e-12))  # fmt: skip


# --- Miller's clustered standard error --------------------------------------------------


def _miller_equation_4(values: list[float], labels: list[int]) -> float:
    """SE² = SE_CLT² + (1/n²) Σ_c Σ_i Σ_{j≠i} (s_ic − s̄)(s_jc − s̄), written as it reads."""
    n = len(values)
    mean = sum(values) / n
    se_clt = statistics.stdev(values) / math.sqrt(n)
    cross = sum(
        (values[i] - mean) * (values[j] - mean)
        for i in range(n)
        for j in range(n)
        if i != j and labels[i] == labels[j]
    )
    return math.sqrt(se_clt**2 + cross / n**2)


def test_clustered_se_is_millers_equation_4() -> None:
    rng = random.Random(7)
    for _ in range(20):
        labels = [rng.randrange(9) for _ in range(60)]
        effect = {c: rng.random() for c in range(9)}
        values = [min(1.0, max(0.0, effect[c] + rng.gauss(0, 0.2))) for c in labels]
        found = clustered_se(cluster_totals(values, labels))
        assert found == pytest.approx(_miller_equation_4(values, labels), abs=1e-12)


def test_one_result_per_cluster_is_the_plain_standard_error() -> None:
    values = [random.Random(3).random() for _ in range(40)]
    found = clustered_se(cluster_totals(values, list(range(40))))
    assert found == pytest.approx(statistics.stdev(values) / math.sqrt(40), abs=1e-15)


def test_clustering_widens_the_error_of_correlated_results() -> None:
    # ten samples, three identical epochs each: thirty results, ten independent units
    per_sample = [1.0] * 6 + [0.0] * 4
    values = [v for v in per_sample for _ in range(3)]
    labels = [i for i in range(10) for _ in range(3)]
    clustered = clustered_se(cluster_totals(values, labels))
    naive = statistics.stdev(values) / math.sqrt(30)
    assert clustered > 1.6 * naive


# --- intervals of a mean ----------------------------------------------------------------


def test_a_continuous_mean_gets_mean_plus_minus_t_times_se() -> None:
    values = [0.1, 0.5, 0.75, 0.3, 0.9, 0.45, 0.6]
    found = mean_interval(cluster_totals(values, list(range(7))), binary=False)
    mean = statistics.fmean(values)
    half = t_quantile(0.975, 6) * statistics.stdev(values) / math.sqrt(7)
    assert (found.low, found.high) == (pytest.approx(mean - half), pytest.approx(mean + half))
    assert (found.method, found.clusters, found.results, found.note) == ("t", 7, 7, None)


def test_a_pass_rate_gets_wilsons_interval_over_independent_trials() -> None:
    values = [1.0] * 13 + [0.0] * 7
    found = mean_interval(cluster_totals(values, list(range(20))), binary=True)
    assert (found.low, found.high) == wilson(13, 20) and found.method == "wilson"
    assert found.note is None


def test_clustered_pass_rate_uses_the_effective_number_of_trials() -> None:
    # each sample's three epochs agree: about ten independent trials, not thirty
    values = [v for v in [1.0] * 6 + [0.0] * 4 for _ in range(3)]
    labels = [i for i in range(10) for _ in range(3)]
    found = mean_interval(cluster_totals(values, labels), binary=True)
    se = clustered_se(cluster_totals(values, labels))
    effective = 30 * (0.6 * 0.4 / 29) / se**2
    assert (found.low, found.high) == pytest.approx(wilson(0.6 * effective, effective), abs=1e-12)
    assert found.note == f"effective trials {effective:.1f} of 30"
    assert found.high - found.low > wilson(18, 30)[1] - wilson(18, 30)[0]


def test_no_interval_below_a_handful_of_clusters_and_it_says_why() -> None:
    found = mean_interval(cluster_totals([1.0, 0.0, 1.0, 1.0], [0, 1, 2, 3]), binary=True)
    assert (found.low, found.high, found.clusters) == (None, None, 4)
    assert (
        found.note == f"4 independent unit(s), fewer than {MIN_CLUSTERS}: too few for an interval"
    )


def test_scores_without_spread_get_no_interval() -> None:
    found = mean_interval(cluster_totals([0.5] * 8, list(range(8))), binary=False)
    assert found.low is None and "no spread" in str(found.note)
    # a 0/1 score without spread still has Wilson's (never an interval of width 0)
    perfect = mean_interval(cluster_totals([1.0] * 8, list(range(8))), binary=True)
    assert (perfect.low, perfect.high) == wilson(8, 8) and perfect.low < 1.0


# --- the bootstrap of pass^k ------------------------------------------------------------


def test_bootstrap_is_seeded_and_close_to_the_normal_interval() -> None:
    rng = random.Random(11)
    tasks = [rng.betavariate(2, 3) for _ in range(400)]
    clusters = [(1, [t]) for t in tasks]
    (first,) = bootstrap_intervals(clusters)
    (again,) = bootstrap_intervals(clusters)
    (other,) = bootstrap_intervals(clusters, seed=1)
    assert first == again and first != other
    mean, se = statistics.fmean(tasks), statistics.stdev(tasks) / math.sqrt(400)
    assert first.low == pytest.approx(mean - Z * se, abs=0.15 * se)
    assert first.high == pytest.approx(mean + Z * se, abs=0.15 * se)
    assert first.se == pytest.approx(se, rel=0.1)


def test_bootstrap_resamples_clusters_not_tasks() -> None:
    # clusters of two identical tasks: resampling clusters keeps them together
    clusters = [(2, [2 * v]) for v in [0.0, 1.0] * 10]
    (found,) = bootstrap_intervals(clusters)
    per_task = bootstrap_intervals([(1, [v]) for v in [0.0, 1.0] * 20])[0]
    assert found.clusters == 20 and found.results == 40
    assert found.high - found.low > per_task.high - per_task.low


def test_bootstrap_says_why_it_has_no_interval() -> None:
    few = bootstrap_intervals([(1, [1.0, 0.0])] * 4)
    assert [i.low for i in few] == [None, None] and "fewer than 5" in str(few[0].note)
    (same,) = bootstrap_intervals([(1, [1.0])] * 9)
    assert (
        same.low is None
        and same.note == "every task has the same value: resampling gives no spread"
    )


# --- tests of a difference --------------------------------------------------------------


def _binomial_test(k: int, n: int) -> Fraction:
    """Two-sided exact binomial test against ½, summing the outcomes no more likely than
    the observed one (the definition scipy.stats.binomtest uses), in exact arithmetic."""
    probability = [Fraction(math.comb(n, i), 2**n) for i in range(n + 1)]
    return min(Fraction(1), sum(p for p in probability if p <= probability[k]))


@pytest.mark.parametrize(("a_only", "b_only"), [(1, 9), (0, 6), (5, 5), (3, 12), (20, 31), (0, 0)])
def test_mcnemar_is_the_exact_binomial_test_of_the_discordant_pairs(
    a_only: int, b_only: int
) -> None:
    expected = _binomial_test(a_only, a_only + b_only) if a_only + b_only else Fraction(1)
    assert mcnemar_exact(a_only, b_only) == pytest.approx(float(expected), abs=1e-12)


def test_mcnemar_hand_computed() -> None:
    assert mcnemar_exact(1, 9) == 22 / 1024  # 2 (C(10,0) + C(10,1)) / 2^10
    assert mcnemar_exact(9, 1) == 22 / 1024


def test_holm_by_hand_and_as_the_step_down_procedure() -> None:
    # sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 -> max so far 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.2, None, 0.01]) == pytest.approx([0.2, None, 0.02])
    rng = random.Random(5)
    for _ in range(200):
        ps = [rng.random() ** 3 for _ in range(rng.randrange(1, 8))]
        rejected = set()  # Holm (1979): reject in order while p_(i) <= α / (m − i + 1)
        for rank, (p, i) in enumerate(sorted((p, i) for i, p in enumerate(ps))):
            if p > 0.05 / (len(ps) - rank):
                break
            rejected.add(i)
        adjusted = holm(ps)
        assert {i for i, p in enumerate(adjusted) if p is not None and p <= 0.05} == rejected


def test_paired_t_on_independent_pairs_is_the_classic_paired_t_test() -> None:
    rng = random.Random(2)
    a = [rng.random() for _ in range(25)]
    b = [min(1.0, x + rng.gauss(0.08, 0.15)) for x in a]
    found = paired_difference(
        [(i, x, y) for i, (x, y) in enumerate(zip(a, b, strict=True))], binary=False
    )
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    se = statistics.stdev(diffs) / math.sqrt(25)
    t = statistics.fmean(diffs) / se
    # the two-sided p-value by integrating the t density (Simpson) beyond |t|
    steps, top = 20_000, abs(t)
    h = top / steps
    inner = sum((4 if i % 2 else 2) * _t_density(i * h, 24) for i in range(1, steps))
    p = 2 * (0.5 - h / 3 * (_t_density(0, 24) + inner + _t_density(top, 24)))
    assert found.test == "paired t" and found.p_value == pytest.approx(p, abs=1e-9)
    assert found.se == pytest.approx(se, abs=1e-15)
    half = t_quantile(0.975, 24) * se
    assert (found.low, found.high) == (
        pytest.approx(statistics.fmean(diffs) - half),
        pytest.approx(statistics.fmean(diffs) + half),
    )
    assert found.correlation == pytest.approx(statistics.correlation(a, b))
    assert (found.sd_a, found.sd_b) == (
        pytest.approx(statistics.stdev(a)),
        pytest.approx(statistics.stdev(b)),
    )


def test_lone_pass_fail_pairs_take_mcnemars_test() -> None:
    # 30 pairs: 4 both pass, 15 B only, 3 A only, 8 both fail
    units = [(i, 1.0, 1.0) for i in range(4)] + [(i, 0.0, 1.0) for i in range(4, 19)]
    units += [(i, 1.0, 0.0) for i in range(19, 22)] + [(i, 0.0, 0.0) for i in range(22, 30)]
    found = paired_difference(units, binary=True)
    assert (found.test, found.a_only, found.b_only) == ("McNemar exact", 3, 15)
    assert found.p_value == mcnemar_exact(3, 15) and found.mean == pytest.approx(12 / 30)


def test_an_interval_that_disagrees_with_mcnemars_test_says_so() -> None:
    # 4 discordant pairs, all one way: the exact test cannot reject (2 / 2^4), while the
    # normal-theory interval of the 20 differences leaves out 0
    units = [(i, 1.0, 1.0) for i in range(16)] + [(i, 1.0, 0.0) for i in range(16, 20)]
    found = paired_difference(units, binary=True)
    assert found.p_value == 0.125 and found.high is not None and found.high < 0
    assert found.note == (
        "the interval (mean ± t·SE) and McNemar's exact test disagree on 4 discordant "
        "pair(s): the verdict follows the test"
    )


def test_clustered_pairs_take_the_t_test_on_the_clustered_error() -> None:
    # the same units with two epochs each, clustered by sample: no longer lone pairs
    units = [(i % 10, float(i % 3 == 0), float(i % 2 == 0)) for i in range(40)]
    found = paired_difference(units, binary=True)
    assert found.test == "paired t" and found.clusters == 10 and found.pairs == 40
    se = clustered_se(cluster_totals([b - a for _, a, b in units], [u[0] for u in units]))
    assert found.se == pytest.approx(se)
    assert found.p_value == pytest.approx(2 * (1 - t_cdf(abs(found.mean) / se, 9)))


def test_a_difference_without_spread_has_no_interval() -> None:
    found = paired_difference([(i, 0.5, 0.6) for i in range(10)], binary=False)
    assert (found.low, found.high, found.p_value) == (None, None, 0.0)
    assert "same amount" in str(found.note)


# --- power --------------------------------------------------------------------------------


def test_samples_needed_textbook_example() -> None:
    # σ_d = 1, δ = 0.5, α = 0.05 two-sided, power 0.8: (1.95996 + 0.84162)² · 4 = 31.4 -> 32
    assert samples_needed(1.0, 0.5) == 32
    assert detectable_difference(1.0) == pytest.approx(2.801585, abs=1e-6)


@pytest.mark.parametrize(
    ("sd", "delta", "power"), [(1.0, 0.5, 0.8), (0.45, 0.03, 0.9), (0.3, 0.1, 0.5)]
)
def test_samples_needed_is_the_smallest_n_reaching_the_power(
    sd: float, delta: float, power: float
) -> None:
    normal = statistics.NormalDist()

    def achieved(n: int) -> float:  # the two-sided z test's power at n, in closed form
        shift = delta * math.sqrt(n) / sd
        return normal.cdf(shift - Z) + normal.cdf(-shift - Z)

    n = samples_needed(sd, delta, power=power)
    # the formula drops the far tail: the achieved power is at least the target
    assert achieved(n) >= power - 1e-9 and (n == 1 or achieved(n - 1) < power + 0.01)


def test_a_detectable_difference_is_detected_with_the_power() -> None:
    # a Monte Carlo check: paired differences of true mean δ = the detectable one
    rng = random.Random(13)
    n, sd = 50, 0.4
    delta = detectable_difference(sd / math.sqrt(n))
    rejections = sum(
        abs(statistics.fmean(rng.gauss(delta, sd) for _ in range(n))) / (sd / math.sqrt(n)) > Z
        for _ in range(4000)
    )
    assert rejections / 4000 == pytest.approx(0.8, abs=0.025)
