"""Cost in the HTML report, in a real headless Chromium: the summary's total, the table's
column, the sample's cost, and both runs' costs in a comparison (one priced, one unknown)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._view import write_report
from agentloop.cli._view_data import load_run
from agentloop.harness import load_config, run_eval_sync
from tests.harness.config.test_cost import PRICE, SAMPLE_USD, _adder
from tests.support.harness import add_setup, only_run_dir
from tests.support.openai_stub import StubServer


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A run of openai:m priced by the config, and one without a price."""
    tmp = tmp_path_factory.mktemp("cost")

    def run(name: str, **fields: Any) -> Path:
        (tmp / name).mkdir()
        config = add_setup(tmp / name, n=2, model="openai:m", preflight=False,
                           model_options={"base_url": stub.url}, **fields)  # fmt: skip
        run_eval_sync(load_config(config))
        return only_run_dir(tmp / name / "runs")

    with StubServer(handler=_adder) as stub, ThreadPoolExecutor(1) as pool:
        # Playwright's sync API keeps an event loop running in this thread: runs go elsewhere.
        priced = pool.submit(run, "priced", prices={"openai:m": PRICE}).result()
        unpriced = pool.submit(run, "unpriced").result()
        yield priced, unpriced


def test_the_report_data_carries_the_costs(runs: tuple[Path, Path]) -> None:
    page = load_run(runs[0])["page"]
    assert page["summary"]["cost_usd"] == pytest.approx(2 * SAMPLE_USD)
    assert [row[12] for row in page["rows"]] == [pytest.approx(SAMPLE_USD)] * 2
    details = load_run(runs[1])["details"]
    assert [d["cost_usd"] for d in details] == [None, None]
    assert details[0]["cost_unknown"].startswith("no price for openai:m")


def _open(page: Any, path: Path, fragment: str = "") -> None:
    page.goto(path.resolve().as_uri() + fragment)
    page.wait_for_selector("body[data-ready='1']")


def test_the_report_shows_the_costs(browser: Any, runs: tuple[Path, Path]) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    priced, unpriced = runs
    _open(page, write_report([priced]).path)
    assert page.text_content("[data-field='pricing']") == (
        "USD per million tokens: input 2, output 8, cached input 0.5 (prices: in the config)"
    )
    total = page.locator("[data-stat='cost_usd']")
    assert float(total.get_attribute("data-value")) == pytest.approx(2 * SAMPLE_USD)
    assert total.text_content() == f"{2 * SAMPLE_USD:.6f}"
    header = page.locator(".vt-head [role=columnheader]:text-is('cost $')")
    assert header.count() == 1
    row = page.locator(".vt-body .row:has-text('s0000') [role=cell]")
    assert f"{SAMPLE_USD:.6f}" in row.all_text_contents()

    _open(page, write_report([unpriced]).path, "#sample=s0000")
    shown = page.text_content("#sample-view [data-field='cost']")
    assert shown.startswith("unknown (no price for openai:m")
    assert page.text_content("[data-stat='cost_usd']") == "unknown"

    _open(page, write_report([priced, unpriced]).path)
    assert page.text_content("[data-stat='cost:a']") == f"{2 * SAMPLE_USD:.6f}"
    assert page.text_content("[data-stat='cost:b']") == "unknown"
    assert page.text_content("[data-stat='cost:delta']") == "-"
    assert errors == []
    page.close()
