"""``agentloop bfcl summary`` on format-sensitivity runs: accuracy per prompt format, max
delta and standard deviation as BFCL reports them, apart from the overall."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentloop.evals import BFCL_PROMPT_FORMATS

from agentloop.benchmarks.bfcl._format_spread import format_of, format_spread
from agentloop.benchmarks.bfcl._summary import format_bfcl_summary, summarize_bfcl
from tests.support.harness import write_jsonl

A, B, C = BFCL_PROMPT_FORMATS[0], BFCL_PROMPT_FORMATS[5], BFCL_PROMPT_FORMATS[25]


def _line(n: int, fmt: str, score: float | None, source: str = "simple_python_1") -> dict:
    line: dict[str, Any] = {
        "id": f"format_sensitivity_{n}:{fmt}:{source}",
        "epoch": 1,
        "status": "ok" if score is not None else "error",
        "scores": {},
        "metadata": {"bfcl_category": "format_sensitivity", "bfcl_format": fmt},
    }
    if score is not None:
        line["scores"]["bfcl_verdict"] = {"score": score, "reason": "", "details": {}}
    return line


def _run(tmp_path: Path, name: str, lines: list[dict]) -> Path:
    (tmp_path / name).mkdir()
    write_jsonl(tmp_path / name / "results.jsonl", lines)
    return tmp_path / name


def test_accuracy_per_format_max_delta_and_deviation(tmp_path: Path) -> None:
    lines = [
        _line(0, C, 1.0),  # listed out of BFCL's order: shown in its order
        _line(1, C, None),  # errored: a failure in its format
        _line(2, A, 1.0),
        _line(3, A, 1.0, "parallel_9"),
        _line(4, B, 0.0),
        _line(5, B, 0.0, "parallel_9"),
    ]
    other = [
        {
            "id": "simple_python_0",
            "epoch": 1,
            "status": "ok",
            "scores": {"bfcl_verdict": {"score": 1.0, "reason": "", "details": {}}},
            "metadata": {"bfcl_category": "simple_python"},
        }
    ]
    summary = summarize_bfcl([_run(tmp_path, "fs", lines), _run(tmp_path, "sp", other)])
    spread = summary.format_sensitivity
    assert spread is not None
    assert spread.accuracy == {A: 1.0, B: 0.0, C: 0.5}
    # BFCL: (max - min) * 100; statistics.stdev * 100; variance * 100**2; rounded to 2
    assert (spread.max_delta, spread.std, spread.variance) == (100.0, 50.0, 2500.0)
    fs = summary.categories["format_sensitivity"]
    assert (fs.total, fs.correct, fs.errored) == (6, 3, 1)
    # not part of any group nor of the overall: Non-Live AST is simple_python's alone
    assert all("format_sensitivity" not in g.missing for g in summary.groups)
    assert summary.overall == 1.0
    text = format_bfcl_summary(summary)
    assert "Format sensitivity: max delta 100.00 points, standard deviation 50.00" in text
    assert f"  100.00%  {A}" in text and text.index(A) < text.index(B) < text.index(C)


def test_one_format_has_no_spread_and_other_ids_have_no_format() -> None:
    spread = format_spread({A: (3, 4)}, BFCL_PROMPT_FORMATS)
    assert spread.accuracy == {A: 0.75} and (spread.max_delta, spread.std) == (0.0, 0.0)
    assert format_of("simple_python_3") is None
    assert format_of(f"format_sensitivity_7:{B}:live_simple_1-1-0") == B


def test_a_summary_without_the_category_shows_no_spread(tmp_path: Path) -> None:
    line = {
        "id": "simple_python_0",
        "epoch": 1,
        "status": "ok",
        "scores": {"bfcl_verdict": {"score": 0.0, "reason": "", "details": {}}},
    }
    summary = summarize_bfcl([_run(tmp_path, "sp", [line])])
    assert summary.format_sensitivity is None
    assert "Format sensitivity" not in format_bfcl_summary(summary)
