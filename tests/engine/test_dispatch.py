"""Every tool call gets exactly one ToolMessage with its id, whatever goes wrong."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import anyio
import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool, tool
from pydantic import BaseModel, Field

from agentloop import Trajectory, run_agent_sync
from agentloop.engine._dispatch import ToolDispatcher
from agentloop.testing import ScriptedChatModel
from tests.engine.test_loop import assert_valid_openai_conversation

ran: list[str] = []


@tool
def echo(text: str, times: int = 1) -> str:
    """Echo text."""
    ran.append(text)
    return text * times


@tool
async def explode(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(reason)


class CounterInput(BaseModel):
    step: int = Field(ge=1, description="How much to add.")


class CounterTool(BaseTool):
    """A stateful class-based tool with an explicit args_schema."""

    name: str = "counter"
    description: str = "Add to a running total."
    args_schema: type[BaseModel] = CounterInput
    total: int = 0

    def _run(self, step: int) -> str:
        self.total += step
        return f"total={self.total}"

    async def _arun(self, step: int) -> str:
        return self._run(step)


def one_round(reply: AIMessage, tools: list[Any], **kw: Any) -> Trajectory:
    return run_agent_sync(ScriptedChatModel([reply, "done"]), tools, "go", **kw)


def tool_messages(t: Trajectory) -> list[ToolMessage]:
    return [m for m in t.messages if isinstance(m, ToolMessage)]


def test_unknown_tool_lists_available_tools() -> None:
    reply = AIMessage(content="", tool_calls=[{"name": "nope", "args": {}, "id": "c1"}])
    t = one_round(reply, [echo, explode])
    (msg,) = tool_messages(t)
    assert msg.tool_call_id == "c1" and msg.status == "error"
    assert msg.content == "Error: unknown tool 'nope'. Available tools: echo, explode."
    assert t.tool_calls()[0].status == "unknown_tool"


def test_invalid_arguments_are_not_executed() -> None:
    ran.clear()
    args = {"text": "hi", "times": "many"}
    reply = AIMessage(content="", tool_calls=[{"name": "echo", "args": args, "id": "c"}])
    t = one_round(reply, [echo])
    (msg,) = tool_messages(t)
    assert ran == []
    assert "invalid arguments for tool 'echo'" in str(msg.content)
    assert "times" in str(msg.content) and "was not run" in str(msg.content)
    assert t.tool_calls()[0].status == "invalid_args"


def test_missing_required_argument_is_invalid() -> None:
    reply = AIMessage(content="", tool_calls=[{"name": "echo", "args": {}, "id": "c"}])
    t = one_round(reply, [echo])
    assert t.tool_calls()[0].status == "invalid_args"
    assert "text: Field required" in str(tool_messages(t)[0].content)


def test_malformed_calls_are_never_run_and_never_become_empty_args() -> None:
    ran.clear()
    reply = AIMessage(
        content="",
        tool_calls=[{"name": "echo", "args": {"text": "ok"}, "id": "good"}],
        invalid_tool_calls=[
            {"name": "echo", "args": '{"text": "tru', "id": "bad", "error": "Unterminated string"}
        ],
    )
    t = one_round(reply, [echo])
    assert ran == ["ok"]
    good, bad = t.tool_calls()
    assert good.status == "ok"
    assert bad.status == "malformed" and bad.args is None and bad.raw_args == '{"text": "tru'
    assert [m.tool_call_id for m in tool_messages(t)] == ["good", "bad"]
    assert "not valid JSON" in str(tool_messages(t)[1].content)
    # The assistant message on the wire still lists the malformed call, raw text intact.
    wire = t.to_openai_messages()[1]["tool_calls"]
    assert wire[1]["id"] == "bad" and wire[1]["function"]["arguments"] == '{"text": "tru'
    assert_valid_openai_conversation(t)


def test_a_raising_tool_is_contained_and_others_still_run() -> None:
    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "explode", "args": {"reason": "disk full"}, "id": "x"},
            {"name": "echo", "args": {"text": "still here"}, "id": "y"},
        ],
    )
    t = one_round(reply, [echo, explode])
    boom, fine = tool_messages(t)
    assert boom.content == "Error: RuntimeError: disk full" and boom.status == "error"
    assert fine.content == "still here" and fine.status == "success"
    assert t.tool_calls()[0].error == "Error: RuntimeError: disk full"


def test_a_tool_calling_sys_exit_is_contained() -> None:
    @tool
    def quit_now() -> str:
        """Exit the process."""
        raise SystemExit(3)

    reply = AIMessage(content="", tool_calls=[{"name": "quit_now", "args": {}, "id": "q"}])
    t = one_round(reply, [quit_now])
    assert t.stop_reason == "final"
    assert t.tool_calls()[0].status == "error"
    assert tool_messages(t)[0].content == "Error: SystemExit: 3"


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_a_hanging_tool_times_out_and_others_still_run(kind: str) -> None:
    release = threading.Event()

    if kind == "async":

        @tool
        async def hang() -> str:
            """Never returns in time."""
            await anyio.sleep(10)
            return "late"

    else:

        @tool
        def hang() -> str:
            """Never returns in time."""
            release.wait(10)
            return "late"

    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "hang", "args": {}, "id": "h"},
            {"name": "echo", "args": {"text": "quick"}, "id": "q"},
        ],
    )
    started = time.perf_counter()
    t = one_round(reply, [hang, echo], tool_timeout=0.2)
    release.set()
    assert time.perf_counter() - started < 5
    slow, quick = t.tool_calls()
    assert slow.status == "timeout" and 0.15 < slow.duration_s < 5
    assert "did not finish within 0.2 s" in (slow.error or "")
    assert quick.status == "ok"


def test_missing_and_duplicate_ids_are_replaced_and_originals_kept() -> None:
    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "echo", "args": {"text": "a"}, "id": "dup"},
            {"name": "echo", "args": {"text": "b"}, "id": "dup"},
            {"name": "echo", "args": {"text": "c"}, "id": None},
            {"name": "echo", "args": {"text": "d"}, "id": ""},
        ],
    )
    t = one_round(reply, [echo])
    records = t.tool_calls()
    ids = [r.id for r in records]
    assert len(set(ids)) == 4 and ids[0] == "dup"
    assert [r.original_id for r in records] == [None, "dup", None, ""]
    assert [m.tool_call_id for m in tool_messages(t)] == ids
    assert [c["id"] for c in t.to_openai_messages()[1]["tool_calls"]] == ids
    assert_valid_openai_conversation(t)


def test_ids_repeated_across_rounds_are_made_unique() -> None:
    first = AIMessage(content="", tool_calls=[{"name": "echo", "args": {"text": "1"}, "id": "c"}])
    second = AIMessage(content="", tool_calls=[{"name": "echo", "args": {"text": "2"}, "id": "c"}])
    t = run_agent_sync(ScriptedChatModel([first, second, "end"]), [echo], "go")
    a, b = t.tool_calls()
    assert a.id == "c" and b.id != "c" and b.original_id == "c"
    assert_valid_openai_conversation(t)


def test_stateful_class_tool_keeps_state_and_validates_with_its_schema() -> None:
    counter = CounterTool()
    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "counter", "args": {"step": 2}, "id": "a"},
            {"name": "counter", "args": {"step": 0}, "id": "b"},
        ],
    )
    t = one_round(reply, [counter], parallel_tool_calls=False)
    assert counter.total == 2
    assert [c.status for c in t.tool_calls()] == ["ok", "invalid_args"]
    assert "greater than or equal to 1" in str(tool_messages(t)[1].content)


def test_results_are_strings_and_long_results_are_truncated() -> None:
    @tool
    def big() -> list[int]:
        """A long list."""
        return list(range(5000))

    reply = AIMessage(content="", tool_calls=[{"name": "big", "args": {}, "id": "c"}])
    t = one_round(reply, [big], max_tool_output_chars=100)
    (msg,) = tool_messages(t)
    assert isinstance(msg.content, str)
    assert msg.content.startswith("[0, 1, 2") and "[truncated: showing 100 of" in msg.content


def test_duplicate_tool_names_are_rejected() -> None:
    with pytest.raises(ValueError, match="two tools are named 'echo'"):
        ToolDispatcher([echo, echo])


def test_every_call_answered_once_under_a_random_mix() -> None:
    statuses = []
    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "echo", "args": {"text": "x"}, "id": "1"},
            {"name": "missing", "args": {"q": 1}, "id": "2"},
            {"name": "echo", "args": {"nope": 1}, "id": "3"},
            {"name": "explode", "args": {"reason": "r"}, "id": None},
        ],
        invalid_tool_calls=[{"name": "echo", "args": "{", "id": "5", "error": "eof"}],
    )
    t = one_round(reply, [echo, explode])
    statuses = [c.status for c in t.tool_calls()]
    assert statuses == ["ok", "unknown_tool", "invalid_args", "error", "malformed"]
    assert t.tool_calls_by_status == {
        "ok": 1, "unknown_tool": 1, "invalid_args": 1, "error": 1, "malformed": 1
    }
    assert len(tool_messages(t)) == 5
    assert json.loads(t.model_dump_json())["stop_reason"] == "final"
    assert_valid_openai_conversation(t)
