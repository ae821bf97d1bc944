"""``replay:``: recorded runs play back exactly, and any deviation fails loudly."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import anyio
import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from agentloop import ModelSpecError, ReplayMismatchError, RetryPolicy, Trajectory, run_agent
from agentloop.engine._content_calls import parse_content_tool_calls
from agentloop.models import open_model
from agentloop.models._replay import ReplaySource, request_signature
from agentloop.testing import ScriptedChatModel, tool_call

COUNTER = {"value": 0}


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def tick() -> int:
    """A tool whose output changes on every call."""
    COUNTER["value"] += 1
    return COUNTER["value"]


class Flaky(Exception):
    status_code = 503


FAST = RetryPolicy(initial_delay_s=0, jitter=0, max_retries=3)
MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "2+3?"}]


def record(
    tmp_path: Path, script: list[Any], *, tools: list[Any] | None = None, sample: str = "s1",
    **kwargs: Any,
) -> tuple[Path, Trajectory]:  # fmt: skip
    """Run a scripted model and write its trajectory as a results line."""
    tools = [add] if tools is None else tools
    model = ScriptedChatModel(script, model_name="scripted-x")

    async def main() -> Trajectory:
        return await run_agent(model, tools, MESSAGES, retry=FAST, **kwargs)

    traj = anyio.run(main)
    signature = request_signature(
        tools, kwargs.get("tool_choice"), kwargs.get("parallel_tool_calls", True), {}
    )
    line = {"id": sample, "epoch": 1, "status": "ok", "request": signature,
            "trajectory": json.loads(traj.model_dump_json())}  # fmt: skip
    path = tmp_path / "results.jsonl"
    with path.open("a") as handle:
        handle.write(json.dumps(line) + "\n")
    return tmp_path, traj


def replay(
    run_dir: Path, *, tools: list[Any] | None = None, messages: Any = MESSAGES,
    params: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
    sample: str = "s1", **kwargs: Any,
) -> tuple[Trajectory, ReplaySource]:  # fmt: skip
    tools = [add] if tools is None else tools

    async def main() -> tuple[Trajectory, ReplaySource]:
        async with open_model(f"replay:{run_dir}", params, options) as source:
            assert isinstance(source, ReplaySource)
            traj = await run_agent(
                source.for_sample(sample, 1), tools, messages,
                retry=source.retry_policy,
                tool_executor=source.tool_executor(sample, 1), **kwargs,
            )  # fmt: skip
            return traj, source

    return anyio.run(main)


def comparable(traj: Trajectory) -> dict[str, Any]:
    data = json.loads(traj.model_dump_json())
    data.pop("wall_time_s")
    for step in data["steps"]:
        step.pop("latency_s")
    return data


def test_a_tool_round_replays_exactly(tmp_path: Path) -> None:
    script = [
        AIMessage(content="", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "c1"}],
                  usage_metadata={"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}),
        AIMessage(content="5", usage_metadata={"input_tokens": 9, "output_tokens": 1,
                                               "total_tokens": 10}),
    ]  # fmt: skip
    run_dir, original = record(tmp_path, script)
    replayed, source = replay(run_dir)
    assert comparable(replayed) == comparable(original)
    assert replayed.usage.total_tokens == 17 and replayed.model["model_name"] == "scripted-x"
    assert source.mismatches == []


def test_odd_replies_replay_exactly(tmp_path: Path) -> None:
    """Missing and repeated ids, malformed arguments, retries and a round-limit refusal."""
    script = [
        Flaky("busy"),
        {"content": "", "tool_calls": [tool_call("add", {"a": 1, "b": 1}),
                                       tool_call("add", {"a": 2, "b": 2}, id="dup")]},
        AIMessage(content="", tool_calls=[{"name": "add", "args": {"a": 3, "b": 3}, "id": "dup"}],
                  invalid_tool_calls=[{"name": "add", "args": '{"a": 1', "id": "m1",
                                       "error": "truncated", "type": "invalid_tool_call"}]),
        Flaky("busy"), Flaky("busy"),
        {"content": "", "tool_calls": [tool_call("add", {"a": 4, "b": 4}, id="late")]},
    ]  # fmt: skip
    run_dir, original = record(tmp_path, script, max_rounds=2)
    assert original.stop_reason == "max_rounds"
    statuses = [c.status for c in original.tool_calls()]
    assert statuses == ["ok", "ok", "ok", "malformed", "round_limit"]
    assert [s.retries for s in original.steps] == [1, 0, 2]
    replayed, _ = replay(run_dir, max_rounds=2)
    assert comparable(replayed) == comparable(original)


def test_recorded_model_errors_replay(tmp_path: Path) -> None:
    class RateLimitError(Exception):
        status_code = 429

    script = [RateLimitError("slow down")] * 4
    run_dir, original = record(tmp_path, script)
    assert original.stop_reason == "error" and original.steps[-1].retries == 3
    replayed, _ = replay(run_dir)
    assert comparable(replayed) == comparable(original)
    assert replayed.error == "RateLimitError: slow down"


def test_recovered_content_calls_replay(tmp_path: Path) -> None:
    text = '<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>'
    run_dir, original = record(
        tmp_path, [text, "3"], parse_content_tool_calls=parse_content_tool_calls
    )
    assert original.tool_calls()[0].recovered
    replayed, _ = replay(run_dir, parse_content_tool_calls=parse_content_tool_calls)
    assert comparable(replayed) == comparable(original)


def test_a_changed_conversation_is_a_mismatch(tmp_path: Path) -> None:
    first = {"content": "", "tool_calls": [tool_call("add", {"a": 2, "b": 3}, id="c1")]}
    run_dir, _ = record(tmp_path, [first, "5"])
    messages = [MESSAGES[0], {"role": "user", "content": "2+4?"}]
    traj, source = replay(run_dir, messages=messages)
    assert traj.stop_reason == "error" and traj.error is not None
    assert traj.error.startswith("ReplayMismatchError: replay: sample 's1' epoch 1, model call 1")
    assert "message 1 (user) differs in content: recorded '2+3?', requested '2+4?'" in traj.error
    assert source.mismatches == [traj.error.removeprefix("ReplayMismatchError: ")]


def test_changed_tools_choice_or_params_are_mismatches(tmp_path: Path) -> None:
    run_dir, _ = record(tmp_path, ["5"])

    @tool
    async def add(a: int, b: int, c: int = 0) -> int:  # same name, new schema
        """Add two integers."""
        return a + b + c

    traj, _ = replay(run_dir, tools=[add])
    assert "schemas of the bound tools ['add'] changed" in (traj.error or "")
    traj, _ = replay(run_dir, tools=[tick])
    assert "bound tools differ: recorded ['add'], now ['tick']" in (traj.error or "")
    traj, _ = replay(run_dir, tool_choice="add")
    assert "tool_choice differs: recorded null, now 'add'" in (traj.error or "")
    traj, _ = replay(run_dir, params={"temperature": 0.5})
    assert "params differs" in (traj.error or "")


def test_requests_without_a_recording_fail(tmp_path: Path) -> None:
    run_dir, _ = record(tmp_path, ["5"])
    traj, _ = replay(run_dir, sample="other")
    assert "sample 'other' epoch 1, model call 1: no recording" in (traj.error or "")

    model = ReplaySource(str(run_dir), {}, {}).for_sample("s1", 1).bind_tools([add])
    assert model.invoke(MESSAGES).content == "5"
    with pytest.raises(ReplayMismatchError, match="model call 2: the recording has only 1"):
        model.invoke(MESSAGES)


def test_live_tools_report_differences(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    script = [{"content": "", "tool_calls": [tool_call("tick", {}, id="t1")]},
              {"content": "", "tool_calls": [tool_call("tick", {}, id="t2")]}, "done"]  # fmt: skip
    COUNTER["value"] = 0
    run_dir, original = record(tmp_path, script, tools=[tick])
    assert [m.content for m in original.messages if m.type == "tool"] == ["1", "2"]

    COUNTER["value"] = 0  # same outputs: nothing to report
    traj, source = replay(run_dir, tools=[tick], options={"replay_tools": "live"})
    assert comparable(traj) != {} and source.tool_differences("s1", 1) == []
    assert traj.stop_reason == "final"

    COUNTER["value"] = 10
    with caplog.at_level(logging.WARNING, logger="agentloop.replay"):
        traj, source = replay(run_dir, tools=[tick], options={"replay_tools": "live"})
    assert traj.stop_reason == "final"  # the recorded replies still match
    assert [m.content for m in traj.messages if m.type == "tool"] == ["11", "12"]
    diffs = source.tool_differences("s1", 1)
    assert len(diffs) == 2 and "tool tick (call t1) output differs" in diffs[0]
    assert "recorded ok '1', now ok '11'" in diffs[0]
    assert [r.getMessage() for r in caplog.records] == diffs


def test_recorded_tools_are_not_run(tmp_path: Path) -> None:
    COUNTER["value"] = 0
    run_dir, _ = record(
        tmp_path, [{"content": "", "tool_calls": [tool_call("tick", {}, id="t1")]}, "ok"],
        tools=[tick],
    )  # fmt: skip
    traj, _ = replay(run_dir, tools=[tick])
    assert COUNTER["value"] == 1 and traj.messages[3].content == "1"


def test_bad_replay_specs(tmp_path: Path) -> None:
    with pytest.raises(ModelSpecError, match="no recording at"):
        ReplaySource(str(tmp_path / "none"), {}, {})
    (tmp_path / "results.jsonl").write_text("")
    with pytest.raises(ModelSpecError, match="replay_tools must be 'recorded' or 'live'"):
        ReplaySource(str(tmp_path), {}, {"replay_tools": "sometimes"})
    with pytest.raises(ModelSpecError, match="unknown replay model option"):
        ReplaySource(str(tmp_path), {}, {"bse_url": "x"})
    # The recorded provider's options are ignored: the same config replays as it is.
    assert ReplaySource(str(tmp_path), {}, {"base_url": "x", "n_ctx": 2048, "latency": 0})


def test_a_tool_filter_run_replays_and_each_request_is_checked(tmp_path: Path) -> None:
    # the filter's request offers both tools (tool_choice "none"); the later ones bind `add`
    asked = AIMessage(
        content="", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "c1"}]
    )
    script = ["I need add", asked, "5"]
    run_dir, original = record(tmp_path, script, tools=[add, tick], tool_filter="which tools?")
    assert original.steps[0].kept_tools == ["add"]
    replayed, source = replay(run_dir, tools=[add, tick], tool_filter="which tools?")
    assert comparable(replayed) == comparable(original) and source.mismatches == []

    @tool("add")
    async def changed(a: int, b: int, c: int = 0) -> int:  # same name, new schema
        """Add two integers."""
        return a + b + c

    traj, _ = replay(run_dir, tools=[changed, tick], tool_filter="which tools?")
    assert "model call 1: the schemas of the bound tools ['add', 'tick'] changed" in str(traj.error)
    traj, _ = replay(run_dir, tools=[tick], tool_filter="which tools?")
    assert "model call 1: bound tools differ" in str(traj.error)
    # what the later requests bind is checked against the filter step's kept tools
    line = json.loads((run_dir / "results.jsonl").read_text())
    line["trajectory"]["steps"][0]["kept_tools"] = ["tick"]
    (run_dir / "results.jsonl").write_text(json.dumps(line) + "\n")
    traj, _ = replay(run_dir, tools=[add, tick], tool_filter="which tools?")
    assert "model call 2: bound tools differ: recorded ['tick'], now ['add']" in str(traj.error)


def test_a_failed_tool_filter_call_replays_its_error(tmp_path: Path) -> None:
    class RateLimitError(Exception):
        status_code = 429

    script = [RateLimitError("slow down")] * 4
    run_dir, original = record(tmp_path, script, tools=[add, tick], tool_filter="which tools?")
    assert original.stop_reason == "error" and original.steps[0].kept_tools == []
    replayed, _ = replay(run_dir, tools=[add, tick], tool_filter="which tools?")
    assert comparable(replayed) == comparable(original)
    assert replayed.error == "RateLimitError: slow down"
