"""Run options that reach the loop (tool_execution, max_tool_output_chars), and a sample
whose trajectory cannot be saved as JSON erroring alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage

import agentloop.models._base as models_base
from agentloop.harness import load_config, run_eval_sync
from agentloop.models import ModelSource
from agentloop.testing import ScriptedChatModel
from tests.support.harness import (
    add_setup,
    ask,
    call,
    read_results,
    write_config,
    write_json,
    write_jsonl,
)

SPAN_TOOLS = '''
import time
import anyio
from langchain_core.tools import tool


@tool
async def span(label: str) -> str:
    """Sleep a little; say when it started and ended."""
    start = time.perf_counter()
    await anyio.sleep(0.1)
    return f"{label} {start} {time.perf_counter()}"


@tool
async def wait(seconds: float) -> str:
    """Sleep for a while."""
    await anyio.sleep(seconds)
    return "done"


@tool
def long_text(n: int) -> str:
    """Return n characters."""
    return "x" * n
'''


def _setup(tmp_path: Path, replies: list[Any], **config: Any) -> Path:
    tools = tmp_path / "span_tools.py"
    tools.write_text(SPAN_TOOLS)
    row = {"id": "q", "messages": [{"role": "user", "content": "go"}],
           "ground_truth": {"tool_calls": [{"name": "span", "arguments": {"label": "x"}}]}}
    data = write_jsonl(tmp_path / "d.jsonl", [row])
    script = write_json(tmp_path / "s.json", replies)
    return write_config(
        tmp_path / "c.yaml",
        model=f"scripted:{script}",
        dataset=str(data),
        tools=[f"{tools}:span", f"{tools}:long_text", f"{tools}:wait"],
        output_dir=str(tmp_path / "runs"),
        **config,
    )


def _tool_texts(tmp_path: Path, config: Path, *sets: str) -> list[str]:
    outcome = run_eval_sync(load_config(config, sets))
    (line,) = read_results(outcome.run_dir)
    return [m["content"] for m in line["trajectory"]["messages"] if m["role"] == "tool"]


@pytest.mark.parametrize("mode", ["parallel", "sequential"])
def test_tool_execution_decides_how_a_rounds_calls_run(tmp_path: Path, mode: str) -> None:
    two = ask(call("c1", "span", {"label": "a"}), call("c2", "span", {"label": "b"}))
    config = _setup(tmp_path, [two, "done"])
    texts = _tool_texts(tmp_path, config, f"tool_execution={mode}")
    (a, a_start, a_end), (b, b_start, b_end) = (t.split() for t in texts)
    assert (a, b) == ("a", "b")
    overlapped = float(b_start) < float(a_end) and float(a_start) < float(b_end)
    assert overlapped is (mode == "parallel")


def test_max_tool_output_chars_reaches_the_loop(tmp_path: Path) -> None:
    config = _setup(tmp_path, [ask(call("c1", "long_text", {"n": 500})), "done"])
    (text,) = _tool_texts(tmp_path, config, "max_tool_output_chars=40")
    assert text.startswith("x" * 40 + "\n[truncated: showing 40 of 500 characters]")


def test_a_sample_past_its_time_limit_stops_and_is_scored(tmp_path: Path) -> None:
    replies = [ask(call("a", "span", {"label": "x"})), ask(call("b", "wait", {"seconds": 60})), "x"]
    config = _setup(tmp_path, replies, time_limit=0.5, rewards=["tool_call_match"])
    assert load_config(config).tool_timeout == 60  # the default: no tool hangs a run
    outcome = run_eval_sync(load_config(config))
    (line,) = read_results(outcome.run_dir)
    assert (line["status"], line["stop_reason"]) == ("ok", "time_limit")
    assert line["tool_calls_by_status"] == {"ok": 1, "timeout": 1}
    assert "tool_call_match" in line["scores"]  # scored on what it did


def test_an_unknown_tool_execution_is_a_config_error(tmp_path: Path) -> None:
    config = _setup(tmp_path, ["done"])
    with pytest.raises(Exception, match="tool_execution"):
        load_config(config, ["tool_execution=threads"])


class _OddPayload:
    """Nothing JSON can hold."""


class _OddSource(ModelSource):
    def for_sample(self, sample_id: str, epoch: int) -> Any:
        if sample_id == "s0001":
            odd = AIMessage(content="2", additional_kwargs={"x": _OddPayload()})
            return ScriptedChatModel([odd])
        return ScriptedChatModel([ask(call("c", "add", {"a": 1, "b": 1})), "ok"])


def test_a_trajectory_that_cannot_be_saved_errors_its_sample_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(models_base._PROVIDERS, "odd", lambda value, params, options: _OddSource())
    outcome = run_eval_sync(load_config(add_setup(tmp_path, n=4, model="odd:x", concurrency=1)))
    lines = {line["id"]: line for line in read_results(outcome.run_dir)}
    assert len(lines) == 4
    bad = lines["s0001"]
    assert (bad["status"], bad["error_kind"], bad["trajectory"]) == ("error", "crash", None)
    assert "cannot be saved as JSON" in bad["error"] and bad["scores"] == {}
    assert all(lines[s]["status"] == "ok" for s in ("s0000", "s0002", "s0003"))
    summary = json.loads((outcome.run_dir / "summary.json").read_text())
    assert (summary["results"], summary["errored"]) == (4, 1)


def test_secret_named_values_in_tool_specs_are_masked_in_the_header(tmp_path: Path) -> None:
    from agentloop.harness.rundir._header import redacted_config

    config = load_config(add_setup(tmp_path, n=1))
    raw = config.model_dump()
    raw["tools"] = [
        *raw["tools"],
        {"mcp": {"command": "srv", "env": {"API_KEY": "sk-literal-1234", "TOKEN": "${TOKEN}"}}},
    ]
    data = redacted_config(config.model_validate(raw))
    mcp = data["tools"][-1]["mcp"]
    assert mcp["env"] == {"API_KEY": "***", "TOKEN": "${TOKEN}"} and mcp["command"] == "srv"
    assert data["tools"][0] == raw["tools"][0]
