"""The Pareto front of runs by cost and score: hand-computed cases, runs without a cost or
a score not placed, lower-is-better rewards, and a property test against a brute force."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentloop.harness.stats._pareto import cost_accuracy, pareto_front
from agentloop.harness.stats._summary import RewardStats, RunSummary


def test_hand_computed_front() -> None:
    points = [
        (1.0, 0.50),  # cheapest: optimal
        (2.0, 0.70),  # dearer and better: optimal
        (3.0, 0.60),  # dearer than the second and worse: dominated
        (2.0, 0.70),  # the same point as the second: both optimal
        None,  # no cost: not placed
        (1.0, 0.40),  # as cheap as the first, worse: dominated
    ]
    assert pareto_front(points) == [True, True, False, True, None, False]


def _summary(score: float | None, cost: float | None, better: str = "higher") -> RunSummary:
    rewards = {} if score is None else {
        "r": RewardStats(headline=score, mean=score, stderr=0.0, count=1, results=1, better=better)
    }  # fmt: skip
    return RunSummary(
        rewards=rewards, cost_usd=cost, cost_unknown=None if cost is not None else "no price"
    )


def test_runs_without_a_cost_or_a_score_are_not_placed() -> None:
    summaries = [_summary(0.5, 1.0), _summary(0.9, None), _summary(0.4, 2.0)]
    summaries.append(RunSummary(rewards={"q": summaries[0].rewards["r"]}, cost_usd=0.1))
    (table, _) = cost_accuracy("ABCD", ["a", "b", "c", "d"], summaries)
    assert table.reward == "r"
    assert [row.pareto for row in table.rows] == [True, None, False, None]
    assert table.rows[1].not_placed == "no cost data: no price"
    assert table.rows[3].not_placed == "no score of this reward"


def test_a_lower_is_better_reward_puts_the_lower_score_on_the_front() -> None:
    summaries = [_summary(0.1, 2.0, "lower"), _summary(0.3, 2.0, "lower")]
    (table,) = cost_accuracy("AB", ["a", "b"], summaries)
    assert table.better == "lower"
    assert [row.pareto for row in table.rows] == [True, False]


_POINT = st.one_of(
    st.none(),
    st.tuples(st.sampled_from([0.0, 0.5, 1.0, 2.0]), st.sampled_from([0.0, 0.25, 0.5, 1.0])),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_POINT, min_size=1, max_size=8))
def test_the_front_equals_a_brute_force(points: list[tuple[float, float] | None]) -> None:
    found = pareto_front(points)
    for i, p in enumerate(points):
        if p is None:
            assert found[i] is None
            continue
        # optimal: no placed point at least as cheap and as good, and different
        beaten = any(
            q is not None and q != p and q[0] <= p[0] and q[1] >= p[1]
            for j, q in enumerate(points)
            if j != i
        )
        assert found[i] is (not beaten)
    assert any(found) or all(p is None for p in points)


@pytest.mark.parametrize("count", [2, 3])
def test_every_placed_minimum_cost_best_score_run_is_optimal(count: int) -> None:
    # the cheapest of the best-scoring runs is never dominated
    points = [(float(i), 1.0) for i in range(count)]
    assert pareto_front(points) == [True] + [False] * (count - 1)
