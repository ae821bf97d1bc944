"""Summary statistics: pass@k / pass^k estimators, means, errors, percentiles, tables."""

from __future__ import annotations

import io
import json
import math
import random
import statistics
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from agentloop.cli._commands import main
from agentloop.cli._display import print_summary
from agentloop.harness.stats._error_bars import cluster_totals, clustered_se, t_quantile, wilson
from agentloop.harness.stats._summary import (
    RunSummary,
    failure_reason,
    pass_at_k,
    pass_hat_k,
    percentile,
    summarize,
)
from tests.support.harness import add_setup, run_once, write_json


@pytest.mark.parametrize(
    ("n", "c", "k", "at", "hat"),
    [
        # 1 - C(3,1)/C(5,1) = 1 - 3/5;  C(2,1)/C(5,1) = 2/5
        (5, 2, 1, 0.4, 0.4),
        # 1 - C(3,2)/C(5,2) = 1 - 3/10; C(2,2)/C(5,2) = 1/10
        (5, 2, 2, 0.7, 0.1),
        # 1 - C(3,3)/C(5,3) = 1 - 1/10; C(2,3) = 0
        (5, 2, 3, 0.9, 0.0),
        # n - c = 3 < 4: some pass is always drawn
        (5, 2, 4, 1.0, 0.0),
        (3, 3, 2, 1.0, 1.0),
        (3, 0, 2, 0.0, 0.0),
        # 1 - C(7,3)/C(10,3) = 1 - 35/120;  C(3,3)/C(10,3) = 1/120
        (10, 3, 3, 1 - 35 / 120, 1 / 120),
    ],
)
def test_estimators_against_hand_computed_values(
    n: int, c: int, k: int, at: float, hat: float
) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(at)
    assert pass_hat_k(n, c, k) == pytest.approx(hat)


def test_estimators_reject_impossible_counts() -> None:
    for args in ((3, 4, 1), (3, 1, 0), (3, 1, 4), (3, -1, 1)):
        with pytest.raises(ValueError):
            pass_at_k(*args)
        with pytest.raises(ValueError):
            pass_hat_k(*args)


def line(sid: str, epoch: int, score: float | None, **extra: Any) -> dict[str, Any]:
    ok = score is not None
    record: dict[str, Any] = {
        "id": sid,
        "epoch": epoch,
        "status": "ok" if ok else "error",
        "error_kind": None if ok else "model",
        "stop_reason": "final" if ok else "error",
        "rounds": 1,
        "tool_calls_by_status": {"ok": 1},
        "usage": {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12},
        "wall_time_s": 1.0,
        "single_turn": False,
        "trajectory": {},
        "scores": {"r": {"score": score}} if ok else {},
        "passed": {"r": score == 1.0} if ok else {},
    }
    record.update(extra)
    return record


def test_summary_over_samples_and_epochs() -> None:
    lines = [
        # a: 1 pass of 3;  b: 3 of 3;  c: one scored epoch (0.5), two errored
        line("a", 1, 1.0),
        line("a", 2, 0.0),
        line("a", 3, 0.0),
        line("b", 1, 1.0),
        line("b", 2, 1.0),
        line("b", 3, 1.0),
        line("c", 1, 0.5),
        line("c", 2, None),
        line("c", 3, None),
    ]
    s = summarize(lines, epochs=3)
    r = s.rewards["r"]
    # per-sample means 1/3, 1, 0.5 -> mean 11/18, sample sd / sqrt(3)
    per_sample = [1 / 3, 1.0, 0.5]
    mean = sum(per_sample) / 3
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_sample) / 2)
    assert (r.mean, r.stderr, r.count, r.results) == (
        pytest.approx(mean),
        pytest.approx(sd / math.sqrt(3)),
        3,
        7,
    )
    # c's errored epochs are failed trials, as in the headline: every sample has 3 trials
    assert r.pass_rate == pytest.approx(4 / 9)
    assert r.pass_at_k[1] == pytest.approx((1 / 3 + 1 + 0) / 3)
    assert r.pass_at_k[2] == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert r.pass_at_k[3] == pytest.approx((1 + 1 + 0) / 3)
    assert r.pass_hat_k[2] == pytest.approx((0 + 1 + 0) / 3)
    assert r.pass_hat_k[3] == pytest.approx(1 / 3)
    assert (s.results, s.samples, s.ok, s.errored) == (9, 3, 7, 2)
    assert s.errors_by_kind == {"model": 2}
    assert s.stop_reasons == {"error": 2, "final": 7}
    assert s.tokens == {"input_tokens": 90, "output_tokens": 18, "total_tokens": 108,
                        "cached_input_tokens": 0, "reasoning_tokens": 0,
                        "cache_write_input_tokens": 0,
                        "cache_write_1h_input_tokens": 0}  # fmt: skip
    assert s.tool_calls_by_status == {"ok": 9}
    assert "2 errored result(s) score 0 in each reward's score" in s.notes[0]
    # the headline counts every result, the two errored ones as 0: (1 + 3 + 0.5) / 9
    assert (r.headline, r.errored) == (pytest.approx(4.5 / 9), 2)
    # planned results missing from a killed run count 0 too
    assert summarize(lines, epochs=3, planned=12).rewards["r"].headline == pytest.approx(4.5 / 12)


def test_errored_trials_fail_in_pass_k_and_every_task_is_in_every_k() -> None:
    # One task passes 4 of 4; another errors in 3 of 4 (context_length_exceeded) and passes
    # the fourth. pass^1..pass^4 read 1.0 when errored trials were dropped and tasks left
    # out for larger k; the headline said 0.625.
    lines = [line("a", e, 1.0) for e in range(1, 5)]
    lines += [line("b", e, None) for e in range(1, 4)] + [line("b", 4, 1.0)]
    r = summarize(lines, epochs=4, planned=8).rewards["r"]
    assert r.headline == pytest.approx(5 / 8) and r.pass_rate == pytest.approx(5 / 8)
    assert r.pass_hat_k == pytest.approx({1: (1 + 1 / 4) / 2, 2: 0.5, 3: 0.5, 4: 0.5})
    assert r.pass_at_k == pytest.approx({1: (1 + 1 / 4) / 2, 2: (1 + 1 / 2) / 2,
                                         3: (1 + 3 / 4) / 2, 4: 1.0})  # fmt: skip
    # a task with no result at all (the run was killed) fails every trial
    r = summarize(lines, epochs=4, planned=12).rewards["r"]
    assert r.pass_hat_k[1] == pytest.approx((1 + 1 / 4) / 3)


def test_a_tau2_run_with_errors_says_it_is_not_comparable_with_the_leaderboard() -> None:
    lines = [line("a", 1, 1.0), line("b", 1, None)]
    notes = summarize(lines, dataset="tau2:airline").notes
    assert any("not comparable with τ²-bench's leaderboard" in n for n in notes)
    assert not any("τ²-bench" in n for n in summarize(lines, dataset="x.jsonl").notes)
    assert not any("τ²-bench" in n for n in summarize(lines[:1], dataset="tau2:airline").notes)


def test_reward_without_threshold_has_no_pass_at_k() -> None:
    s = summarize([{**line("a", 1, 0.5), "passed": {}}])
    assert s.rewards["r"].pass_rate is None and s.rewards["r"].pass_at_k == {}


def test_latency_percentiles_and_rounds() -> None:
    lines = [line(str(i), 1, 1.0, wall_time_s=float(i), rounds=i % 3) for i in range(1, 101)]
    s = summarize(lines)
    assert (s.latency.p50, s.latency.p90, s.latency.p99, s.latency.max) == (
        pytest.approx(50.5),
        pytest.approx(90.1),
        pytest.approx(99.01),
        100.0,
    )
    assert s.rounds_histogram == {0: 33, 1: 34, 2: 33}
    assert percentile([], 0.5) == 0.0 and percentile([3.0], 0.9) == 3.0


def test_model_time_and_slot_waits_apart() -> None:
    """A call that waited for the local server's one slot: its wait is not the model's time."""
    steps = [{"latency_s": 5.0, "wait_s": 4.0}, {"latency_s": 2.0}]  # the second: an old line
    user_steps = [{"latency_s": 3.0, "wait_s": 0.5}]
    lines = [
        line("a", 1, 1.0, trajectory={"steps": steps}),
        line("b", 1, 1.0, trajectory={"steps": steps[:1], "user_steps": user_steps}),
    ]
    s = summarize(lines)
    # own times: 1.0, 2.0, 1.0, 2.5; waits: 4.0, 0.0, 4.0, 0.5
    assert (s.model_time.p50, s.model_time.max) == (pytest.approx(1.5), 2.5)
    assert (s.request_wait.p50, s.request_wait.max) == (pytest.approx(2.25), 4.0)
    assert s.request_wait_total_s == pytest.approx(8.5)
    buffer = io.StringIO()
    print_summary(s, Console(file=buffer, width=200))
    text = buffer.getvalue()
    assert "p50 1.500, p90 2.350, max 2.500 (the model's own time)" in text
    assert "p50 2.250, p90 4.000, max 4.000, total 8.5 (requests queued" in text

    # Without a slot limit nothing waits, and no waiting row is printed.
    quiet = summarize([line("a", 1, 1.0, trajectory={"steps": [{"latency_s": 2.0}]})])
    assert quiet.request_wait_total_s == 0.0 and quiet.model_time.max == 2.0
    buffer = io.StringIO()
    print_summary(quiet, Console(file=buffer, width=200))
    assert "waiting" not in buffer.getvalue()


@pytest.mark.parametrize(
    ("rule", "errored", "total", "fails"),
    [
        (False, 5, 10, False),
        (True, 0, 10, False),
        (True, 1, 10, True),
        (0, 1, 10, True),
        (2, 2, 10, False),
        (2, 3, 10, True),
        (0.2, 2, 10, False),
        (0.2, 3, 10, True),
        (0.0, 1, 10, True),
    ],
)
def test_fail_on_error_rules(
    rule: bool | int | float, errored: int, total: int, fails: bool
) -> None:
    assert (failure_reason(rule, errored, total) is not None) is fails


def test_tables_render() -> None:
    s = summarize(
        [line("a", 1, 1.0), line("b", 1, None)],
        fail_on_error=True,
        invalid_lines=["d.jsonl:3: invalid JSON"],
    )
    buffer = io.StringIO()
    print_summary(s, Console(file=buffer, width=140))
    text = buffer.getvalue()
    for expected in (
        "pass@1",
        "errored 1 (model: 1)",
        "FAILED",
        "skipped d.jsonl:3: invalid JSON",
        "1 invalid dataset line(s) were skipped",
    ):
        assert expected in text


def test_rewards_are_broken_down_by_the_metadata_keys_that_group_samples() -> None:
    def meta(sid: str, epoch: int, score: float | None, **metadata: Any) -> dict[str, Any]:
        return line(sid, epoch, score, metadata={"source": sid, "tools": ["a"], **metadata})

    lines = [
        meta("s1", 1, 1.0, category="simple", hard=False),
        meta("s1", 2, 0.0, category="simple", hard=False),
        meta("s2", 1, 1.0, category="simple", hard=False),
        meta("p1", 1, 0.5, category="parallel", hard=True),
        meta("p2", 1, None, category="parallel", hard=True),  # errored: 0 in its group's score
        line("x1", 1, 1.0),  # no metadata at all
        meta("x2", 1, 0.0, many=1),  # a key first seen late: the earlier results lack it
    ]
    s = summarize(lines)
    # source: unique to each sample; tools: a list; many: one value besides "(not set)"
    # but still a grouping of 7 results: kept.
    assert list(s.by_metadata) == ["category", "hard", "many"]
    groups = s.by_metadata["category"].items()
    assert {v: (g.results, g.errored, g.scores["r"]) for v, g in groups} == {
        "(not set)": (2, 0, pytest.approx(0.5)),
        "parallel": (2, 1, pytest.approx(0.25)),
        "simple": (3, 0, pytest.approx(2 / 3)),
    }
    assert {v: g.results for v, g in s.by_metadata["hard"].items()} == {
        "(not set)": 2, "false": 3, "true": 2,
    }  # fmt: skip
    assert {v: g.results for v, g in s.by_metadata["many"].items()} == {"(not set)": 6, "1": 1}
    buffer = io.StringIO()
    print_summary(s, Console(file=buffer, width=140))
    text = buffer.getvalue()
    start, end = text.index("by metadata.category"), text.index("by metadata.hard")
    table = text[start:end]
    # each group's score with its interval: n/a, 2 results are too few
    assert [row.split() for row in table.splitlines() if "parallel" in row] == [
        ["│", "parallel", "│", "2", "│", "1", "│", "0.250", "n/a", "│"]
    ]
    parallel = s.by_metadata["category"]["parallel"].intervals["r"]
    assert parallel.low is None and parallel.clusters == 2


def test_a_metadata_key_with_too_many_values_is_not_broken_down() -> None:
    lines = [line(f"s{i}", 1, 1.0, metadata={"bucket": i % 21, "few": i % 20}) for i in range(42)]
    assert list(summarize(lines).by_metadata) == ["few"]
    assert len(summarize(lines).by_metadata["few"]) == 20


def test_errors_keep_the_first_message_and_a_few_ids_per_kind() -> None:
    lines = (
        [line("m0", 2, None, error="RateLimitError: try 0")]
        + [line(f"m{i}", 1, None, error=f"RateLimitError: try {i}") for i in range(999)]
        + [line("r0", 1, None, error_kind="reward", error="KeyError: 'x'\n" + "y" * 2000)]
    )
    s = summarize(lines)
    assert s.errors_by_kind == {"model": 1000, "reward": 1}
    model, reward = s.error_examples["model"], s.error_examples["reward"]
    assert model.first_error == "RateLimitError: try 0"
    assert model.sample_ids == ["m0", "m1", "m2"]  # bounded, however many errors
    assert reward.sample_ids == ["r0"] and len(reward.first_error) == 500
    buffer = io.StringIO()
    print_summary(s, Console(file=buffer, width=160))
    text = buffer.getvalue()
    errors = text[text.index("Errors") :]
    # Most frequent kind first; a long message is cut.
    assert errors.index("model") < errors.index("reward")
    assert "RateLimitError: try 0" in errors and "m0, m1, m2" in errors
    assert "KeyError: 'x'" in errors and errors.count("y") < 150  # cut short


def test_planned_results_make_a_summary_complete_or_not() -> None:
    assert summarize([line("a", 1, 1.0)]).complete  # unknown plan: nothing to say
    partial = summarize([line("a", 1, 1.0)], planned=4)
    assert (partial.planned, partial.complete) == (4, False)
    assert summarize([line("a", 1, 1.0)], planned=1).complete


def test_tokens_count_what_superseded_attempts_spent(tmp_path: Path) -> None:
    # The summary read only the latest line of each pair: tokens of attempts that
    # --retry-errors replaced vanished from the totals.
    from agentloop._records import index_results, latest_results, superseded_results

    failed = {**line("a", 1, None), "usage": {"input_tokens": 40, "output_tokens": 10,
                                              "total_tokens": 50}}  # fmt: skip
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in [failed, line("a", 1, 1.0),
                                                            line("b", 1, 1.0)]))  # fmt: skip
    index = index_results(path)
    assert (index.superseded, index.superseded_lines) == (1, (1,))
    s = summarize(
        latest_results(path, index), superseded=superseded_results(path, index)
    )
    assert (s.results, s.errored, s.superseded) == (2, 0, 1)
    assert s.tokens == {"input_tokens": 60, "output_tokens": 14, "total_tokens": 74,
                        "cached_input_tokens": 0, "reasoning_tokens": 0,
                        "cache_write_input_tokens": 0,
                        "cache_write_1h_input_tokens": 0}  # fmt: skip


# --- error bars (issue 35): every figure with its interval, on the headline's trials ---


def test_the_headline_interval_counts_what_the_headline_counts() -> None:
    # 10 results: 6 pass, 2 fail, 2 errored; 2 more planned and never written: 6 of 12
    lines = [line(f"s{i}", 1, 1.0) for i in range(6)] + [line("s6", 1, 0.0), line("s7", 1, 0.0)]
    lines += [line("s8", 1, None), line("s9", 1, None)]
    r = summarize(lines, planned=12).rewards["r"]
    assert r.headline == 0.5 and r.interval is not None
    assert (r.interval.low, r.interval.high) == wilson(6, 12)  # every result its own trial
    assert (r.interval.method, r.interval.clusters, r.interval.results) == ("wilson", 12, 12)
    assert r.pass_rate_interval == r.interval  # the same trials, the same verdicts


def test_epochs_are_clustered_by_sample_and_a_continuous_score_gets_a_t_interval() -> None:
    rng = random.Random(4)
    values = {f"s{i}": [round(rng.random(), 3) for _ in range(3)] for i in range(8)}
    values["s7"][2] = None  # type: ignore[call-overload]  # errored: 0 in the headline
    lines = [line(s, e + 1, v) for s, vs in values.items() for e, v in enumerate(vs)]
    s = summarize(lines, epochs=3)
    r = s.rewards["r"]
    flat = [v or 0.0 for vs in values.values() for v in vs]
    labels = [sid for sid, vs in values.items() for _ in vs]
    se = clustered_se(cluster_totals(flat, labels))
    half = t_quantile(0.975, 7) * se
    assert s.clustered_by == "id" and r.interval is not None
    assert (r.interval.method, r.interval.clusters, r.interval.results) == ("t", 8, 24)
    assert r.interval.se == pytest.approx(se)
    assert (r.interval.low, r.interval.high) == (
        pytest.approx(r.headline - half),
        pytest.approx(r.headline + half),
    )
    assert summarize(lines[::3]).clustered_by is None  # one epoch: every result independent


def test_cluster_by_clusters_samples_by_a_metadata_key() -> None:
    # 12 questions on 6 passages, two epochs; q11 has no passage: its own cluster
    lines = [
        line(f"q{i}", e, float((i + e) % 3 == 0), metadata={"passage": f"p{i // 2}"})
        for i in range(11)
        for e in (1, 2)
    ]
    lines += [line("q11", e, 1.0) for e in (1, 2)]
    s = summarize(lines, epochs=2, cluster_by="passage")
    r = s.rewards["r"]
    assert s.clustered_by == "metadata.passage" and r.interval is not None
    assert r.interval.clusters == 7  # p0..p5 and q11
    labels = [x.get("metadata", {}).get("passage", x["id"]) for x in lines]
    flat = [float(x["scores"]["r"]["score"]) for x in lines]
    assert r.interval.se == pytest.approx(clustered_se(cluster_totals(flat, labels)))
    assert s.notes == ["1 sample(s) have no metadata.passage (cluster_by): each is its own "
                       "cluster in the intervals"]  # fmt: skip
    # within one passage, its questions are the clusters
    group = s.by_metadata["passage"]["p0"]
    assert group.intervals["r"].clusters == 2 and group.intervals["r"].low is None
    # a key no result has: a warning, and each sample its own cluster
    missing = summarize(lines, epochs=2, cluster_by="pasage")
    assert missing.warnings == [
        "cluster_by: no result has metadata.pasage (a misspelt key?): each sample is its own "
        "cluster, as without cluster_by"
    ]
    assert missing.rewards["r"].interval.clusters == 12  # type: ignore[union-attr]


def test_pass_at_k_intervals_bootstrap_tasks_and_k_1_is_the_pass_rate() -> None:
    rng = random.Random(9)
    lines = [line(f"s{i}", e, float(rng.random() < 0.3 + i / 30)) for i in range(15)
             for e in (1, 2, 3)]  # fmt: skip
    r = summarize(lines, epochs=3).rewards["r"]
    assert r.pass_at_k_interval[1] == r.pass_hat_k_interval[1] == r.pass_rate_interval
    for k in (2, 3):
        for estimate, interval in ((r.pass_at_k[k], r.pass_at_k_interval[k]),
                                   (r.pass_hat_k[k], r.pass_hat_k_interval[k])):  # fmt: skip
            assert interval.method == "bootstrap" and interval.clusters == 15
            assert interval.low is not None and interval.high is not None
            assert interval.low <= estimate <= interval.high


def test_intervals_do_not_depend_on_the_order_results_finished_in() -> None:
    rng = random.Random(1)
    lines = [line(f"s{i}", e, float(rng.random() < 0.5), metadata={"c": i % 3})
             for i in range(12) for e in (1, 2)]  # fmt: skip
    shuffled = lines[:]
    random.Random(2).shuffle(shuffled)
    first = summarize(lines, epochs=2).model_dump()
    assert summarize(shuffled, epochs=2).model_dump() == first
    # fractional scores over three epochs: the intervals agree to the last bit
    scores = [line(f"s{i}", e, rng.random() / 3) for i in range(12) for e in (1, 2, 3)]
    fractional = summarize(scores, epochs=3).rewards["r"].interval
    for seed in range(5):
        random.Random(seed).shuffle(scores)
        assert summarize(scores, epochs=3).rewards["r"].interval == fractional


def test_too_small_a_run_says_so_instead_of_an_interval() -> None:
    s = summarize([line("a", 1, 1.0), line("b", 1, 0.0), line("c", 1, 1.0)])
    r = s.rewards["r"]
    assert r.interval is not None and (r.interval.low, r.interval.high) == (None, None)
    assert r.interval.note == "3 independent unit(s), fewer than 5: too few for an interval"
    buffer = io.StringIO()
    print_summary(s, Console(file=buffer, width=160))
    text = buffer.getvalue()
    assert [row.split()[5] for row in text.splitlines() if row.startswith("│ r ")] == ["n/a"]
    assert "n/a: fewer than 5 independent units, too few for an interval" in text


def test_the_printed_summary_shows_the_intervals_and_how_they_were_made() -> None:
    lines = [line(f"s{i}", e, float(i % 3 > 0)) for i in range(9) for e in (1, 2)]
    s = summarize(lines, epochs=2)
    buffer = io.StringIO()
    print_summary(s, Console(file=buffer, width=160))
    text = buffer.getvalue()
    r = s.rewards["r"]
    assert r.interval is not None and r.interval.low is not None and r.interval.high is not None
    assert f"[{r.interval.low:.3f}, {r.interval.high:.3f}]" in text
    assert "standard errors clustered by sample id (its epochs)" in text
    # several epochs: pass@k and pass^k with their intervals in a table of their own
    rows = {row.split("│")[2].strip(): row for row in text.splitlines() if row.startswith("│ r ")}
    interval = r.pass_hat_k_interval[2]
    assert interval.low is not None and interval.high is not None
    assert f"[{interval.low:.3f}, {interval.high:.3f}]" in rows["pass^2"]


def test_a_summary_written_before_intervals_still_reads_and_prints() -> None:
    data = summarize([line(f"s{i}", 1, 1.0) for i in range(6)]).model_dump(mode="json")
    for stats in data["rewards"].values():
        for key in ("interval", "pass_rate_interval", "pass_at_k_interval", "pass_hat_k_interval"):
            del stats[key]
    del data["clustered_by"]
    old = RunSummary.model_validate(data)
    assert old.rewards["r"].interval is None
    buffer = io.StringIO()
    print_summary(old, Console(file=buffer, width=160))
    row = next(r for r in buffer.getvalue().splitlines() if r.startswith("│ r "))
    assert row.split("│")[3].strip() == "-" and "95% CI of the score" not in buffer.getvalue()


def test_an_interval_of_a_reward_in_0_1_stays_in_0_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 9 answers right, one partly (token F1 2/3): the score 0.967, and mean + t·SE 1.042
    config = add_setup(tmp_path, n=10)
    script = json.loads((tmp_path / "script.json").read_text())
    script["s0003"][-1] = "4 apples"
    write_json(tmp_path / "script.json", script)
    run = run_once(config)
    stats = json.loads((run / "summary.json").read_text())["rewards"]["qa_f1_reward"]
    scores = [1.0] * 9 + [2 / 3]
    mean = sum(scores) / 10
    half = t_quantile(0.975, 9) * statistics.stdev(scores) / math.sqrt(10)
    assert stats["headline"] == pytest.approx(mean) and mean + half > 1
    interval = stats["interval"]
    assert interval["method"] == "t" and interval["low"] == pytest.approx(mean - half)
    assert interval["high"] == 1.0 and interval["note"] == "cut to the scores' range [0, 1]"
    capsys.readouterr()
    assert main(["summary", str(run)]) == 0
    assert f"[{mean - half:.3f}, 1.000]" in capsys.readouterr().out
