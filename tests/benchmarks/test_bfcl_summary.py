"""BFCL accuracy over run directories, aggregated like BFCL's leaderboard table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentloop.benchmarks.bfcl._summary import format_bfcl_summary, summarize_bfcl
from agentloop.errors import AgentloopError
from tests.support.harness import write_jsonl


def result(sid: str, category: str | None, score: float | None, **extra: Any) -> dict:
    line: dict[str, Any] = {"id": sid, "epoch": 1, "status": "ok", "scores": {}}
    if score is not None:
        line["scores"]["bfcl_verdict"] = {"score": score, "reason": "", "details": {}}
    if category is not None:
        line["metadata"] = {"bfcl_category": category}
    line.update(extra)
    return line


def rows(category: str, *scores: float | None) -> list[dict]:
    return [result(f"{category}_{i}", category, s) for i, s in enumerate(scores)]


def run_dir(tmp_path: Path, name: str, lines: list[dict]) -> Path:
    directory = tmp_path / name
    directory.mkdir()
    write_jsonl(directory / "results.jsonl", lines)
    return directory


@pytest.fixture
def runs(tmp_path: Path) -> list[Path]:
    non_live = [
        *rows("simple_python", 1.0, 1.0, 1.0, 0.0),
        *rows("multiple", 1.0),
        result("multiple_1", "multiple", None, status="error", error="boom"),
        *rows("parallel", 1.0),
        *rows("parallel_multiple", 0.0),
        *rows("irrelevance", 1.0, 0.0),
    ]
    live = [
        *rows("live_simple", 1.0, 1.0),
        # retried: the errored line is superseded by the later one
        result("live_simple_2", "live_simple", None, status="error"),
        result("live_simple_2", "live_simple", 1.0),
        *rows("live_multiple", 0.0),
        result("live_irrelevance_0-0-0", None, 1.0),  # category from the id
        *rows("live_relevance", 1.0),
        result("other-row", None, 1.0),
    ]
    return [run_dir(tmp_path, "a", non_live), run_dir(tmp_path, "b", live)]


def test_categories_groups_and_overall(runs: list[Path]) -> None:
    summary = summarize_bfcl(runs)
    accuracy = {c: (s.total, s.correct, s.accuracy) for c, s in summary.categories.items()}
    assert accuracy == {
        "simple_python": (4, 3, 0.75),
        "multiple": (2, 1, 0.5),  # the errored result is a failure
        "parallel": (1, 1, 1.0),
        "parallel_multiple": (1, 0, 0.0),
        "irrelevance": (2, 1, 0.5),
        "live_simple": (3, 3, 1.0),
        "live_multiple": (1, 0, 0.0),
        "live_irrelevance": (1, 1, 1.0),
        "live_relevance": (1, 1, 1.0),
    }
    assert summary.categories["multiple"].errored == 1
    groups = {g.name: (g.accuracy, g.missing) for g in summary.groups}
    assert groups == {
        # unweighted: (.75 + .5 + 1 + 0) / 4, simple being simple_python alone
        "Non-Live AST": (pytest.approx(0.5625), ("simple_java", "simple_javascript")),
        "Live AST": (0.75, ("live_parallel", "live_parallel_multiple")),  # by rows: 3 / 4
        "Irrelevance": (0.75, ()),  # unweighted: (.5 + 1) / 2, not 2 / 3
        "Relevance": (1.0, ()),
    }
    assert summary.overall == pytest.approx((0.5625 + 0.75 + 0.75) / 3)  # relevance not in it
    assert summary.overall_missing == (
        "Multi-Turn",
        "Agentic",
        "simple_java",
        "simple_javascript",
        "live_parallel",
        "live_parallel_multiple",
    )
    # BFCL's own figures count what is missing as 0: simple (.75 + 0 + 0) / 3; Live with
    # the missing categories' entries (2 and 2 in the fixture data) as failures
    bfcl = {g.name: g.bfcl_accuracy for g in summary.groups}
    assert bfcl == {
        "Non-Live AST": pytest.approx((0.25 + 0.5 + 1 + 0) / 4),
        "Live AST": pytest.approx(3 / 8),
        "Irrelevance": 0.75,
        "Relevance": 1.0,
    }
    assert summary.bfcl_overall == pytest.approx((10 * 0.4375 + 10 * 0.375 + 10 * 0.75) / 100)
    assert summary.notes == [f"{runs[1]}: 1 result(s) are not BFCL rows (left out)"]


def test_the_table(runs: list[Path]) -> None:
    text = format_bfcl_summary(summarize_bfcl(runs))
    assert "simple_python" in text and "75.00%" in text
    assert "Non-Live AST                56.25%" in text
    live = (
        "Live AST                    75.00%  (partial: no live_parallel, live_parallel_multiple;"
        " BFCL: 37.50%, counting them as 0)"
    )
    assert live in text.splitlines()
    assert "Irrelevance                 75.00%" in text.splitlines()  # whole: one figure
    assert (
        "Overall                     68.75%  (partial: no Multi-Turn, Agentic, simple_java" in text
    )
    assert text.splitlines()[-2].endswith("; BFCL: 15.63%, counting them as 0)")
    assert text.index("simple_python") < text.index("multiple") < text.index("live_simple")


def test_results_without_a_verdict_count_as_failures(tmp_path: Path) -> None:
    lines = [*rows("parallel", 1.0, None, None)]
    summary = summarize_bfcl([run_dir(tmp_path, "r", lines)])
    assert summary.categories["parallel"].accuracy == pytest.approx(1 / 3)
    assert summary.categories["parallel"].unscored == 2
    assert summary.notes == ["parallel: 2 result(s) without a bfcl_verdict score"]
    groups = {g.name: g for g in summary.groups}
    assert groups["Live AST"].accuracy is None and summary.overall == pytest.approx(1 / 3)
    assert "Overall" in format_bfcl_summary(summary)


def test_a_run_never_scored_with_the_verdict_is_an_error(tmp_path: Path) -> None:
    path = run_dir(tmp_path, "r", rows("multiple", None, None))
    with pytest.raises(
        AgentloopError, match=r"agentloop score RUN_DIR --rewards bfcl_verdict, then summarise"
    ):
        summarize_bfcl([path])


def test_only_errors_are_failures_not_an_error(tmp_path: Path) -> None:
    lines = [result("multiple_0", "multiple", None, status="error")]
    summary = summarize_bfcl([run_dir(tmp_path, "r", lines)])
    assert summary.categories["multiple"].accuracy == 0.0


def test_not_a_run_or_no_bfcl_rows(tmp_path: Path) -> None:
    with pytest.raises(AgentloopError, match="not a run directory or results file"):
        summarize_bfcl([tmp_path / "missing"])
    path = run_dir(tmp_path, "r", [result("x", None, 1.0)])
    with pytest.raises(AgentloopError, match="no BFCL results"):
        summarize_bfcl([path])
    # a results file is accepted as well as its directory
    ok = run_dir(tmp_path, "s", rows("multiple", 1.0))
    assert summarize_bfcl([ok / "results.jsonl"]).categories["multiple"].correct == 1


def test_a_verdict_stands_when_another_reward_raised(tmp_path: Path) -> None:
    raised = {"status": "error", "error_kind": "reward", "reward_errors": {"x": "KeyError: 'y'"}}
    lines = [
        result("parallel_0", "parallel", 1.0, **raised),  # another reward raised
        result("parallel_1", "parallel", None, **raised),  # the verdict raised
    ]
    summary = summarize_bfcl([run_dir(tmp_path, "r", lines)])
    score = summary.categories["parallel"]
    assert (score.total, score.correct, score.errored) == (2, 1, 1)
