"""The HTML report in a real headless Chromium: summary, table, sample view, links,
comparison, no network, and model output shown as text."""

from __future__ import annotations

import concurrent.futures
import json
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._view import write_report
from tests.browser.runs import INJECTED, make_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("view")
    # Playwright's sync API keeps an event loop running in this thread: runs go elsewhere.
    with ThreadPoolExecutor(1) as pool:
        a = pool.submit(make_run, tmp, "run-a").result()
        b = pool.submit(make_run, tmp, "run-b", improved=True).result()
    return a, b


@pytest.fixture(scope="module")
def report(runs: tuple[Path, Path]) -> Path:
    return write_report([runs[0]]).path


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page that records every request and dialog, and fails on a script error."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.requests, tab.dialogs, tab.errors = [], [], []
    tab.on("request", lambda request: tab.requests.append(request.url))
    tab.on("dialog", lambda dialog: (tab.dialogs.append(dialog.message), dialog.dismiss()))
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    yield tab
    assert tab.errors == []
    # The report is one file: nothing else is ever fetched (the CSP forbids it too).
    assert {url.split("#")[0] for url in tab.requests} <= {
        url.split("#")[0] for url in tab.requests[:1]
    }
    assert all(url.startswith("file://") for url in tab.requests)
    context.close()


def _open(page: Any, path: Path, fragment: str = "") -> None:
    page.goto(path.resolve().as_uri() + fragment)
    page.wait_for_selector("body[data-ready='1']")


def _stat(page: Any, key: str) -> str:
    return page.get_attribute(f"[data-stat='{key}']", "data-value")


def test_summary_numbers_are_the_runs(page: Any, report: Path) -> None:
    _open(page, report)
    summary = json.loads((report.parent / "summary.json").read_text())
    for key in ("results", "samples", "ok", "errored"):
        assert int(_stat(page, key)) == summary[key]
    for reward, stats in summary["rewards"].items():
        for field in ("mean", "stderr", "pass_rate"):
            value = stats[field]
            assert (
                None if value is None else float(_stat(page, f"reward:{reward}:{field}"))
            ) == value
            shown = page.text_content(f"[data-stat='reward:{reward}:{field}']")
            assert value is None or abs(float(shown) - value) <= 0.0005
        assert float(_stat(page, f"reward:{reward}:pass_at_1")) == stats["pass_at_k"]["1"]
    assert float(_stat(page, "latency:p90")) == summary["latency"]["p90"]
    assert int(_stat(page, "tokens:total")) == summary["tokens"]["total_tokens"]
    assert page.text_content("[data-stat='tool_calls_by_status']") == ", ".join(
        f"{k}: {v}" for k, v in summary["tool_calls_by_status"].items()
    )
    assert page.text_content("[data-stat='errors_by_kind']") == "model: 1"
    assert page.text_content("[data-field='model']").startswith("scripted:")
    assert page.text_content("#row-count") == "10 of 10 samples"


def _ids(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        ".vt-body .row", "rows => rows.map(r => r.firstChild.textContent)"
    )


def test_the_table_filters_and_sorts(page: Any, report: Path) -> None:
    _open(page, report)
    page.fill("#filter-text", "add-")
    assert page.text_content("#row-count") == "4 of 10 samples"
    assert sorted(_ids(page)) == ["add-0", "add-1", "add-2", "add-3"]
    page.fill("#filter-text", "")
    page.select_option("#filter-status", "error")
    assert _ids(page) == ["no-replies"]
    page.select_option("#filter-status", "")
    page.select_option("#filter-reward", label="tool_call_match")
    page.fill("#filter-max", "0.5")
    assert sorted(_ids(page)) == ["unknown-tool", "wrong-args"]
    page.fill("#filter-max", "")
    page.select_option("#filter-reward", "")
    page.click(".vt-head [role=columnheader]:text-is('id')")
    ids = _ids(page)
    assert ids == sorted(ids) and len(ids) == 10
    page.click(".vt-head [role=columnheader]:text-is('id')")
    assert _ids(page) == sorted(ids, reverse=True)


def test_a_sample_shows_its_tool_calls_scores_and_truth(
    page: Any, report: Path, artifacts: Path
) -> None:
    _open(page, report)
    page.click(".vt-body .row:has-text('unknown-tool')")
    page.wait_for_selector("#sample-view .sample[data-id='unknown-tool']")
    assert page.url.endswith("#sample=unknown-tool")
    call = page.locator(".tool-call[data-name='multiply']")
    assert call.locator(".badge").text_content() == "unknown_tool"
    assert json.loads(call.locator("pre.args").text_content()) == {"x": 2}
    assert "unknown tool" in call.locator(".error-box").text_content().lower()
    assert page.locator(".bubble.tool.failed").count() == 1
    reward = page.locator(".reward[data-reward='tool_call_match']")
    assert reward.locator(".score").text_content() == "0"
    assert "expected call 0" in reward.locator("pre.reason").text_content()
    assert reward.locator("table.diag tr.unmatched").count() >= 1
    truth = json.loads(page.text_content("pre.ground-truth"))
    assert truth["tool_calls"][0]["function"] == {"name": "add", "arguments": {"a": 2, "b": 2}}
    assert page.text_content("pre.answer") == "4"
    page.screenshot(path=str(artifacts / "view-sample.png"), full_page=True)
    page.click("#back")
    page.wait_for_selector("#list-view:not([hidden])")
    assert page.text_content("#row-count") == "10 of 10 samples"


def test_a_long_result_is_folded(page: Any, report: Path) -> None:
    _open(page, report, "#sample=long-result")
    fold = page.locator(".bubble.tool details.fold")
    assert fold.count() == 1 and not fold.locator("pre").is_visible()
    fold.locator("summary").click()
    assert "line 199" in fold.locator("pre").text_content()


def test_sample_links_survive_a_reload(page: Any, report: Path) -> None:
    _open(page, report, "#sample=wrong-args")
    assert page.text_content("#sample-title") == "wrong-args"
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.text_content("#sample-title") == "wrong-args"
    assert page.is_hidden("#list-view")
    _open(page, report, "#sample=missing")
    assert "no sample missing" in page.text_content("#not-found")


def test_model_output_is_text_never_markup(page: Any, report: Path) -> None:
    _open(page, report, "#sample=inject")
    assert page.text_content(".final pre") == INJECTED
    assert page.locator(".bubble.assistant pre").first.text_content() == INJECTED
    assert page.locator("img, b").count() == 0  # the reply's tags were not parsed
    assert page.evaluate("document.scripts.length") == 3  # data, details, the report's own
    assert page.dialogs == []


def test_the_comparison(page: Any, runs: tuple[Path, Path]) -> None:
    path = write_report(list(runs)).path
    _open(page, path)
    assert float(_stat(page, "delta:qa_f1_reward:delta")) == 0.0
    ids = _ids(page)
    assert set(ids[:2]) == {"add-1", "wrong-args"}  # verdicts changed: first
    assert page.text_content(".vt-body .row:first-child [role=cell]:nth-child(2)") == (
        "verdict changed"
    )
    page.click(".vt-body .row:has-text('wrong-args')")
    sides = page.locator(".side")
    assert sides.count() == 2
    a_args = sides.nth(0).locator(".tool-call pre.args").text_content()
    b_args = sides.nth(1).locator(".tool-call pre.args").text_content()
    assert json.loads(a_args) == {"a": 7, "b": 2} and json.loads(b_args) == {"a": 7, "b": 1}
    assert sides.nth(1).locator(".reward[data-reward='qa_f1_reward'] .badge").text_content() == (
        "pass"
    )


def test_epochs_have_their_own_links(page: Any, tmp_path: Path) -> None:
    with ThreadPoolExecutor(1) as pool:
        run_dir = pool.submit(make_run, tmp_path, "epochs", epochs=2).result()
    _open(page, write_report([run_dir]).path, "#sample=add-2&epoch=2")
    assert page.get_attribute("#sample-view .sample", "data-epoch") == "2"
    page.click("#back")
    page.fill("#filter-text", "add-2")
    assert page.text_content("#row-count") == "2 of 20 samples"
    page.click(".vt-body .row[href='#sample=add-2']")
    page.wait_for_selector("#sample-view .sample[data-epoch='1']")


def _bar(page: Any, reward: str, label: str) -> Any:
    return page.locator(f".chart[data-reward='{reward}'] .bar[data-label='{label}']")


def test_each_reward_has_a_histogram_whose_bars_list_their_samples(page: Any, report: Path) -> None:
    _open(page, report)
    counts = page.eval_on_selector_all(
        ".chart[data-reward='qa_f1_reward'] .bar",
        "bars => bars.map(b => [b.dataset.label, Number(b.dataset.count)])",
    )
    shown = {label: count for label, count in counts if count}
    assert shown == {"0": 3, "1": 6, "errored": 1}
    assert len(counts) == 13  # 0, ten bars between, 1, errored
    assert _bar(page, "tool_call_match", "0").get_attribute("data-count") == "2"
    _bar(page, "qa_f1_reward", "0").click()
    assert page.text_content("#focus-label") == "qa_f1_reward: 0"
    assert sorted(_ids(page)) == ["empty-answer", "inject", "wrong-args"]
    assert page.text_content("#row-count") == "3 of 10 samples"
    page.fill("#filter-text", "wrong")  # the other filters still apply within
    assert _ids(page) == ["wrong-args"]
    page.fill("#filter-text", "")
    page.click("#focus-clear")
    assert page.is_hidden("#focus") and page.text_content("#row-count") == "10 of 10 samples"


def test_rewards_by_metadata_value(page: Any, report: Path) -> None:
    _open(page, report)
    summary = json.loads((report.parent / "summary.json").read_text())
    groups = summary["by_metadata"]["category"]
    assert page.locator("#breakdown table.breakdown").count() == 1  # "source" is not a group
    for value, group in groups.items():
        assert int(_stat(page, f"meta:category:{value}:results")) == group["results"]
        assert int(_stat(page, f"meta:category:{value}:errored")) == group["errored"]
        for reward, score in group["scores"].items():
            assert float(_stat(page, f"meta:category:{value}:{reward}")) == score
    page.click("#breakdown tr[data-value='text'] a")
    assert page.text_content("#focus-label") == "category = text"
    assert sorted(_ids(page)) == ["inject", "long-result"]


def _failure_rows(page: Any) -> list[list[str]]:
    return page.eval_on_selector_all(
        "#failures tbody tr",
        "rows => rows.map(r => [...r.children].slice(0, 3).map(c => c.textContent))",
    )


def test_failures_by_type_sort_filter_and_list_their_samples(page: Any, report: Path) -> None:
    _open(page, report)
    rows = _failure_rows(page)
    assert rows[0] == ["score 0", "qa_f1_reward", "3"]  # the most frequent first
    assert sorted(map(tuple, rows)) == [
        ("call not made", "tool_call_match", "1"),
        ("model error (ScriptExhaustedError)", "(errored)", "1"),
        ("score 0", "qa_f1_reward", "3"),
        ("wrong arguments", "tool_call_match", "1"),
    ]
    page.click("#failures th[data-col='type']")
    assert [row[0] for row in _failure_rows(page)] == sorted(row[0] for row in rows)
    page.click("#failures th[data-col='type']")
    assert [row[0] for row in _failure_rows(page)] == sorted((r[0] for r in rows), reverse=True)
    page.fill("#failure-filter", "tool_call")
    assert {row[1] for row in _failure_rows(page)} == {"tool_call_match"}
    assert page.text_content("#failure-count") == "2 of 4 failure types"
    page.fill("#failure-filter", "argument 'b'")  # the first reason is searched too
    assert _failure_rows(page) == [["wrong arguments", "tool_call_match", "1"]]
    page.click("#failures tbody tr a:text-is('wrong arguments')")
    assert page.text_content("#focus-label") == "tool_call_match: wrong arguments"
    assert _ids(page) == ["wrong-args"]


def test_an_empty_final_answer_is_shown_as_empty(page: Any, report: Path) -> None:
    _open(page, report, "#sample=empty-answer")
    final = page.locator(".final")
    assert final.get_attribute("data-empty") == "1"
    assert "empty" in final.text_content() and final.locator("pre").count() == 0
    empty_look = final.evaluate("e => getComputedStyle(e).borderTopColor")
    _open(page, report, "#sample=add-2")
    answered = page.locator(".final")
    assert answered.get_attribute("data-empty") is None
    assert answered.locator("pre").text_content() == "3"
    # Neither looks like a pass: the answer box is no verdict.
    ok = page.evaluate(
        "() => { const b = document.createElement('span'); b.className = 'badge ok';"
        " document.body.append(b); return getComputedStyle(b).color; }"
    )
    assert ok not in (empty_look, answered.evaluate("e => getComputedStyle(e).borderTopColor"))


def test_column_headers_are_shown_whole(page: Any, report: Path) -> None:
    page.set_viewport_size({"width": 900, "height": 900})  # every column at its narrowest
    _open(page, report)
    cut = page.eval_on_selector_all(
        ".vt-head [role=columnheader], #breakdown th, #failures th",
        "cells => cells.filter(c => c.scrollWidth > c.clientWidth + 1"
        " || c.scrollHeight > c.clientHeight + 1).map(c => c.textContent)",
    )
    assert cut == []
    labels = page.eval_on_selector_all(
        ".vt-head [role=columnheader]", "cells => cells.map(c => c.textContent)"
    )
    assert {"qa_f1_reward", "tool_call_match"} <= set(labels)


def test_a_rescored_results_file_opens(page: Any, runs: tuple[Path, Path], tmp_path: Path) -> None:
    from agentloop.harness import rescore_run

    run_dir = Path(shutil.copytree(runs[0], tmp_path / "run"))
    # Playwright's sync API runs an event loop in this thread; rescore_run starts its own, so
    # it runs in a thread of its own, as from any code with a loop running.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        rescored, summary = pool.submit(rescore_run, run_dir, ["qa_f1_reward_format"]).result()
    _open(page, write_report([rescored]).path)
    assert page.text_content("[data-field='results-file']").startswith(rescored.name)
    stats = summary.rewards["qa_f1_reward_format"]
    assert float(_stat(page, "reward:qa_f1_reward_format:mean")) == stats.mean
    assert page.locator(".chart[data-reward='qa_f1_reward_format']").count() == 1
    assert page.locator(".vt-head [role=columnheader]:text-is('qa_f1_reward')").count() == 0


def _conversation_run(tmp: Path) -> Path:
    from agentloop.cli import main
    from tests.support.harness import only_run_dir
    from tests.support.help_desk import conversation_config

    assert main(["run", str(conversation_config(tmp))]) == 0
    return only_run_dir(tmp / "runs")


def test_a_conversation_shows_the_simulated_users_side(page: Any, tmp_path: Path) -> None:
    with ThreadPoolExecutor(1) as pool:
        run_dir = pool.submit(_conversation_run, tmp_path).result()
    _open(page, write_report([run_dir]).path, "#sample=ann")
    page.wait_for_selector("#sample-view .sample[data-id='ann']")
    # The user's messages, in the conversation, are the user's.
    users = page.locator(".chat:not(.user-side) > .bubble[data-role='user']")
    assert users.count() == 3 and "###STOP###" in users.nth(2).text_content()
    assert "stop signal" in page.text_content(".panel.info")
    assert "###STOP###" in page.text_content(".panel.info")
    side = page.locator("details[data-role='user-side']")
    side.locator("summary").click()
    whos = side.locator(".bubble .who").all_text_contents()
    assert whos[:3] == ["user instructions", "agent", "simulated user"]
    assert side.locator(".tool-call[data-name='switch_modem'] .badge").text_content() == "ok"
