"""Error bars in the HTML report, in a real headless Chromium: the reward table's 95%
interval drawn as a bar, the pass rate's and pass^k's intervals, each metadata group's, and
the comparison page's paired difference with its interval, p-value and verdict."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._view import write_report
from agentloop.harness import compare_runs, load_config, run_eval_sync
from agentloop.harness.stats._summary import RunSummary
from tests.support.harness import (
    add_row,
    add_script,
    add_setup,
    only_run_dir,
    write_json,
    write_jsonl,
)

WRONG_A = set(range(0, 36, 3))  # 12 of 40
WRONG_B = set(range(0, 40, 9))  # 5 of 40


def _run(tmp: Path, name: str, wrong: set[int]) -> Path:
    folder = tmp / name
    folder.mkdir()
    config = add_setup(folder, n=40, name=name, epochs=2)
    write_jsonl(folder / "data.jsonl", [add_row(i, metadata={"half": "low" if i < 20 else "high"})
                                        for i in range(40)])  # fmt: skip
    script = add_script(40)
    for i in wrong:
        script[f"s{i:04d}"][-1] = "wrong"
    write_json(folder / "script.json", script)
    run_eval_sync(load_config(config))
    return only_run_dir(folder / "runs")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    tmp = tmp_path_factory.mktemp("intervals")
    with ThreadPoolExecutor(1) as pool:  # Playwright's event loop runs in this thread
        yield pool.submit(_run, tmp, "a", WRONG_A).result(), pool.submit(
            _run, tmp, "b", WRONG_B
        ).result()


def _open(browser: Any, path: Path) -> tuple[Any, list[str]]:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("body[data-ready='1']")
    return page, errors


def _bounds(page: Any, key: str) -> tuple[float, float]:
    node = page.locator(f"[data-stat='{key}']")
    return float(node.get_attribute("data-low")), float(node.get_attribute("data-high"))


def test_the_run_page_draws_the_intervals(
    browser: Any, runs: tuple[Path, Path], artifacts: Path
) -> None:
    run_a, _ = runs
    summary = RunSummary.model_validate_json((run_a / "summary.json").read_text())
    page, errors = _open(browser, write_report([run_a]).path)
    stats = summary.rewards["qa_f1_reward"]
    assert stats.interval is not None and stats.interval.low is not None
    assert _bounds(page, "reward:qa_f1_reward:interval") == (
        pytest.approx(stats.interval.low), pytest.approx(stats.interval.high)
    )  # fmt: skip
    cell = page.locator("[data-stat='reward:qa_f1_reward:interval']")
    assert cell.inner_text().strip() == f"[{stats.interval.low:.3f}, {stats.interval.high:.3f}]"
    # the bar: its range spans the interval on [0, 1], its dot at the score
    bar = cell.locator(".ci-bar").bounding_box()
    span = cell.locator(".ci-range").bounding_box()
    assert span["x"] - bar["x"] == pytest.approx(stats.interval.low * bar["width"], abs=1.5)
    assert span["width"] == pytest.approx(
        (stats.interval.high - stats.interval.low) * bar["width"], abs=1.5
    )
    hat = stats.pass_hat_k_interval[2]
    shown = page.locator("[data-stat='reward:qa_f1_reward:pass_hat_2_ci']").inner_text()
    assert shown == f"[{hat.low:.3f}, {hat.high:.3f}]"
    rule = page.locator("[data-field='interval-rule']").inner_text()
    assert "standard errors clustered by sample id (its epochs)" in rule
    # each metadata group's interval, in the breakdown
    low = summary.by_metadata["half"]["low"].intervals["qa_f1_reward"]
    assert _bounds(page, "meta:half:low:qa_f1_reward:interval") == (
        pytest.approx(low.low), pytest.approx(low.high)
    )  # fmt: skip
    page.locator("#summary").screenshot(path=str(artifacts / "view-intervals-run.png"))
    page.locator("#breakdown").screenshot(path=str(artifacts / "view-intervals-breakdown.png"))
    assert errors == []


def test_the_comparison_page_shows_the_paired_difference_and_verdict(
    browser: Any, runs: tuple[Path, Path], artifacts: Path
) -> None:
    run_a, run_b = runs
    (delta,) = compare_runs(run_a, run_b).rewards
    paired = delta.paired
    assert paired is not None and paired.low is not None and paired.high is not None
    page, errors = _open(browser, write_report([run_a, run_b]).path)
    assert page.locator("[data-field='verdict:qa_f1_reward']").inner_text() == "B better"
    assert page.locator("[data-stat='paired:qa_f1_reward:mean']").inner_text() == "+0.175"
    assert float(
        page.locator("[data-stat='paired:qa_f1_reward:p']").get_attribute("data-value")
    ) == pytest.approx(paired.p_value)  # fmt: skip
    assert _bounds(page, "paired:qa_f1_reward:interval") == (
        pytest.approx(paired.low), pytest.approx(paired.high)
    )  # fmt: skip
    text = page.locator("[data-stat='paired:qa_f1_reward:interval']").inner_text().strip()
    assert text == f"[{paired.low:+.3f}, {paired.high:+.3f}]"
    assert "paired t" in page.locator("#summary table.deltas").inner_text()
    pairing = page.locator("[data-field='pairing']").inner_text()
    assert "on the results both runs have (id and epoch)" in pairing
    assert "clustered by sample id" in pairing
    page.locator("#summary").screenshot(path=str(artifacts / "view-intervals-compare.png"))
    assert errors == []


def test_a_comparison_written_before_pairing_shows_dashes(
    browser: Any, runs: tuple[Path, Path], tmp_path: Path
) -> None:
    # the page data of an older agentloop: rewards without paired differences
    run_a, run_b = runs
    from agentloop.cli import _view_data

    real = _view_data.compare_runs

    def old_compare(a: Any, b: Any) -> Any:
        comparison = real(a, b)
        for delta in comparison.rewards:
            delta.paired, delta.verdict = None, None
        return comparison

    _view_data.compare_runs = old_compare  # type: ignore[assignment]
    try:
        path = write_report([run_a, run_b], tmp_path / "old.html").path
    finally:
        _view_data.compare_runs = real  # type: ignore[assignment]
    page, errors = _open(browser, path)
    assert page.locator("[data-field='verdict:qa_f1_reward']").inner_text() == "-"
    assert page.locator("[data-field='pairing']").count() == 0
    assert errors == []
