"""Reliability, errors by cause and the accuracy-cost plot in the HTML report, in a real
headless Chromium: a run's reliability table, and two compared runs as points of a
scatter, the Pareto-optimal one filled, a run without a price not placed."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._view import write_report
from tests.cli.test_reliability_cost import PRICE, _a, _run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Path]]:
    tmp = tmp_path_factory.mktemp("reliability-view")
    dear = {k: 2 * v for k, v in PRICE.items()}

    def b(i: int, n: int) -> str:
        return "wrong" if i == 0 else str(i + 1)

    with ThreadPoolExecutor(1) as pool:  # Playwright's loop runs in this thread
        found = [
            pool.submit(_run, tmp, "a", _a, prices={"openai:m": PRICE}).result(),
            pool.submit(_run, tmp, "b", b, prices={"openai:m": dear}).result(),
            pool.submit(_run, tmp, "c", lambda i, n: str(i + 1)).result(),  # no price
        ]
    yield found


def _open(page: Any, path: Path) -> None:
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("body[data-ready='1']")


def test_the_run_page_shows_reliability_and_causes(browser: Any, runs: list[Path]) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    _open(page, write_report([runs[0]]).path)
    key = "reliability:qa_f1_reward"
    values = {
        name: page.get_attribute(f"[data-stat='{key}:{name}']", "data-value")
        for name in ("counted_failed:flip_rate", "counted_failed:consistency",
                     "left_out:flip_rate", "left_out:never_passed")
    }  # fmt: skip
    assert values == {
        "counted_failed:flip_rate": "0.25",
        "counted_failed:consistency": "0.75",
        "left_out:flip_rate": "0.3333333333333333",
        "left_out:never_passed": "0.3333333333333333",
    }
    # 0.0395 USD over 3 passed trials
    assert page.text_content("[data-stat='cost_per_pass']") == "qa_f1_reward: 0.013167"
    causes = page.text_content("[data-stat='error_causes']")
    assert causes.startswith("model: 1 result(s), 0 tool call(s); tool: 0 result(s)")
    assert errors == []
    page.close()


def test_the_compare_page_plots_accuracy_against_cost(
    browser: Any, runs: list[Path], artifacts: Path
) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # A: cheap, 3 of 8 passed; B: dearer, 6 of 8: neither dominates the other
    _open(page, write_report([runs[0], runs[1]]).path)
    plot = "svg.cost-plot[data-reward='qa_f1_reward']"
    points = page.locator(f"{plot} g.point")
    assert points.count() == 2
    assert [p.get_attribute("data-pareto") for p in points.all()] == ["1", "1"]
    assert page.locator(f"{plot} polyline.front").count() == 1
    # B right of A (dearer) and above it (better)
    a, b = (page.locator(f"{plot} g.point[data-run='{r}'] circle") for r in "AB")
    assert float(b.get_attribute("cx")) > float(a.get_attribute("cx"))
    assert float(b.get_attribute("cy")) < float(a.get_attribute("cy"))
    page.locator("#cost-accuracy").screenshot(path=str(artifacts / "cost-accuracy.png"))

    # C has no price: not placed, and said so; A alone is on the front
    _open(page, write_report([runs[0], runs[2]]).path)
    assert page.locator(f"{plot} g.point").count() == 1
    assert page.text_content("[data-field='pareto:qa_f1_reward:B']") == "not placed"
    assert page.text_content("[data-field='not-placed:qa_f1_reward:B']").startswith(
        "B not placed: no cost data: 8 of 8 result(s) have no known cost"
    )
    assert errors == []
    page.close()
