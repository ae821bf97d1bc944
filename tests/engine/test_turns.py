"""Multi-turn conversations in the engine: turns, per-turn rounds, tools added at a turn,
state snapshots, and the turn records of the trajectory."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool

from agentloop import run_agent_sync
from agentloop.engine import Trajectory, Turn
from agentloop.testing import ScriptedChatModel, tool_call


class Counter:
    """A shared backend for two tools."""

    def __init__(self) -> None:
        self.value = 0

    def tools(self) -> list[Any]:
        @tool
        def bump(by: int) -> int:
            """Add to the counter."""
            self.value += by
            return self.value

        @tool
        def reset() -> str:
            """Set the counter to zero."""
            self.value = 0
            return "reset"

        return [bump, reset]


def ask(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [tool_call(name, args, call_id)]}


def test_each_turn_continues_the_history_and_records_where_it_starts() -> None:
    counter = Counter()
    bump, reset = counter.tools()
    model = ScriptedChatModel(
        [ask("bump", {"by": 2}, "a"), "two", ask("bump", {"by": 3}, "b"), "five"]
    )
    trajectory = run_agent_sync(
        model, [bump, reset], "bump by 2",
        turns=[Turn(messages=[{"role": "user", "content": "and by 3"}])],
        snapshot=lambda: {"value": counter.value},
    )  # fmt: skip
    # The second turn's first request holds all of turn 1, then the new user message.
    second = model.requests[2]
    assert [m.type for m in second] == ["human", "ai", "tool", "ai", "human"]
    assert second[-1].content == "and by 3"
    assert [(t.message_start, t.step_start, t.stop_reason) for t in trajectory.turns] == [
        (0, 0, "final"),
        (4, 2, "final"),
    ]
    assert [t.state for t in trajectory.turns] == [{"value": 2}, {"value": 5}]
    assert trajectory.final_answer == "five"
    assert trajectory.rounds == 2
    assert [c.args for c in trajectory.turn_tool_calls(1)] == [{"by": 3}]
    messages, steps = trajectory.turn_bounds(1)
    assert isinstance(trajectory.messages[messages][0], HumanMessage)
    assert len(trajectory.steps[steps]) == 2
    # Every tool message answers a call of the assistant message before it.
    openai = trajectory.to_openai_messages()
    ids = [c["id"] for m in openai if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    assert [m["tool_call_id"] for m in openai if m["role"] == "tool"] == ids


def test_max_rounds_counts_per_turn_and_the_next_turn_still_runs() -> None:
    counter = Counter()
    script = [
        ask("bump", {"by": 1}, "a"),
        ask("bump", {"by": 1}, "b"),  # past the cap of one round: refused
        ask("bump", {"by": 10}, "c"),  # turn 2 has its own round
        "done",
    ]
    trajectory = run_agent_sync(
        ScriptedChatModel(script), counter.tools(), "go", max_rounds=1,
        turns=[Turn(messages="again")],
    )  # fmt: skip
    assert [t.stop_reason for t in trajectory.turns] == ["max_rounds", "final"]
    assert [c.status for c in trajectory.turn_tool_calls(0)] == ["ok", "round_limit"]
    assert [c.status for c in trajectory.turn_tool_calls(1)] == ["ok"]
    assert counter.value == 11
    assert trajectory.stop_reason == "final"


def test_a_model_error_ends_the_conversation() -> None:
    script: list[Any] = [RuntimeError("boom")]
    trajectory = run_agent_sync(
        ScriptedChatModel(script), [], "hi", turns=[Turn(messages="never sent")]
    )
    assert trajectory.stop_reason == "error"
    assert len(trajectory.turns) == 1
    assert not any(m.content == "never sent" for m in trajectory.messages)


def test_tools_added_at_a_turn_are_bound_from_then_on() -> None:
    counter = Counter()
    bump, reset = counter.tools()
    model = ScriptedChatModel([ask("reset", {}, "a"), "cannot", ask("reset", {}, "b"), "done"])
    trajectory = run_agent_sync(
        model, [bump], "reset it",
        turns=[Turn(messages=[], tools=[reset]), Turn(messages="thanks")],
    )  # fmt: skip
    assert [[t["function"]["name"] for t in b["tools"]] for b in model.binds] == [
        ["bump"],
        ["bump", "reset"],
    ]
    assert [c.status for c in trajectory.tool_calls()] == ["unknown_tool", "ok"]
    assert [t.tools_added for t in trajectory.turns] == [[], ["reset"], []]
    # A turn with no messages calls the model again on the history as it is.
    assert trajectory.turns[1].message_start == trajectory.turns[2].message_start - 3


def test_turns_round_trip_through_json_and_old_records_have_none() -> None:
    counter = Counter()
    trajectory = run_agent_sync(
        ScriptedChatModel([ask("bump", {"by": 1}, "a"), "ok", "fine"]),
        counter.tools(), "go", turns=[Turn(messages="more")],
        snapshot=lambda: {"value": counter.value},
    )  # fmt: skip
    data = json.loads(trajectory.model_dump_json())
    again = Trajectory.model_validate(data)
    assert again.turns == trajectory.turns
    assert again.model_dump() == trajectory.model_dump()
    del data["turns"]  # a trajectory written before turns existed
    old = Trajectory.model_validate(data)
    assert old.turns == []
    assert [c.id for c in old.turn_tool_calls(0)] == ["a"]
    with pytest.raises(IndexError):
        old.turn_bounds(1)


def test_a_plain_run_records_no_turns_but_a_snapshot_makes_one() -> None:
    plain = run_agent_sync(ScriptedChatModel(["hi"]), [], "hello")
    assert plain.turns == []
    snap = run_agent_sync(ScriptedChatModel(["hi"]), [], "hello", snapshot=lambda: [1])
    assert [(t.stop_reason, t.state) for t in snap.turns] == [("final", [1])]


def test_single_turn_cannot_have_turns() -> None:
    with pytest.raises(ValueError, match="single_turn"):
        run_agent_sync(ScriptedChatModel(["x"]), [], "hi", single_turn=True,
                       turns=[Turn(messages="b")])  # fmt: skip


def test_sequential_execution_runs_a_rounds_calls_in_call_order() -> None:
    counter = Counter()
    calls = [tool_call("bump", {"by": 1}, "a"), tool_call("reset", {}, "b"),
             tool_call("bump", {"by": 5}, "c")]  # fmt: skip
    trajectory = run_agent_sync(
        ScriptedChatModel([{"role": "assistant", "content": "", "tool_calls": calls}, "ok"]),
        counter.tools(), "go", tool_execution="sequential",
    )  # fmt: skip
    results = [m.content for m in trajectory.messages if isinstance(m, ToolMessage)]
    assert results == ["1", "reset", "5"]
    assert counter.value == 5
