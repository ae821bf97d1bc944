"""Loop options: single-turn mode, tool execution order, content-call recovery, the
executor hook (one place decides the tool timeout), and the sync wrapper's event loop."""

from __future__ import annotations

import threading
import time
from typing import Any

import anyio
import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from agentloop import run_agent_sync
from agentloop.engine import ToolDispatcher
from agentloop.testing import ScriptedChatModel
from tests.engine.test_loop import add, calls
from tests.support.openai_stub import StubServer, reply


def test_single_turn_records_the_calls_without_running_or_answering_them() -> None:
    ran: list[int] = []

    @tool
    def probe(x: int) -> int:
        """Record a call."""
        ran.append(x)
        return x

    model = ScriptedChatModel([calls(("probe", {"x": 1}, "c1"), ("nope", {}, "c2"))])
    t = run_agent_sync(model, [probe], "go", single_turn=True)
    assert model.calls == 1 and ran == []
    assert t.stop_reason == "tool_calls" and t.rounds == 0
    assert [m.type for m in t.messages] == ["human", "ai"]  # no fabricated tool messages
    assert [(c.name, c.status, c.args) for c in t.tool_calls()] == [
        ("probe", "not_run", {"x": 1}),
        ("nope", "not_run", {}),
    ]
    assert "limit of 0" not in t.model_dump_json()
    assert t.tool_calls_by_status == {"not_run": 2}


def test_single_turn_with_a_text_reply_is_a_final_answer() -> None:
    t = run_agent_sync(ScriptedChatModel(["42"]), [add], "go", single_turn=True)
    assert (t.stop_reason, t.final_answer, t.tool_calls()) == ("final", "42", [])


def test_parse_content_tool_calls_accepts_true() -> None:
    text = '<tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>'
    model = ScriptedChatModel([AIMessage(content=text), "5"])
    t = run_agent_sync(model, [add], "go", parse_content_tool_calls=True)
    (record,) = t.tool_calls()
    assert (record.name, record.status, record.recovered) == ("add", "ok", True)
    assert next(m.content for m in t.messages if isinstance(m, ToolMessage)) == "5"


@pytest.mark.parametrize(
    ("option", "error"),
    [
        ({"parse_content_tool_calls": "yes"}, TypeError),
        ({"tool_execution": "threads"}, ValueError),
    ],
)
def test_unknown_options_raise(option: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        run_agent_sync(ScriptedChatModel(["x"]), [add], "go", **option)


def test_the_executor_hook_gets_the_dispatcher_with_the_runs_limits() -> None:
    @tool
    async def slow() -> str:
        """Take too long."""
        await anyio.sleep(5)
        return "late"

    seen: list[ToolDispatcher] = []

    def wrap(dispatcher: ToolDispatcher) -> ToolDispatcher:
        seen.append(dispatcher)
        return dispatcher

    model = ScriptedChatModel([calls(("slow", {}, "c1")), "gave up"])
    t = run_agent_sync(
        model, [slow], "go", tool_timeout=0.2, max_tool_output_chars=50, tool_executor=wrap
    )
    assert (seen[0].timeout, seen[0].max_output_chars) == (0.2, 50)
    assert t.tool_calls()[0].status == "timeout"


def test_sync_wrapper_reuses_a_keep_alive_chatopenai() -> None:
    # langchain-openai caches its async HTTP client; a new event loop per call broke
    # the second call on the same model ("Event loop is closed").
    with StubServer() as stub:
        stub.push(reply("one"), reply("two"), reply("three"))
        model = ChatOpenAI(model="stub-model", base_url=stub.url, api_key="x", max_retries=0)
        answers = [run_agent_sync(model, [], f"q{i}") for i in range(3)]
    assert [(t.stop_reason, t.final_answer) for t in answers] == [
        ("final", "one"),
        ("final", "two"),
        ("final", "three"),
    ]


def test_sync_wrapper_refuses_inside_a_running_loop() -> None:
    async def main() -> None:
        with pytest.raises(RuntimeError, match="await run_agent"):
            run_agent_sync(ScriptedChatModel(["x"]), [], "go")

    anyio.run(main)


def test_sync_wrapper_serves_several_threads_at_once() -> None:
    results: dict[int, str | None] = {}

    def worker(i: int) -> None:
        model = ScriptedChatModel([f"answer {i}"], latency=0.05)
        results[i] = run_agent_sync(model, [], "go").final_answer

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert results == {i: f"answer {i}" for i in range(8)}
    assert time.perf_counter() - started < 5



def test_a_call_to_a_schema_only_tool_says_it_has_no_implementation() -> None:
    schema = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}
    model = ScriptedChatModel([calls(("lookup", {}, "c1"), ("add", {"a": 1, "b": 2}, "c2")), "ok"])
    t = run_agent_sync(model, [add, schema], "go")
    lookup, added = t.tool_calls()
    assert (lookup.status, added.status) == ("no_implementation", "ok")
    assert lookup.error is not None and "no implementation" in lookup.error
    assert "unknown tool" not in lookup.error
