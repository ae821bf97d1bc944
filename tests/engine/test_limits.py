"""Per-run limits: tool timeout by default, wall time and tokens; the run stops, says why,
and keeps what it did."""

from __future__ import annotations

import inspect
from typing import Any

import anyio
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from agentloop import run_agent, run_agent_sync
from agentloop.testing import ScriptedChatModel, tool_call
from tests.engine.test_loop import assert_valid_openai_conversation


@tool
async def nap(seconds: float) -> str:
    """Sleep."""
    await anyio.sleep(seconds)
    return "rested"


def _ask(seconds: float, id: str = "c1") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [tool_call("nap", {"seconds": seconds}, id)],
    }


def test_a_tool_has_a_timeout_by_default() -> None:
    assert inspect.signature(run_agent).parameters["tool_timeout"].default == 60


def test_time_limit_stops_a_run_inside_a_tool_call_and_keeps_it_valid() -> None:
    model = ScriptedChatModel([_ask(0.0, "c1"), _ask(30.0, "c2"), "never"])
    t = run_agent_sync(model, [nap], "go", time_limit=0.5, tool_timeout=None)
    assert t.stop_reason == "time_limit" and t.error is None
    assert [(c.id, c.status) for c in t.tool_calls()] == [("c1", "ok"), ("c2", "timeout")]
    assert "time limit (0.5 s)" in str(t.messages[-1].content)
    assert_valid_openai_conversation(t)
    assert t.wall_time_s < 10


def test_time_limit_stops_a_model_call() -> None:
    model = ScriptedChatModel([_ask(0.0), "late answer"], latency=30)
    t = run_agent_sync(model, [nap], "go", time_limit=0.3)
    assert t.stop_reason == "time_limit" and t.steps == [] and t.final_answer is None


def test_token_limit_stops_before_running_more_calls() -> None:
    def ask(seconds: float, id: str, tokens: int) -> AIMessage:
        usage = {"input_tokens": tokens - 10, "output_tokens": 10, "total_tokens": tokens}
        call = {"name": "nap", "args": {"seconds": seconds}, "id": id}
        return AIMessage(content="", tool_calls=[call], usage_metadata=usage)  # type: ignore[arg-type]

    model = ScriptedChatModel([ask(0, "c1", 100), ask(0, "c2", 100), "never"])
    t = run_agent_sync(model, [nap], "go", token_limit=150)
    assert t.stop_reason == "token_limit"
    assert [(c.id, c.status) for c in t.tool_calls()] == [("c1", "ok"), ("c2", "not_run")]
    assert "token limit (150)" in str(t.messages[-1].content)
    assert t.usage.total_tokens == 200
    assert_valid_openai_conversation(t)


def test_limits_must_be_positive() -> None:
    import pytest

    for name in ("tool_timeout", "time_limit", "token_limit"):
        with pytest.raises(ValueError, match=f"{name} must be > 0"):
            run_agent_sync(ScriptedChatModel(["x"]), [], "go", **{name: 0})
