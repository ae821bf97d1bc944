"""The shipped test doubles: strict order, loud exhaustion, bind_tools support."""

from __future__ import annotations

import doctest
from pathlib import Path

import anyio
import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

import agentloop.testing
from agentloop import ScriptExhaustedError
from agentloop.testing import FunctionChatModel, ScriptedChatModel, tool_call


@tool
def ping() -> str:
    """Ping."""
    return "pong"


def test_docstring_examples_run() -> None:
    result = doctest.testmod(agentloop.testing)
    assert result.attempted >= 4 and result.failed == 0


def test_replies_in_strict_order_then_a_loud_error() -> None:
    model = ScriptedChatModel(["one", {"role": "assistant", "content": "two"}])
    assert model.invoke("a").content == "one"
    assert model.invoke("b").content == "two"
    with pytest.raises(ScriptExhaustedError, match="call 3 has no scripted reply"):
        model.invoke("c")
    with pytest.raises(ScriptExhaustedError, match="call 4"):
        model.invoke("d")  # never wraps around


def test_dict_replies_with_tool_calls_and_null_content() -> None:
    reply = {"role": "assistant", "content": None, "tool_calls": [tool_call("ping", {}, "c9")]}
    message = ScriptedChatModel([reply]).invoke("x")
    assert isinstance(message, AIMessage)
    assert message.tool_calls == [{"name": "ping", "args": {}, "id": "c9", "type": "tool_call"}]


def test_bind_tools_records_schemas_and_options() -> None:
    model = ScriptedChatModel(["ok"])
    bound = model.bind_tools([ping], tool_choice="any")
    assert bound.invoke("x").content == "ok"
    assert model.bound_tools is not None
    assert model.bound_tools[0]["function"]["name"] == "ping"
    assert model.binds[0]["tool_choice"] == "any"


def test_scripted_exceptions_are_raised_on_their_call() -> None:
    model = ScriptedChatModel([ConnectionError("down"), "up"])
    with pytest.raises(ConnectionError):
        model.invoke("x")
    assert model.invoke("x").content == "up"


def test_latency_is_awaited() -> None:
    model = ScriptedChatModel(["a", "b"], latency=0.2)

    async def both() -> float:
        start = anyio.current_time()
        async with anyio.create_task_group() as tg:
            tg.start_soon(model.ainvoke, "x")
            tg.start_soon(model.ainvoke, "y")
        return anyio.current_time() - start

    assert 0.2 <= anyio.run(both) < 0.35  # concurrent (0.2 s), not serialized (0.4 s)


def test_replies_are_copies_so_the_script_is_not_mutated() -> None:
    original = AIMessage(content="same")
    model = ScriptedChatModel([original, original])
    first, second = model.invoke("a"), model.invoke("b")
    assert original.id is None and first.content == second.content == "same"


def test_function_model_sync_and_async() -> None:
    seen: list[int] = []

    def reply(messages: list[object], tools: list[dict[str, object]]) -> str:
        seen.append(len(tools))
        return "sync"

    async def areply(messages: list[object], tools: list[dict[str, object]]) -> AIMessage:
        return AIMessage(content="async")

    fm = FunctionChatModel(reply)
    assert fm.bind_tools([ping]).invoke("x").content == "sync" and seen == [1]
    assert anyio.run(FunctionChatModel(areply).ainvoke, "x").content == "async"
    with pytest.raises(TypeError, match="needs ainvoke"):
        FunctionChatModel(areply).invoke("x")


def test_a_scripted_reply_can_hold_the_calls_a_server_returns_malformed(tmp_path: Path) -> None:
    # Real replies: a comment in the JSON, an expression, a list; a script replays them
    # as malformed calls (never run), and the sample is scored.
    from agentloop.harness import load_config
    from agentloop.harness.run._runner import run_eval_sync
    from tests.support.harness import add_setup, read_results, write_json

    bad = ['{"a": 6.2832,  // 2 * pi}', '{"a": 2 * 3.14159}', "[1, 2]"]
    reply = {"tool_calls": [tool_call("add", {}, id=f"c{i}") for i in range(3)]}
    for i, args in enumerate(bad):
        reply["tool_calls"][i]["function"]["arguments"] = args
    config = add_setup(tmp_path, n=1)
    write_json(tmp_path / "script.json", [reply, "1"])
    outcome = run_eval_sync(load_config(config), config_path=str(config))
    (line,) = read_results(outcome.run_dir)
    assert line["status"] == "ok" and "qa_f1_reward" in line["scores"]
    records = line["trajectory"]["steps"][0]["tool_calls"]
    assert [(r["status"], r["raw_args"]) for r in records] == [("malformed", a) for a in bad]
