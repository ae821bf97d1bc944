"""Reliability across epochs (flip rate, always/never passed, consistency, pass^k under both
conventions) and cost per pass: hand-computed cases, and a property test against a
brute-force reference that enumerates trials, pairs and k-subsets itself."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentloop.harness.stats._reliability import TaskTrials, reliability
from agentloop.harness.stats._summary import summarize

R = "r"  # the reward under test, with a pass verdict

# A trial's outcome: passed, failed, errored (no verdict), not applicable, or missing.
PASS, FAIL, ERROR, NA, MISSING = "pass", "fail", "error", "na", "missing"


def _line(sample: str, epoch: int, outcome: str, cost: float = 0.01) -> dict[str, Any]:
    line: dict[str, Any] = {"id": sample, "epoch": epoch, "status": "ok", "cost_usd": cost}
    if outcome in (PASS, FAIL):
        line["scores"] = {R: {"score": float(outcome == PASS)}}
        line["passed"] = {R: outcome == PASS}
    elif outcome == ERROR:
        line.update(status="error", error="RateLimitError: 429", error_kind="model")
    elif outcome == NA:
        line["not_applicable"] = {R: "not this reward's business"}
    return line


def _summary(outcomes: dict[str, list[str]], epochs: int) -> Any:
    lines = [
        _line(sample, e + 1, o)
        for sample, trials in outcomes.items()
        for e, o in enumerate(trials)
        if o != MISSING
    ]
    planned = len(outcomes) * epochs
    return summarize(lines, epochs=epochs, planned=planned, rewards=[R])


def test_hand_computed_tasks() -> None:
    # a: 3 trials all passed; b: passed 1 of 3 (flips); c: failed 2, third errored;
    # d: one trial only (not repeated)
    found = reliability(
        [TaskTrials(3, 3, 3), TaskTrials(3, 3, 1), TaskTrials(3, 2, 0), TaskTrials(1, 1, 1)]
    )
    assert found.passed == 5 and found.without_verdict == 1
    failed = found.errors_counted_failed
    assert (failed.tasks, failed.trials, failed.repeated_tasks) == (4, 10, 3)
    assert (failed.flipped, failed.always_passed, failed.never_passed) == (1, 1, 1)
    assert failed.flip_rate == pytest.approx(1 / 3)
    # pairs agreeing: a 3/3, b (1 pass, 2 fail) 1/3, c 3/3
    assert failed.consistency == pytest.approx((1 + 1 / 3 + 1) / 3)
    # k up to 1 (task d has one trial): pass^1 = (1 + 1/3 + 0 + 1) / 4
    assert failed.pass_hat_k == pytest.approx({1: (1 + 1 / 3 + 0 + 1) / 4})
    left = found.errors_left_out
    assert (left.tasks, left.trials, left.repeated_tasks) == (4, 9, 3)
    assert left.consistency == pytest.approx((1 + 1 / 3 + 1) / 3)


def test_an_errored_trial_turns_a_flip_into_always_passed_when_left_out() -> None:
    # passed twice, errored once: counted failed it flips; left out it always passed
    found = reliability([TaskTrials(3, 2, 2)])
    assert found.errors_counted_failed.flip_rate == 1.0
    assert found.errors_counted_failed.pass_hat_k == pytest.approx({1: 2 / 3, 2: 1 / 3, 3: 0.0})
    assert found.errors_left_out.flip_rate == 0.0
    assert found.errors_left_out.always_passed_share == 1.0
    assert found.errors_left_out.pass_hat_k == {1: 1.0, 2: 1.0}


def test_one_epoch_has_no_repeated_task() -> None:
    found = reliability([TaskTrials(1, 1, 1), TaskTrials(1, 1, 0)])
    figures = found.errors_counted_failed
    assert figures.repeated_tasks == 0 and figures.flip_rate is None
    assert figures.consistency is None and figures.pass_hat_k == {1: 0.5}


def test_impossible_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="passed <= verdicts <= planned"):
        reliability([TaskTrials(2, 1, 2)])


def test_summary_of_a_hand_made_run() -> None:
    outcomes = {
        "s1": [PASS, PASS, PASS],
        "s2": [PASS, FAIL, ERROR],
        "s3": [FAIL, MISSING, NA],
    }
    summary = _summary(outcomes, epochs=3)
    found = summary.reliability[R]
    # s3 has 2 trials (its NA one is none): a fail and a missing one
    failed, left = found.errors_counted_failed, found.errors_left_out
    assert found.passed == 4 and found.without_verdict == 2
    assert (failed.repeated_tasks, failed.flipped, failed.always_passed) == (3, 1, 1)
    assert failed.never_passed == 1
    # left out: s3 keeps one trial (not repeated); s2 keeps pass, fail
    assert (left.tasks, left.repeated_tasks, left.flipped, left.always_passed) == (3, 2, 1, 1)
    assert failed.pass_hat_k == summary.rewards[R].pass_hat_k
    # 8 results written, each 0.01 USD; 4 passed
    assert summary.cost_usd == pytest.approx(0.08)
    assert summary.cost_per_pass_usd[R] == pytest.approx(0.02)


def test_cost_per_pass_is_none_when_the_cost_is_unknown_or_nothing_passed() -> None:
    unknown = _line("s1", 1, PASS)
    unknown.update(cost_usd=None, cost_unknown="no price for model m")
    assert summarize([unknown], rewards=[R]).cost_per_pass_usd == {R: None}
    assert summarize([_line("s1", 1, FAIL)], rewards=[R]).cost_per_pass_usd == {R: None}


# The reference: every figure straight from the definitions, by enumeration.


def _reference(
    outcomes: dict[str, list[str]], drop_errors: bool
) -> tuple[dict[str, float | None], dict[int, float]]:
    tasks = []
    for trials in outcomes.values():
        kept = [o for o in trials if o != NA and not (drop_errors and o in (ERROR, MISSING))]
        if kept:
            tasks.append([o == PASS for o in kept])
    repeated = [t for t in tasks if len(t) >= 2]
    figures: dict[str, float | None] = dict.fromkeys(
        ("flip", "always", "never", "consistency"), None
    )
    if repeated:
        figures["flip"] = sum(any(t) and not all(t) for t in repeated) / len(repeated)
        figures["always"] = sum(all(t) for t in repeated) / len(repeated)
        figures["never"] = sum(not any(t) for t in repeated) / len(repeated)
        agree = [
            sum(x == y for x, y in itertools.combinations(t, 2))
            / len(list(itertools.combinations(t, 2)))
            for t in repeated
        ]
        figures["consistency"] = sum(agree) / len(agree)
    hats = {}
    for k in range(1, min((len(t) for t in tasks), default=0) + 1):
        per_task = [
            sum(all(c) for c in itertools.combinations(t, k))
            / len(list(itertools.combinations(t, k)))
            for t in tasks
        ]
        hats[k] = sum(per_task) / len(per_task)
    return figures, hats


_OUTCOME = st.sampled_from([PASS, FAIL, ERROR, NA, MISSING])


@st.composite
def _runs(draw: st.DrawFn) -> tuple[dict[str, list[str]], int]:
    epochs = draw(st.integers(1, 4))
    samples = draw(st.integers(1, 6))
    trials = st.lists(_OUTCOME, min_size=epochs, max_size=epochs)
    outcomes = {f"s{i}": draw(trials) for i in range(samples)}
    return outcomes, epochs


@settings(max_examples=60, deadline=None)
@given(_runs())
def test_figures_equal_a_brute_force_reference(run: tuple[dict[str, list[str]], int]) -> None:
    outcomes, epochs = run
    summary = _summary(outcomes, epochs)
    if not any(o in (PASS, FAIL) for trials in outcomes.values() for o in trials):
        # no verdict anywhere: nothing says the reward has a pass threshold (no pass rate)
        assert R not in summary.reliability and summary.rewards[R].pass_rate is None
        return
    found = summary.reliability[R]
    for figures, drop in ((found.errors_counted_failed, False), (found.errors_left_out, True)):
        expected, hats = _reference(outcomes, drop)
        assert figures.flip_rate == pytest.approx(expected["flip"])
        assert figures.always_passed_share == pytest.approx(expected["always"])
        assert figures.never_passed_share == pytest.approx(expected["never"])
        assert figures.consistency == pytest.approx(expected["consistency"])
        assert figures.pass_hat_k == pytest.approx(hats)
    # the counted-failed convention is the headline's: the same pass^k as the summary's
    assert found.errors_counted_failed.pass_hat_k == summary.rewards[R].pass_hat_k
    assert found.passed == sum(o == PASS for t in outcomes.values() for o in t)


def test_errors_left_out_is_tau2_benchs_pass_hat_k(tmp_path: Path) -> None:
    """On a τ²-bench run with errored trials, the left-out convention's pass^k equals the
    τ²-bench figures agentloop already reports (``benchmarks.tau2``), and the counted one
    agentloop's own there."""
    from agentloop.benchmarks.tau2._data import tau2_rows
    from agentloop.benchmarks.tau2._summary import VERDICT, summarize_tau2

    tasks = [row["id"] for row in tau2_rows("mock")]
    trials = {tasks[0]: [1.0, 1.0, 1.0, None], tasks[1]: [1.0, None, 0.0, 1.0]}
    lines = []
    for task in tasks:
        for epoch, score in enumerate(trials.get(task, [0.0, 1.0, 0.0, 0.0]), start=1):
            line: dict[str, Any] = {"id": task, "epoch": epoch, "status": "ok"}
            line["metadata"] = {"domain": "mock", "task_id": task, "task_set": "1.0.1"}
            if score is None:
                line.update(status="error", error="APIConnectionError: down", error_kind="model")
            else:
                line.update(scores={VERDICT: {"score": score}}, passed={VERDICT: score == 1.0})
            lines.append(line)
    run = tmp_path / "run"
    run.mkdir()
    header = {"config": {"epochs": 4}, "dataset": {"path": "tau2:mock", "task_set": "1.0.1"}}
    (run / "run.json").write_text(json.dumps(header))
    (run / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    [domain] = summarize_tau2([run]).domains
    found = summarize(lines, epochs=4, planned=len(lines), rewards=[VERDICT]).reliability[VERDICT]
    assert found.errors_left_out.pass_hat_k == pytest.approx(domain.tau2_pass_hat_k)
    assert sorted(found.errors_left_out.pass_hat_k) == [1, 2, 3]
    assert found.errors_counted_failed.pass_hat_k == pytest.approx(domain.pass_hat_k)
