"""An agent of your own on a conversation's turns: one agent call per turn, recorded as the
loop records its turns; a turn that adds tools makes the agent again with them; AgentDojo's
tool filter asked before the agent is made."""

from __future__ import annotations

import warnings
from typing import Any

import anyio
from langchain_core.tools import tool

from agentloop.engine import Trajectory, Turn, run_agent, run_own_agent
from agentloop.testing import ScriptedChatModel, tool_call


class Counter:
    def __init__(self) -> None:
        self.value = 0

    def tools(self) -> list[Any]:
        @tool
        def bump(by: int) -> int:
            """Add to the counter."""
            self.value += by
            return self.value

        @tool
        def double() -> int:
            """Double the counter."""
            self.value *= 2
            return self.value

        return [bump, double]


def ask(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [tool_call(name, args, call_id)]}


SCRIPT = [
    ask("bump", {"by": 2}, "a"),
    "two",
    ask("double", {}, "b"),  # the tool the second turn adds
    ask("bump", {"by": 1}, "c"),
    "five",
]


def lc_call(name: str, args: dict[str, Any], call_id: str) -> Any:
    return {"id": call_id, "name": name, "args": args, "type": "tool_call"}


def react(model: Any, tools: list[Any]) -> Any:
    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, tools)


def record(trajectory: Trajectory) -> Any:
    """What a benchmark reads: messages, calls with their results, turns with their state."""
    return (
        trajectory.to_openai_messages(),
        [[(c.name, c.args, c.status) for c in s.tool_calls] for s in trajectory.steps],
        [t.model_dump() for t in trajectory.turns],
        trajectory.stop_reason,
    )


def run_both(factory: Any, script: list[Any], **options: Any) -> tuple[Trajectory, Trajectory]:
    runs = []
    for own in (False, True):
        counter = Counter()
        bump, double = counter.tools()
        turns = [Turn(messages=[{"role": "user", "content": "double, then add 1"}], tools=[double])]
        model = ScriptedChatModel(script)
        kwargs = dict(options, turns=turns, snapshot=lambda c=counter: {"value": c.value})
        runs.append(_run(own, factory, model, [bump], kwargs))
    return runs[0], runs[1]


def _run(own: bool, factory: Any, model: Any, tools: list[Any], options: Any) -> Trajectory:
    if own:
        return anyio.run(
            lambda: run_own_agent(factory, model, tools, "add 2", **options)
        ).trajectory
    return anyio.run(lambda: run_agent(model, tools, "add 2", **options))


def test_a_graph_on_turns_gives_the_loops_record() -> None:
    native, own = run_both(react, SCRIPT)
    assert record(own) == record(native)
    assert [(t.message_start, t.step_start, t.tools_added) for t in own.turns] == [
        (0, 0, []),
        (4, 2, ["double"]),
    ]
    assert [t.state for t in own.turns] == [{"value": 2}, {"value": 5}]


def test_a_turn_that_adds_tools_makes_the_agent_again_with_them() -> None:
    made: list[list[str]] = []

    def factory(model: Any, tools: list[Any]) -> Any:
        made.append([t.name for t in tools])
        return react(model, tools)

    counter = Counter()
    bump, double = counter.tools()
    turns = [
        Turn(messages=[{"role": "user", "content": "again"}]),
        Turn(messages=[{"role": "user", "content": "now double"}], tools=[double]),
    ]
    script = [ask("bump", {"by": 2}, "a"), "two", "still two", ask("double", {}, "b"), "four"]
    model = ScriptedChatModel(script)
    run = anyio.run(lambda: run_own_agent(factory, model, [bump], "add 2", turns=turns))
    assert made == [["bump"], ["bump", "double"]]  # the same agent for the second turn
    assert counter.value == 4
    assert [t.stop_reason for t in run.trajectory.turns] == ["final"] * 3
    assert run.notes == []


def test_the_round_cap_with_stop_ends_the_conversation_as_the_loop() -> None:
    script = [ask("bump", {"by": 2}, "a"), ask("bump", {"by": 2}, "b")]
    native, own = run_both(react, script, max_rounds=2, at_max_rounds="stop")
    assert record(own) == record(native)
    assert [t.stop_reason for t in own.turns] == ["max_rounds"]  # no second turn


def test_the_tool_filter_is_asked_first_and_the_agent_gets_the_kept_tools() -> None:
    made: list[list[str]] = []

    def factory(model: Any, tools: list[Any]) -> Any:
        made.append([t.name for t in tools])
        return react(model, tools)

    script = ["bump", ask("bump", {"by": 2}, "a"), "two"]
    runs = []
    for own in (False, True):
        bump, double = Counter().tools()
        model = ScriptedChatModel(script)
        runs.append(_run(own, factory, model, [bump, double], {"tool_filter": "Which tools?"}))
        # the filter is offered every tool, and asked to call none
        assert model.requests[0][-1].content == "Which tools?"
    native, own_run = runs
    assert made == [["bump"]]
    assert record(own_run) == record(native)
    assert own_run.steps[0].tool_calls == []
    assert own_run.final_answer == "two"


def test_the_token_limit_holds_over_all_turns_as_in_the_loop() -> None:
    from langchain_core.messages import AIMessage

    usage = {"input_tokens": 4, "output_tokens": 0, "total_tokens": 4}
    script = [
        AIMessage(content="", tool_calls=[lc_call("bump", {"by": 2}, "a")], usage_metadata=usage),
        AIMessage(content="two", usage_metadata=usage),
        AIMessage(content="", tool_calls=[lc_call("double", {}, "b")], usage_metadata=usage),
    ]
    native, own = run_both(react, script, token_limit=10)
    assert record(own) == record(native)
    assert own.stop_reason == "token_limit"
    assert [t.stop_reason for t in own.turns] == ["final", "token_limit"]
    assert own.usage.total_tokens == 12


def test_an_agent_failing_in_a_later_turn_ends_the_run_there() -> None:
    calls = 0

    def factory(model: Any, tools: list[Any]) -> Any:
        graph = react(model, tools)

        async def agent(messages: list[Any]) -> Any:
            nonlocal calls
            calls += 1
            if calls == 2:
                raise RuntimeError("the agent fell over")
            return await graph.ainvoke({"messages": messages})

        return agent

    counter = Counter()
    bump, _ = counter.tools()
    turns = [Turn(messages=[{"role": "user", "content": "more"}]), Turn(messages=["again"])]
    model = ScriptedChatModel([ask("bump", {"by": 2}, "a"), "two"])
    run = anyio.run(
        lambda: run_own_agent(
            factory, model, [bump], "add 2", turns=turns, snapshot=lambda: counter.value
        )
    )
    assert run.failed == "agent"
    assert run.trajectory.error == "RuntimeError: the agent fell over"
    assert [(t.stop_reason, t.state) for t in run.trajectory.turns] == [
        ("final", 2),
        ("error", 2),
    ]  # no third turn


def test_the_time_limit_stops_a_later_turn_and_records_it() -> None:
    def factory(model: Any, tools: list[Any]) -> Any:
        graph = react(model, tools)

        async def agent(messages: list[Any]) -> Any:
            if len(messages) > 1:  # the second turn hangs
                await anyio.sleep_forever()
            return await graph.ainvoke({"messages": messages})

        return agent

    bump, _ = Counter().tools()
    turns = [Turn(messages=[{"role": "user", "content": "more"}])]
    model = ScriptedChatModel(["two"])
    run = anyio.run(
        lambda: run_own_agent(factory, model, [bump], "add 2", turns=turns, time_limit=0.2)
    )
    assert run.trajectory.stop_reason == "time_limit"
    assert [t.stop_reason for t in run.trajectory.turns] == ["final", "time_limit"]
    assert run.trajectory.turns[1].message_start == 2
