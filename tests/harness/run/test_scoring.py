"""Score mode's recorded trajectories: calls in text, unanswered calls, and reward results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import agentloop.evals._registry
import anyio
import pytest
from agentloop.evals import (
    RewardResult,
    exact_tool_match_reward,
    qa_f1_reward_format,
    register_reward,
    tool_call_match,
)

from agentloop.engine import parse_content_tool_calls
from agentloop.harness import load_config
from agentloop.harness.data._rows import Sample, parse_line
from agentloop.harness.run._runner import run_eval_sync
from agentloop.harness.run._scoring import RewardPlan, recorded_trajectory
from tests.support.harness import read_results, write_config, write_jsonl

USER = {"role": "user", "content": "Weather in Boston, and 6*7?"}
WEATHER = {"name": "get_weather", "arguments": {"location": "Boston, MA"}}
CALC = {"name": "calculator", "arguments": {"expression": "6*7"}}
TRUTH = {"tool_calls": [WEATHER, CALC]}


def sample(*messages: dict[str, Any]) -> Sample:
    row = {"messages": [USER, *messages], "ground_truth": TRUTH, "answer": "42"}
    return parse_line(json.dumps(row), 1, "score")


def text_calls(*calls: dict[str, Any]) -> dict[str, Any]:
    blocks = "".join(f"<tool_call>{json.dumps(c)}</tool_call>" for c in calls)
    return {"role": "assistant", "content": "Let me look.\n" + blocks}


def native(*ids_and_calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    calls = [
        {"id": i, "type": "function",
         "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
        for i, c in ids_and_calls
    ]  # fmt: skip
    return {"role": "assistant", "content": None, "tool_calls": calls}


def tool(call_id: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content, **extra}


def test_calls_in_text_are_scored_when_a_parser_is_given() -> None:
    row = sample(text_calls(WEATHER, CALC))
    direct = exact_tool_match_reward(row.messages, TRUTH).score
    trajectory = recorded_trajectory(row, parse_content_tool_calls)
    assert direct == exact_tool_match_reward(trajectory, TRUTH).score == 1.0
    assert tool_call_match(trajectory, TRUTH).score == 1.0
    records = trajectory.tool_calls()
    assert [(c.name, c.args, c.status, c.recovered) for c in records] == [
        ("get_weather", WEATHER["arguments"], "not_run", True),
        ("calculator", CALC["arguments"], "not_run", True),
    ]
    assert len({c.id for c in records}) == 2
    assert trajectory.stop_reason == "tool_calls" and trajectory.rounds == 0
    assert trajectory.messages[-1].content == row.messages[-1]["content"]  # the record as is
    # Without the parser the text stays text, as before.
    plain = recorded_trajectory(row)
    assert plain.tool_calls() == [] and plain.stop_reason == "final"


def test_calls_in_text_answered_by_the_next_tool_messages_ran() -> None:
    row = sample(
        text_calls(WEATHER, CALC),
        tool("t1", "Sunny"),
        tool("t2", "42"),
        {"role": "assistant", "content": "Sunny, and 42."},
    )
    trajectory = recorded_trajectory(row, parse_content_tool_calls)
    assert [(c.id, c.status, c.recovered) for c in trajectory.tool_calls()] == [
        ("t1", "ok", True),
        ("t2", "ok", True),
    ]
    assert trajectory.stop_reason == "final" and trajectory.rounds == 1
    assert qa_f1_reward_format("42", "42", trajectory).score == 1.0


def test_an_unanswered_recorded_call_was_not_run() -> None:
    trajectory = recorded_trajectory(sample(native(("c1", WEATHER))))
    assert [c.status for c in trajectory.tool_calls()] == ["not_run"]
    assert trajectory.tool_calls_by_status == {"not_run": 1}
    assert trajectory.stop_reason == "tool_calls" and trajectory.rounds == 0


@pytest.mark.parametrize(
    ("extra", "status", "gate"),
    [({}, "ok", 1.0), ({"status": "error"}, "error", 0.0)],
)
def test_answered_recorded_calls(extra: dict[str, Any], status: str, gate: float) -> None:
    row = sample(
        native(("c1", CALC)), tool("c1", "42", **extra), {"role": "assistant", "content": "42"}
    )
    trajectory = recorded_trajectory(row)
    assert [c.status for c in trajectory.tool_calls()] == [status]
    assert trajectory.stop_reason == "final"
    # The format gate agrees on the trajectory and on the row's own messages.
    assert qa_f1_reward_format("42", "42", trajectory).score == gate
    assert qa_f1_reward_format("42", "42", row.messages).score == gate


def test_native_calls_win_over_text() -> None:
    reply = {**native(("c1", CALC)), "content": f"<tool_call>{json.dumps(WEATHER)}</tool_call>"}
    trajectory = recorded_trajectory(sample(reply), parse_content_tool_calls)
    assert [(c.name, c.recovered) for c in trajectory.tool_calls()] == [("calculator", False)]


def test_reward_results_are_json_ready() -> None:
    plan = RewardPlan(["exact_tool_match_reward", "qa_f1_reward_format"], {})
    row = sample(text_calls(WEATHER, CALC))
    trajectory = recorded_trajectory(row, parse_content_tool_calls)
    outcome = anyio.run(plan.score, trajectory, TRUTH, "42")
    assert outcome.scores["exact_tool_match_reward"]["score"] == 1.0
    assert outcome.passed == {"exact_tool_match_reward": True}
    json.dumps(outcome.scores)


def test_a_custom_reward_with_plain_details_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = agentloop.evals._registry
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))

    def custom(trajectory: Any, ground_truth: Any, *, answer: Any = None) -> RewardResult[Any]:
        return RewardResult(score=0.5, reason="half", details={"seen": len(trajectory.messages)})

    register_reward("custom", custom)
    outcome = anyio.run(RewardPlan(["custom"], {}).score, recorded_trajectory(sample()), None, None)
    assert outcome.scores == {"custom": {"score": 0.5, "reason": "half", "details": {"seen": 1}}}


def test_score_mode_reads_calls_in_text_when_configured(tmp_path: Path) -> None:
    row = {"id": "t", "messages": [USER, text_calls(WEATHER, CALC)], "ground_truth": TRUTH}
    data = write_jsonl(tmp_path / "d.jsonl", [row])
    config_path = write_config(
        tmp_path / "c.yaml",
        mode="score",
        dataset=str(data),
        output_dir=str(tmp_path / "runs"),
        rewards=["exact_tool_match_reward"],
        parse_content_tool_calls=True,
    )
    outcome = run_eval_sync(load_config(config_path, ()), config_path=str(config_path))
    (line,) = read_results(outcome.run_dir)
    assert line["scores"]["exact_tool_match_reward"]["score"] == 1.0
    assert line["tool_calls_by_status"] == {"not_run": 2} and line["stop_reason"] == "tool_calls"
