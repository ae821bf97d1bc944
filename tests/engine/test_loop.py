"""The tool loop: rounds, stop reasons, binding, ordering, and the validity of the conversation."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from agentloop import RetryPolicy, Trajectory, run_agent, run_agent_sync
from agentloop.testing import FunctionChatModel, ScriptedChatModel


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two integers (a sync tool)."""
    return a * b


def calls(*specs: tuple[str, dict[str, Any], str | None]) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in specs],
    )


def assert_valid_openai_conversation(t: Trajectory) -> None:
    """Every assistant tool call is answered exactly once, right after it, and nothing else."""
    msgs = t.to_openai_messages()
    i = 0
    while i < len(msgs):
        m = msgs[i]
        assert m["role"] != "tool", f"orphan tool message at {i}"
        i += 1
        if m["role"] == "assistant" and m.get("tool_calls"):
            wanted = [c["id"] for c in m["tool_calls"]]
            assert len(set(wanted)) == len(wanted)
            answered = []
            while i < len(msgs) and msgs[i]["role"] == "tool":
                answered.append(msgs[i]["tool_call_id"])
                i += 1
            assert answered == wanted


def run(model: Any, tools: list[Any], messages: Any = "go", **kw: Any) -> Trajectory:
    return run_agent_sync(model, tools, messages, **kw)


def test_final_answer_without_tools_stops_after_one_call() -> None:
    model = ScriptedChatModel(["Paris"])
    t = run(model, [add], "capital of France?")
    assert t.stop_reason == "final"
    assert t.final_answer == "Paris"
    assert t.rounds == 0
    assert model.calls == 1
    assert [m.type for m in t.messages] == ["human", "ai"]


def test_one_round_then_answer() -> None:
    model = ScriptedChatModel([calls(("add", {"a": 2, "b": 3}, "c1")), "It is 5"])
    t = run(model, [add])
    assert t.stop_reason == "final" and t.final_answer == "It is 5" and t.rounds == 1
    tool_msg = t.messages[2]
    assert isinstance(tool_msg, ToolMessage)
    assert tool_msg.content == "5" and tool_msg.tool_call_id == "c1" and tool_msg.name == "add"
    # The second model call saw the tool result.
    assert isinstance(model.requests[1][-1], ToolMessage)
    assert_valid_openai_conversation(t)


def test_tools_bound_once_per_run_with_options_passed_through() -> None:
    script = [calls(("add", {"a": 1, "b": 1}, f"c{i}")) for i in range(3)] + ["done"]
    model = ScriptedChatModel(script)
    run(model, [add, multiply], tool_choice="required", parallel_tool_calls=False)
    assert len(model.binds) == 1
    bind = model.binds[0]
    assert bind["tool_choice"] == "required"
    assert bind["parallel_tool_calls"] is False
    assert [s["function"]["name"] for s in bind["tools"]] == ["add", "multiply"]


def test_a_tool_filter_asks_first_and_binds_only_the_tools_named() -> None:
    # AgentDojo's tool_filter: the model names the tools it needs (offered all, to call
    # none); a call to another one is then an unknown tool
    both = calls(("multiply", {"a": 2, "b": 3}, "c1"), ("add", {"a": 1, "b": 1}, "c2"))
    script = ["I need: add", both, "done"]
    model = ScriptedChatModel(script)
    t = run(model, [add, multiply], tool_filter="Which tools?", tool_choice="auto")
    *_, first, then = model.binds  # the run binds every tool first, as without a filter
    assert first["tool_choice"] == "none"
    assert [s["function"]["name"] for s in first["tools"]] == ["add", "multiply"]
    assert then["tool_choice"] == "auto"
    assert [s["function"]["name"] for s in then["tools"]] == ["add"]
    assert [m.content for m in model.requests[1][-2:]] == ["Which tools?", "I need: add"]
    assert [(c.name, c.status) for c in t.tool_calls()] == [
        ("multiply", "unknown_tool"), ("add", "ok")
    ]
    assert t.final_answer == "done" and len(t.steps) == 3 and t.rounds == 1
    assert_valid_openai_conversation(t)
    with pytest.raises(ValueError, match="tool_filter asks the model first"):
        run(ScriptedChatModel(["x"]), [add], tool_filter="?", single_turn=True)


def test_parallel_tool_calls_not_sent_by_default_and_no_tools_means_no_bind() -> None:
    model = ScriptedChatModel(["x"])
    run(model, [add])
    assert "parallel_tool_calls" not in model.binds[0]
    assert model.binds[0]["tool_choice"] is None
    bare = ScriptedChatModel(["x"])
    run(bare, [])
    assert bare.binds == []


@pytest.mark.parametrize("max_rounds", [0, 1, 3, 5])
def test_round_cap_is_hard(max_rounds: int) -> None:
    always = FunctionChatModel(
        lambda msgs, tools: calls(("add", {"a": 1, "b": 2}, f"id{len(msgs)}"))
    )
    t = run(always, [add], max_rounds=max_rounds)
    assert t.stop_reason == "max_rounds"
    assert t.rounds == max_rounds
    assert len(always.requests) == max_rounds + 1
    assert t.tool_calls_by_status == {
        **({"ok": max_rounds} if max_rounds else {}),
        "round_limit": 1,
    }
    last = t.messages[-1]
    assert isinstance(last, ToolMessage) and last.status == "error"
    assert "limit of" in str(last.content)
    assert_valid_openai_conversation(t)


@pytest.mark.parametrize("max_rounds", [1, 3])
def test_at_max_rounds_stop_ends_the_conversation_after_the_last_round(max_rounds: int) -> None:
    from agentloop.engine import Turn

    always = FunctionChatModel(
        lambda msgs, tools: calls(("add", {"a": 1, "b": 2}, f"id{len(msgs)}"))
    )
    t = run(always, [add], max_rounds=max_rounds, at_max_rounds="stop",
            turns=[Turn(messages=[{"role": "user", "content": "again"}])])  # fmt: skip
    # every round's calls ran, no model call after the last, no later turn
    assert (t.stop_reason, t.rounds, len(always.requests)) == ("max_rounds", max_rounds, max_rounds)
    assert t.tool_calls_by_status == {"ok": max_rounds}
    assert [r.stop_reason for r in t.turns] == ["max_rounds"]
    assert_valid_openai_conversation(t)
    with pytest.raises(ValueError, match="at_max_rounds"):
        run(always, [add], at_max_rounds="refuse")


def test_answer_on_the_extra_call_after_the_last_round_is_final() -> None:
    script = [calls(("add", {"a": 1, "b": 1}, "a")), calls(("add", {"a": 2, "b": 2}, "b")), "4"]
    t = run(ScriptedChatModel(script), [add], max_rounds=2)
    assert t.stop_reason == "final" and t.final_answer == "4" and t.rounds == 2


def test_default_max_rounds_is_five() -> None:
    always = FunctionChatModel(lambda msgs, tools: calls(("add", {"a": 1, "b": 2}, None)))
    t = run(always, [add])
    assert t.rounds == 5 and len(always.requests) == 6


def test_results_come_back_in_call_order_whatever_finishes_first() -> None:
    @tool
    async def sleepy(seconds: float, label: str) -> str:
        """Sleep, then echo the label."""
        await anyio.sleep(seconds)
        return label

    reply = calls(
        ("sleepy", {"seconds": 0.15, "label": "slow"}, "c1"),
        ("sleepy", {"seconds": 0.0, "label": "fast"}, "c2"),
        ("sleepy", {"seconds": 0.05, "label": "mid"}, "c3"),
    )
    t = run(ScriptedChatModel([reply, "ok"]), [sleepy])
    contents = [m.content for m in t.messages if isinstance(m, ToolMessage)]
    assert contents == ["slow", "fast", "mid"]
    assert [c.id for c in t.tool_calls()] == ["c1", "c2", "c3"]


def _overlap_probe() -> tuple[Any, list[tuple[str, float, float]]]:
    spans: list[tuple[str, float, float]] = []

    @tool
    async def wait(label: str) -> str:
        """Wait a little and record when."""
        start = time.perf_counter()
        await anyio.sleep(0.1)
        spans.append((label, start, time.perf_counter()))
        return label

    return wait, spans


def test_one_rounds_calls_run_concurrently() -> None:
    wait, spans = _overlap_probe()
    reply = calls(("wait", {"label": "a"}, "1"), ("wait", {"label": "b"}, "2"))
    run(ScriptedChatModel([reply, "ok"]), [wait])
    (_, s1, e1), (_, s2, e2) = spans
    assert s2 < e1 and s1 < e2  # intervals overlap


def test_sequential_execution_runs_calls_one_by_one_in_order() -> None:
    wait, spans = _overlap_probe()
    reply = calls(("wait", {"label": "a"}, "1"), ("wait", {"label": "b"}, "2"))
    run(ScriptedChatModel([reply, "ok"]), [wait], tool_execution="sequential")
    (a, _s1, e1), (b, s2, _e2) = spans
    assert (a, b) == ("a", "b") and s2 >= e1


def test_parallel_tool_calls_false_is_only_what_the_provider_is_asked() -> None:
    wait, spans = _overlap_probe()
    reply = calls(("wait", {"label": "a"}, "1"), ("wait", {"label": "b"}, "2"))
    model = ScriptedChatModel([reply, "ok"])
    run(model, [wait], parallel_tool_calls=False)
    (_, s1, e1), (_, s2, e2) = spans
    assert model.binds[0]["parallel_tool_calls"] is False
    assert s2 < e1 and s1 < e2  # the calls it sent anyway still ran concurrently


def test_sync_and_async_tools_give_the_same_messages() -> None:
    @tool
    def mul_sync(a: int, b: int) -> dict[str, int]:
        """Multiply (sync)."""
        return {"product": a * b}

    @tool
    async def mul_async(a: int, b: int) -> dict[str, int]:
        """Multiply (async)."""
        return {"product": a * b}

    outs = []
    for t_ in (mul_sync, mul_async):
        reply = calls((t_.name, {"a": 6, "b": 7}, "c"), (t_.name, {"a": "x", "b": 1}, "d"))
        traj = run(ScriptedChatModel([reply, "ok"]), [t_])
        records = traj.tool_calls()
        outs.append([(c.status, c.error and c.error.replace(t_.name, "T")) for c in records])
        outs.append(next(m.content for m in traj.messages if isinstance(m, ToolMessage)))
    assert outs[0] == outs[2] and outs[1] == outs[3] == '{"product": 42}'


def test_sync_tool_runs_in_a_worker_thread() -> None:
    import threading

    seen: list[str] = []

    @tool
    def where() -> str:
        """Report the thread."""
        seen.append(threading.current_thread().name)
        return "ok"

    run(ScriptedChatModel([calls(("where", {}, "c")), "done"]), [where])
    assert seen and seen[0] != threading.main_thread().name


def test_model_error_is_recorded_not_raised() -> None:
    model = ScriptedChatModel([calls(("add", {"a": 1, "b": 2}, "c")), ValueError("bad request")])
    t = run(model, [add])
    assert t.stop_reason == "error"
    assert t.error == "ValueError: bad request"
    assert t.rounds == 1
    assert_valid_openai_conversation(t)


def test_model_error_raises_when_asked() -> None:
    with pytest.raises(ValueError, match="bad request"):
        run(ScriptedChatModel([ValueError("bad request")]), [add], raise_on_error=True)


class _Transient(Exception):
    status_code = 503


def test_transient_model_errors_are_retried_and_do_not_count_as_rounds() -> None:
    fast = RetryPolicy(initial_delay_s=0.0, jitter=0.0)
    model = ScriptedChatModel([_Transient("busy"), _Transient("busy"), "fine"])
    t = run(model, [add], retry=fast)
    assert t.stop_reason == "final" and t.final_answer == "fine"
    assert t.rounds == 0 and t.steps[0].retries == 2 and len(t.steps) == 1


def test_retries_give_up_at_the_cap() -> None:
    policy = RetryPolicy(max_retries=1, initial_delay_s=0.0)
    t = run(ScriptedChatModel([_Transient("a"), _Transient("b"), "never"]), [add], retry=policy)
    assert t.stop_reason == "error" and "busy" not in (t.error or "")
    assert t.steps[-1].retries == 1


@pytest.mark.parametrize(
    "messages",
    [
        "hello",
        [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}],
        [SystemMessage(content="be brief"), HumanMessage(content="hello")],
    ],
)
def test_message_inputs(messages: Any) -> None:
    model = ScriptedChatModel(["hi"])
    t = run(model, [], messages)
    assert t.messages[-2].content == "hello"
    assert model.requests[0][-1].content == "hello"


def test_input_messages_are_not_mutated() -> None:
    given = [HumanMessage(content="q")]
    run(ScriptedChatModel([calls(("add", {"a": 1, "b": 1}, "c")), "2"]), [add], given)
    assert len(given) == 1


def test_plain_functions_are_accepted_as_tools() -> None:
    def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()

    t = run(ScriptedChatModel([calls(("shout", {"text": "hey"}, "c")), "HEY"]), [shout])
    assert t.messages[2].content == "HEY"


def test_not_a_tool_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="not a tool"):
        run(ScriptedChatModel(["x"]), [42])


def test_usage_and_latency_are_recorded() -> None:
    reply = AIMessage(
        content="a", usage_metadata={"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}
    )
    t = run(ScriptedChatModel([reply], latency=0.02), [])
    assert t.usage.input_tokens == 10 and t.usage.output_tokens == 2
    assert t.steps[0].usage is not None and t.steps[0].usage.total_tokens == 12
    assert t.steps[0].latency_s >= 0.02 and t.wall_time_s >= t.steps[0].latency_s
    assert t.model == {"provider": "agentloop", "model_name": "scripted"}


def test_sync_wrapper_refuses_inside_an_event_loop() -> None:
    async def inner() -> None:
        run_agent_sync(ScriptedChatModel(["x"]), [], "q")

    with pytest.raises(RuntimeError, match="await run_agent"):
        anyio.run(inner)


def test_async_core_is_awaitable() -> None:
    async def main() -> Trajectory:
        return await run_agent(ScriptedChatModel(["42"]), [], "q")

    assert anyio.run(main).final_answer == "42"


def test_negative_max_rounds_is_rejected() -> None:
    with pytest.raises(ValueError, match="max_rounds"):
        run(ScriptedChatModel(["x"]), [], max_rounds=-1)


def test_content_tool_calls_are_recovered_when_a_parser_is_given() -> None:
    def parser(text: str) -> list[tuple[str, dict[str, Any]]]:
        return [("add", {"a": 2, "b": 2})] if "<tool_call>" in text else []

    reply = AIMessage(content='<tool_call>{"name": "add"}</tool_call>')
    t = run(ScriptedChatModel([reply, "4"]), [add], parse_content_tool_calls=parser)
    (call,) = t.tool_calls()
    assert call.recovered and call.status == "ok" and call.id.startswith("call_al_")
    assert t.messages[2].content == "4"
    assert_valid_openai_conversation(t)
    plain = run(ScriptedChatModel([reply]), [add])
    assert plain.stop_reason == "final" and plain.tool_calls() == []
