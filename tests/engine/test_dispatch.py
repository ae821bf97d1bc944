"""Every tool call gets exactly one ToolMessage with its id, whatever goes wrong."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool, ToolException, tool
from pydantic import BaseModel, Field

import agentloop
from agentloop import Trajectory, run_agent_sync
from agentloop.engine._dispatch import PendingCall, ToolDispatcher
from agentloop.testing import ScriptedChatModel
from tests.engine.test_invoke import OBSERVERS, observed_by
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


def test_an_unknown_tool_text_of_ones_own() -> None:
    reply = AIMessage(content="", tool_calls=[{"name": "nope", "args": {}, "id": "c1"}])
    t = one_round(reply, [echo], unknown_tool="No {name} here ({available}); {{literal}}")
    (msg,) = tool_messages(t)
    assert msg.content == "No nope here (echo); {literal}" and msg.status == "error"
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


# --- Results that cannot become text ------------------------------------------------------


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text for you")

    __repr__ = __str__


class HoldsLock(BaseModel):
    """Dumps to Python, but not to JSON: a lock has no JSON form."""

    name: str
    lock: Any


@tool
def unprintable() -> Any:
    """Returns an object whose text cannot be read."""
    return Unprintable()


@tool
async def locked() -> Any:
    """Returns a model that cannot be dumped to JSON."""
    return HoldsLock(name="x", lock=threading.Lock())


class Snapshot(BaseTool):
    """A class-based tool (always called through LangChain) with such a result."""

    name: str = "snapshot"
    description: str = "Take a snapshot."

    def _run(self) -> Any:
        return HoldsLock(name="snap", lock=threading.Lock())


class Mute(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message either")


@tool
def mute() -> str:
    """Raises an exception whose message cannot be read."""
    raise Mute()


@pytest.mark.parametrize("observer", OBSERVERS)
def test_a_result_that_cannot_become_text_is_that_calls_error(observer: str) -> None:
    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "unprintable", "args": {}, "id": "u"},
            {"name": "locked", "args": {}, "id": "l"},
            {"name": "snapshot", "args": {}, "id": "s"},
            {"name": "echo", "args": {"text": "fine"}, "id": "e"},
        ],
    )
    with observed_by(observer):
        t = one_round(reply, [unprintable, locked, Snapshot(), echo])
    assert t.stop_reason == "final" and t.final_answer == "done"
    assert [c.status for c in t.tool_calls()] == ["error", "error", "error", "ok"]
    messages = tool_messages(t)
    assert [m.tool_call_id for m in messages] == ["u", "l", "s", "e"]
    for name, message in zip(["unprintable", "locked", "snapshot"], messages, strict=False):
        assert message.status == "error"
        assert f"the result of tool '{name}' could not be turned into text" in str(
            message.content
        )
    assert "no text for you" in str(messages[0].content)
    assert messages[3].content == "fine" and messages[3].status == "success"
    assert_valid_openai_conversation(t)


@pytest.mark.parametrize("observer", OBSERVERS)
def test_an_exception_whose_message_cannot_be_read_is_contained(observer: str) -> None:
    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "mute", "args": {}, "id": "m"},
            {"name": "echo", "args": {"text": "fine"}, "id": "e"},
        ],
    )
    with observed_by(observer):
        t = one_round(reply, [mute, echo])
    assert [c.status for c in t.tool_calls()] == ["error", "ok"]
    assert tool_messages(t)[0].content == "Error: Mute (its message could not be read)"


# --- Tools offered by schema only ---------------------------------------------------------


def dispatch(dispatcher: ToolDispatcher, *calls: PendingCall) -> list[tuple[str, str]]:
    async def go() -> tuple[list[ToolMessage], list[Any]]:
        return await dispatcher.run(calls)

    messages, records = anyio.run(go)
    assert [m.tool_call_id for m in messages] == [c.id for c in calls]
    return [(r.status, str(m.content)) for m, r in zip(messages, records, strict=True)]


def test_a_schema_only_tool_is_answered_as_having_no_implementation() -> None:
    dispatcher = ToolDispatcher([echo], schema_only=["lookup"])
    got = dispatch(
        dispatcher,
        PendingCall("a", "lookup", {"q": "x"}),
        PendingCall("b", "nope", {}),
        PendingCall("c", "echo", {"text": "hi"}),
    )
    assert got == [
        (
            "no_implementation",
            "Error: tool 'lookup' has no implementation in this evaluation; it was not run.",
        ),
        ("unknown_tool", "Error: unknown tool 'nope'. Available tools: echo, lookup."),
        ("ok", "hi"),
    ]


def test_a_name_cannot_be_both_implemented_and_schema_only() -> None:
    with pytest.raises(ValueError, match="both as tools and as schema-only"):
        ToolDispatcher([echo], schema_only=["echo"])


# --- Class-based tools keep state: their calls run one at a time ----------------------------


class LedgerInput(BaseModel):
    entry: str
    seconds: float = 0.05


class Ledger(BaseTool):
    """Appends entries; records how many of its calls ever ran at once."""

    name: str = "ledger"
    description: str = "Write an entry."
    args_schema: type[BaseModel] = LedgerInput
    entries: list[str] = Field(default_factory=list)
    active: int = 0
    most_active: int = 0

    def _enter(self) -> None:
        self.active += 1
        self.most_active = max(self.most_active, self.active)

    def _run(self, entry: str, seconds: float = 0.05) -> str:
        self._enter()
        time.sleep(seconds)
        self.entries.append(entry)
        self.active -= 1
        return entry


class AsyncLedger(Ledger):
    name: str = "async_ledger"

    async def _arun(self, entry: str, seconds: float = 0.05) -> str:
        self._enter()
        await anyio.sleep(seconds)
        self.entries.append(entry)
        self.active -= 1
        return entry


@pytest.mark.parametrize("kind", [Ledger, AsyncLedger])
def test_calls_to_one_class_based_tool_run_one_at_a_time_in_call_order(
    kind: type[Ledger],
) -> None:
    ledger = kind()
    entries = [f"e{i}" for i in range(6)]
    reply = AIMessage(
        content="",
        tool_calls=[{"name": ledger.name, "args": {"entry": e}, "id": e} for e in entries],
    )
    t = one_round(reply, [ledger])
    assert [c.status for c in t.tool_calls()] == ["ok"] * 6
    assert ledger.most_active == 1
    assert ledger.entries == entries


def test_different_tools_and_plain_functions_still_run_concurrently() -> None:
    # Each call waits for all the others: the round only succeeds if they overlap.
    meeting = threading.Barrier(4, timeout=10)

    @tool
    def meet(who: str) -> str:
        """Wait for the others."""
        meeting.wait()
        return who

    class Meeter(BaseTool):
        description: str = "Wait for the others."

        def _run(self) -> str:
            meeting.wait()
            return self.name

    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "meet", "args": {"who": "a"}, "id": "1"},
            {"name": "meet", "args": {"who": "b"}, "id": "2"},
            {"name": "left", "args": {}, "id": "3"},
            {"name": "right", "args": {}, "id": "4"},
        ],
    )
    t = one_round(reply, [meet, Meeter(name="left"), Meeter(name="right")])
    assert [str(m.content) for m in tool_messages(t)] == ["a", "b", "left", "right"]


def test_waiting_for_a_class_based_tool_does_not_count_against_the_timeout() -> None:
    ledger = Ledger()
    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "ledger", "args": {"entry": e, "seconds": 0.4}, "id": e}
            for e in ["a", "b", "c"]
        ],
    )
    t = one_round(reply, [ledger], tool_timeout=1.0)  # 1.2 s in all, 0.4 s each
    assert [c.status for c in t.tool_calls()] == ["ok", "ok", "ok"]
    assert ledger.entries == ["a", "b", "c"]


def test_a_timed_out_call_keeps_its_class_based_tool_until_its_thread_ends() -> None:
    # The instance ran several calls at once: each call timed out and freed it while its
    # thread still ran. One call at a time per instance holds through timeouts, and a
    # later call waits for the thread at most its own timeout.
    ledger = Ledger()
    slow = AIMessage(
        content="",
        tool_calls=[
            {"name": "ledger", "args": {"entry": "a", "seconds": 1.25}, "id": "a"},
            {"name": "ledger", "args": {"entry": "b", "seconds": 1.25}, "id": "b"},
        ],
    )
    later = AIMessage(
        content="", tool_calls=[{"name": "ledger", "args": {"entry": "c"}, "id": "c"}]
    )
    model = ScriptedChatModel([slow, later, "done"])
    # a: cancelled at 0.5 s, its thread runs to 1.25 s; b waits for it until 1.0 s, then
    # times out unrun; c, from 1.0 s, waits for a's thread (up to 1.5 s), then runs.
    t = run_agent_sync(model, [ledger], "go", tool_timeout=0.5)
    assert [c.status for c in t.tool_calls()] == ["timeout", "timeout", "ok"]
    assert "was still running an earlier call" in str(tool_messages(t)[1].content)
    assert ledger.most_active == 1
    assert ledger.entries == ["a", "c"]


def test_a_tools_own_bug_is_recorded_with_its_type_and_frames() -> None:
    # A KeyError looked like a deliberate tool error: no type, no traceback anywhere.
    @tool
    def lookup(key: str) -> str:
        """Look a key up."""
        table: dict[str, str] = {}
        return table[key]

    @tool
    def refuse(key: str) -> str:
        """Refuse, telling the model why."""
        raise ToolException(f"no account {key}")

    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "lookup", "args": {"key": "k"}, "id": "1"},
            {"name": "refuse", "args": {"key": "k"}, "id": "2"},
        ],
    )
    bug, told = one_round(reply, [lookup, refuse]).tool_calls()
    assert (bug.status, bug.exception) == ("error", "KeyError")
    assert bug.traceback is not None and "in lookup" in bug.traceback
    assert "return table[key]" in bug.traceback
    # No frame of agentloop's own package (the test file's path may contain the word: a clone
    # is named agentloop).
    package = str(Path(agentloop.__file__).parent)
    files = re.findall(r'File "([^"]+)"', bug.traceback)
    assert files and not [f for f in files if f.startswith(package)]
    assert bug.traceback.endswith("KeyError: 'k'")
    assert (told.status, told.exception, told.traceback) == ("error", None, None)
    assert told.error == "Error: ToolException: no account k"


def test_a_tool_failure_may_be_told_verbatim() -> None:
    # AgentDojo's model reads a failed call's error alone ("ValueError: ..."), without the
    # "Error: " that agentloop's other tool failures begin with.
    from agentloop.engine import ToolFailure

    @tool
    def plain(key: str) -> str:
        """Fail as tau2-bench tools fail."""
        raise ToolFailure(f"no account {key}")

    @tool
    def verbatim(key: str) -> str:
        """Fail as AgentDojo's runtime answers."""
        raise ToolFailure(f"ValueError: no account {key}", verbatim=True)

    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "plain", "args": {"key": "k"}, "id": "1"},
            {"name": "verbatim", "args": {"key": "k"}, "id": "2"},
        ],
    )
    t = one_round(reply, [plain, verbatim])
    assert [m.content for m in tool_messages(t)] == [
        "Error: no account k", "ValueError: no account k"
    ]
    assert [(c.status, c.exception, c.error) for c in t.tool_calls()] == [
        ("error", None, "Error: no account k"), ("error", None, "ValueError: no account k")
    ]
