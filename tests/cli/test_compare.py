"""`agentloop compare` and `agentloop power` on runs of scripted models that differ by a
known amount on known samples: the paired difference, its interval, the p-value and the
verdict are the references' (computed here from the known answers)."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.harness.stats._error_bars import (
    cluster_totals,
    clustered_se,
    holm,
    mcnemar_exact,
    t_cdf,
    t_quantile,
)
from tests.support.harness import add_row, add_script, add_setup, run_once, write_json, write_jsonl

Z = statistics.NormalDist().inv_cdf(0.975) + statistics.NormalDist().inv_cdf(0.8)


def make_run(tmp: Path, name: str, n: int, wrong: set[int], **config: Any) -> Path:
    """A run of n add questions whose scripted model answers the ``wrong`` ones wrongly
    (qa_f1_reward 0, else 1), in every epoch."""
    folder = tmp / name
    folder.mkdir(parents=True)
    setup = add_setup(folder, n=n, name=name, **config)
    script = add_script(n)
    for i in wrong:
        script[f"s{i:04d}"][-1] = "wrong"
    write_json(folder / "script.json", script)
    return run_once(setup)


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()  # what the runs printed
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = cli(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


WRONG_A = set(range(0, 36, 3))  # 12 of 40
WRONG_B = set(range(0, 40, 9))  # 5 of 40: 8 questions fixed, one (36) broken


def test_compare_pairs_two_runs_and_gives_mcnemars_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = make_run(tmp_path, "a", 40, WRONG_A)
    b = make_run(tmp_path, "b", 40, WRONG_B)
    data = cli_json(capsys, "compare", str(a), str(b))
    (delta,) = data["rewards"]
    paired = delta["paired"]
    diffs = [float(i in WRONG_A) - float(i in WRONG_B) for i in range(40)]  # B - A
    se = statistics.stdev(diffs) / math.sqrt(40)
    half = t_quantile(0.975, 39) * se
    assert (paired["pairs"], paired["clusters"], paired["test"]) == (40, 40, "McNemar exact")
    assert (paired["a_only"], paired["b_only"]) == (1, 8)
    assert paired["mean"] == pytest.approx(7 / 40) == pytest.approx(delta["delta"])
    assert paired["p_value"] == pytest.approx(2 * (1 + 9) / 2**9)  # exact binomial, n = 9
    assert paired["low"] == pytest.approx(7 / 40 - half)
    assert paired["high"] == pytest.approx(7 / 40 + half)
    assert paired["detectable"] == pytest.approx(Z * se)
    assert delta["verdict"] == "B better"
    assert (data["pairing"], data["clustered_by"]) == ("id and epoch", None)
    code, out, _ = cli(capsys, "compare", str(a), str(b))
    assert code == 0
    row = next(line for line in out.splitlines() if "McNemar exact" in line)
    assert [c.strip() for c in row.strip("│").split("│")] == [
        "qa_f1_reward", "40", "+0.175", f"[{7 / 40 - half:+.3f}, {7 / 40 + half:+.3f}]",
        "0.0391", "McNemar exact", "B better", f"{Z * se:.3f}",
    ]  # fmt: skip
    assert "paired on the results both runs have (id and epoch)" in out
    # the other way round: the same test, the other verdict
    assert cli_json(capsys, "compare", str(b), str(a))["rewards"][0]["verdict"] == "A better"


def test_no_difference_and_too_few_samples_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = make_run(tmp_path, "a", 20, {1, 5, 9})
    same = make_run(tmp_path, "same", 20, {1, 5, 9})
    (delta,) = cli_json(capsys, "compare", str(a), str(same))["rewards"]
    assert delta["paired"]["p_value"] == 1.0
    assert delta["verdict"] == "no significant difference at 95%"
    tiny_a = make_run(tmp_path, "tiny-a", 4, {0})
    tiny_b = make_run(tmp_path, "tiny-b", 4, {1, 2})
    (delta,) = cli_json(capsys, "compare", str(tiny_a), str(tiny_b))["rewards"]
    assert (delta["paired"]["low"], delta["paired"]["high"]) == (None, None)
    assert delta["paired"]["note"] == (
        "4 independent unit(s), fewer than 5: too few for an interval"
    )
    out = cli(capsys, "compare", str(tiny_a), str(tiny_b))[1]
    row = next(line for line in out.splitlines() if "McNemar" in line)
    assert " n/a " in row and "note: qa_f1_reward: 4 independent unit(s)" in out


def test_epochs_are_clustered_and_take_the_paired_t_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = make_run(tmp_path, "a", 40, WRONG_A, epochs=2)
    b = make_run(tmp_path, "b", 40, WRONG_B, epochs=2)
    data = cli_json(capsys, "compare", str(a), str(b))
    paired = data["rewards"][0]["paired"]
    diffs = [float(i in WRONG_A) - float(i in WRONG_B) for i in range(40) for _ in (1, 2)]
    labels = [i for i in range(40) for _ in (1, 2)]
    se = clustered_se(cluster_totals(diffs, labels))
    assert (paired["pairs"], paired["clusters"], paired["test"]) == (80, 40, "paired t")
    assert paired["se"] == pytest.approx(se)
    assert paired["p_value"] == pytest.approx(2 * (1 - t_cdf((7 / 40) / se, 39)))
    assert data["clustered_by"] == "id" and data["rewards"][0]["verdict"] == "B better"
    # one run with one epoch, the other with two: each sample's mean is paired
    one = make_run(tmp_path, "one", 40, WRONG_A)
    mixed = cli_json(capsys, "compare", str(one), str(b))
    assert mixed["pairing"] == "sample means"
    assert mixed["rewards"][0]["paired"]["pairs"] == 40


def test_cluster_by_makes_passages_the_independent_units(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 40 questions on 10 passages of 4
    a = _run_with_rows(tmp_path / "a", WRONG_A)
    b = _run_with_rows(tmp_path / "b", WRONG_B)
    summary = json.loads((a / "summary.json").read_text())
    assert summary["clustered_by"] == "metadata.passage"
    assert summary["rewards"]["qa_f1_reward"]["interval"]["clusters"] == 10
    data = cli_json(capsys, "compare", str(a), str(b))
    paired = data["rewards"][0]["paired"]
    diffs = [float(i in WRONG_A) - float(i in WRONG_B) for i in range(40)]
    se = clustered_se(cluster_totals(diffs, [i // 4 for i in range(40)]))
    assert (paired["clusters"], paired["test"], data["clustered_by"]) == (
        10, "paired t", "metadata.passage"
    )  # fmt: skip
    assert paired["se"] == pytest.approx(se)
    assert paired["p_value"] == pytest.approx(2 * (1 - t_cdf((7 / 40) / se, 9)))


def _run_with_rows(folder: Path, wrong: set[int]) -> Path:
    folder.mkdir()
    setup = add_setup(folder, n=40, name=folder.name, cluster_by="passage")
    write_jsonl(folder / "data.jsonl", [add_row(i, metadata={"passage": f"p{i // 4}"})
                                        for i in range(40)])  # fmt: skip
    script = add_script(40)
    for i in wrong:
        script[f"s{i:04d}"][-1] = "wrong"
    write_json(folder / "script.json", script)
    return run_once(setup)


def test_several_runs_give_every_pair_with_holms_correction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = make_run(tmp_path, "a", 40, WRONG_A)
    b = make_run(tmp_path, "b", 40, WRONG_B)
    c = make_run(tmp_path, "c", 40, set(range(0, 40, 2)))  # 20 wrong
    data = cli_json(capsys, "compare", str(a), str(b), str(c))
    assert data["labels"] == ["A", "B", "C"]
    assert data["correction"] == "Holm's method over the 3 pairs of runs, per reward"
    pairs = {(p["label_a"], p["label_b"]): p["rewards"][0] for p in data["pairs"]}
    assert "summary_a" not in data["pairs"][0] and len(data["summaries"]) == 3

    def mcnemar(wrong_x: set[int], wrong_y: set[int]) -> float:  # y - x
        x_only = len(wrong_y - wrong_x)  # x passed, y failed
        return mcnemar_exact(x_only, len(wrong_x - wrong_y))

    raw = [mcnemar(WRONG_A, WRONG_B), mcnemar(WRONG_A, set(range(0, 40, 2))),
           mcnemar(WRONG_B, set(range(0, 40, 2)))]  # fmt: skip
    order = sorted(range(3), key=raw.__getitem__)  # Holm by hand: 3p, 2p, 1p, running max
    by_hand = [0.0] * 3
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (3 - rank) * raw[i]))
        by_hand[i] = running
    assert holm(raw) == pytest.approx(by_hand)
    for (key, p, adjusted) in zip([("A", "B"), ("A", "C"), ("B", "C")], raw, by_hand, strict=True):
        assert pairs[key]["paired"]["p_value"] == pytest.approx(p)
        assert pairs[key]["p_adjusted"] == pytest.approx(adjusted)
        expected = "no significant difference at 95%"
        if adjusted < 0.05:
            expected = f"{key[1] if pairs[key]['paired']['mean'] > 0 else key[0]} better"
        assert pairs[key]["verdict"] == expected
    assert pairs[("B", "C")]["verdict"] == "B better"  # 5 wrong against 20: still clear
    code, out, _ = cli(capsys, "compare", str(a), str(b), str(c))
    assert code == 0 and "p (Holm): adjusted with Holm's method over the 3 pairs" in out
    assert f"C = {c}" in out


def test_power_from_two_runs_and_from_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = make_run(tmp_path, "a", 40, WRONG_A)
    b = make_run(tmp_path, "b", 40, WRONG_B)
    plan = cli_json(capsys, "power", str(a), str(b), "--delta", "0.05")
    (row,) = plan["rows"]
    diffs = [float(i in WRONG_A) - float(i in WRONG_B) for i in range(40)]
    sd_difference = statistics.stdev(diffs)  # σ_d of one sample's paired difference
    scores_a = [float(i not in WRONG_A) for i in range(40)]
    scores_b = [float(i not in WRONG_B) for i in range(40)]
    assert row["units"] == 40
    assert row["sd_difference"] == pytest.approx(sd_difference)
    assert row["correlation"] == pytest.approx(statistics.correlation(scores_a, scores_b))
    assert row["detectable"] == pytest.approx(Z * sd_difference / math.sqrt(40))
    assert row["needed"] == math.ceil((Z * sd_difference / 0.05) ** 2)
    unpaired = math.sqrt(statistics.variance(scores_a) + statistics.variance(scores_b))
    assert row["needed_unpaired"] == math.ceil((Z * unpaired / 0.05) ** 2)
    assert row["needed"] < row["needed_unpaired"]  # what pairing buys
    # one run: B assumed alike, the correlation given
    plan = cli_json(capsys, "power", str(a), "--delta", "0.05", "--correlation", "0.5")
    (row,) = plan["rows"]
    sd = statistics.stdev(scores_a)
    assert plan["correlation_assumed"] == 0.5 and row["sd_a"] == pytest.approx(sd)
    assert row["needed"] == math.ceil((Z * sd / 0.05) ** 2)  # σ_d² = 2σ²(1 - 0.5) = σ²
    code, out, _ = cli(capsys, "power", str(a), "--delta", "0.05")
    assert code == 0 and "correlation 0 assumed" in out
    code, _, err = cli(capsys, "power", str(a), str(b), "--correlation", "0.5")
    assert code == 2 and "--correlation is for one run" in err
    code, _, err = cli(capsys, "power", str(a), "--delta", "2")
    assert code == 2 and "expected a number between 0 and 1" in err


def test_view_recomputes_a_summary_written_before_intervals(tmp_path: Path) -> None:
    from agentloop.cli._view_data import load_run

    run = make_run(tmp_path, "a", 10, {1, 4})
    written = json.loads((run / "summary.json").read_text())
    for stats in written["rewards"].values():
        for key in ("interval", "pass_rate_interval", "pass_at_k_interval", "pass_hat_k_interval"):
            del stats[key]
    del written["clustered_by"]
    (run / "summary.json").write_text(json.dumps(written))
    summary = load_run(run)["page"]["summary"]
    interval = summary["rewards"]["qa_f1_reward"]["interval"]
    assert (interval["method"], interval["clusters"]) == ("wilson", 10)
    assert summary["notes"][-1] == "computed by agentloop view: summary.json is missing or older"


def _bare(run: Path, folder: Path) -> Path:
    """The run's results file alone (no run.json beside it)."""
    folder.mkdir()
    (folder / "results.jsonl").write_bytes((run / "results.jsonl").read_bytes())
    return folder / "results.jsonl"


def test_bare_results_files_of_several_epochs_read_their_epochs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: ValueError: need 0 <= c <= n ... got n=1 c=2 (pass@k over 1 epoch)
    a = make_run(tmp_path, "a", 10, {1, 2, 3}, epochs=2)
    b = make_run(tmp_path, "b", 10, {1}, epochs=2)
    bare_a, bare_b = _bare(a, tmp_path / "bare-a"), _bare(b, tmp_path / "bare-b")
    from_runs = cli_json(capsys, "compare", str(a), str(b))
    data = cli_json(capsys, "compare", str(bare_a), str(bare_b))
    assert data["rewards"] == from_runs["rewards"]
    assert data["summary_a"]["rewards"]["qa_f1_reward"]["pass_at_k"] == {
        "1": pytest.approx(0.7), "2": pytest.approx(0.7)
    }  # fmt: skip
    assert cli_json(capsys, "power", str(bare_a), str(bare_b))["rows"] == (
        cli_json(capsys, "power", str(a), str(b))["rows"]
    )
    assert cli_json(capsys, "power", str(bare_a))["rows"][0]["units"] == 10


def test_power_without_any_observed_variance_gives_no_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: 1 sample needed, 0.000 detectable
    a = make_run(tmp_path, "a", 40, set())  # 40 of 40 pass
    b = make_run(tmp_path, "b", 40, set())  # and agrees with A everywhere
    for runs in ([a], [a, b]):
        (row,) = cli_json(capsys, "power", *map(str, runs), "--delta", "0.05")["rows"]
        assert (row["detectable"], row["needed"], row["needed_unpaired"]) == (None, None, None)
        assert "no variance observed" in row["note"]
        code, out, _ = cli(capsys, "power", *map(str, runs), "--delta", "0.05")
        assert code == 0 and "no variance observed" in out


def test_compare_and_power_count_an_incomplete_run_as_summary_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: summary 0.375 over the 8 planned results, compare 0.75 over the 4 present
    a = make_run(tmp_path, "a", 8, {0})
    b = make_run(tmp_path, "b", 8, {0, 1})
    lines = (a / "results.jsonl").read_text().splitlines(keepends=True)
    kept = sorted(lines, key=lambda x: json.loads(x)["id"])[:4]
    (a / "results.jsonl").write_text("".join(kept))
    (a / "summary.json").unlink()
    assert cli(capsys, "summary", str(a))[0] == 0
    summary = json.loads((a / "summary.json").read_text())
    assert summary["rewards"]["qa_f1_reward"]["headline"] == pytest.approx(3 / 8)
    data = cli_json(capsys, "compare", str(a), str(b))
    (delta,) = data["rewards"]
    assert delta["a"] == pytest.approx(3 / 8) and delta["delta"] == pytest.approx(6 / 8 - 3 / 8)
    assert delta["paired"]["pairs"] == 4
    assert any("A is incomplete (4 of 8 results)" in w for w in data["warnings"])
    code, out, _ = cli(capsys, "compare", str(a), str(b))
    assert code == 0 and "A is incomplete" in out
    plan = cli_json(capsys, "power", str(a))
    assert plan["rows"][0]["units"] == 8
    assert any("incomplete (4 of 8 results)" in n for n in plan["notes"])
