"""A reasoning model's thinking in the report, in a real headless Chromium: one collapsed
block per assistant message, opened on a click."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.cli._view import write_report
from tests.support.harness import add_setup, only_run_dir
from tests.support.openai_stub import StubServer, call, reply


def _run(tmp: Path) -> Path:
    with StubServer() as stub:
        stub.push(
            reply(tool_calls=[call("add", {"a": 0, "b": 1}, id="c0")],
                  reasoning="First I add 0 and 1."),
            reply("1", reasoning="The tool said 1, so the answer is 1."),
        )  # fmt: skip
        config = add_setup(tmp, n=1, model="openai:stub-model", preflight=False,
                           model_options={"base_url": stub.url})  # fmt: skip
        assert main(["run", str(config)]) == 0
    return only_run_dir(tmp / "runs")


def test_each_assistant_message_has_its_reasoning_folded(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # Playwright's sync API keeps an event loop running in this thread: the run goes elsewhere.
    with ThreadPoolExecutor(1) as pool:
        run_dir = pool.submit(_run, tmp_path).result()
    report = write_report([run_dir]).path
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(report.resolve().as_uri() + "#sample=s0000")
    page.wait_for_selector("#sample-view .sample[data-id='s0000']")
    blocks = page.locator(".bubble.assistant details.reasoning")
    assert blocks.count() == 2
    first = blocks.nth(0)
    assert first.get_attribute("open") is None  # collapsed until asked
    assert not first.locator("pre").is_visible()
    first.locator("summary").click()
    assert first.locator("pre").is_visible()
    assert first.locator("pre").text_content() == "First I add 0 and 1."
    assert "reasoning" in first.locator("summary").text_content()
    assert blocks.nth(1).locator("pre").text_content() == "The tool said 1, so the answer is 1."
    assert page.locator(".bubble.user details.reasoning").count() == 0
    assert errors == []
    page.close()


def _responses_run(tmp: Path) -> Path:
    from tests.support.responses_stub import (
        ResponsesStub,
        function_call,
        message,
        reasoning_item,
        response,
    )

    with ResponsesStub() as stub:
        stub.replies = [
            response([reasoning_item("rs_1", ["I add 0 and 1."], "ENC=="),
                      function_call("c0", "add", {"a": 0, "b": 1})]),
            response([reasoning_item("rs_2", [], "ENC2=="), message("1")]),
        ]  # fmt: skip
        config = add_setup(tmp, n=1, model="openai:stub-model", preflight=False,
                           model_options={"base_url": stub.url, "api": "responses"})  # fmt: skip
        assert main(["run", str(config)]) == 0
    return only_run_dir(tmp / "runs")


def test_responses_api_reasoning_items_are_folded_too(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ThreadPoolExecutor(1) as pool:
        run_dir = pool.submit(_responses_run, tmp_path).result()
    page = browser.new_page()
    page.goto(write_report([run_dir]).path.resolve().as_uri() + "#sample=s0000")
    page.wait_for_selector("#sample-view .sample[data-id='s0000']")
    blocks = page.locator(".bubble.assistant details.reasoning")
    assert blocks.count() == 2
    for index in range(2):
        blocks.nth(index).locator("summary").click()
    assert blocks.nth(0).locator("summary").text_content().startswith("summary ·")
    assert blocks.nth(0).locator("pre").text_content() == "I add 0 and 1."
    assert blocks.nth(1).locator("summary").text_content().startswith("encrypted reasoning ·")
    assert blocks.nth(1).locator("pre").text_content() == "(not shown by the provider)"
    # The answer is shown as its text, not as the reply's content blocks.
    answer = page.locator(".bubble.assistant").nth(1).text_content()
    assert "ENC2==" not in answer and "rs_2" not in answer and answer.rstrip().endswith("1")
    page.close()
