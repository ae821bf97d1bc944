"""Sync tools run in daemon threads: a hung tool never hangs the process, and a call
never waits for a free thread on the timeout's clock."""

from __future__ import annotations

import contextvars
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import anyio
import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from agentloop import run_agent_sync
from agentloop.engine._threads import run_in_daemon_thread
from agentloop.testing import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[2]

HUNG_RUN = textwrap.dedent(
    """
    import asyncio
    import sys
    import time

    from langchain_core.messages import AIMessage
    from langchain_core.tools import BaseTool, tool

    from agentloop import run_agent, run_agent_sync
    from agentloop.testing import ScriptedChatModel


    @tool
    def hang() -> str:
        \"\"\"Sleeps far past the timeout.\"\"\"
        time.sleep(60)
        return "late"


    class Stuck(BaseTool):
        name: str = "stuck"
        description: str = "Sleeps far past the timeout, too."

        def _run(self) -> str:
            time.sleep(60)
            return "late"


    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "hang", "args": {}, "id": "h"},
            {"name": "stuck", "args": {}, "id": "s"},
        ],
    )
    args = (ScriptedChatModel([reply, "done"]), [hang, Stuck()], "go")
    if sys.argv[1] == "sync":
        t = run_agent_sync(*args, tool_timeout=0.5)
    else:  # the async API on the caller's own event loop, in the main thread
        t = asyncio.run(run_agent(*args, tool_timeout=0.5))
    print(t.stop_reason, *[c.status for c in t.tool_calls()])
    """
)


@pytest.mark.parametrize("entry", ["sync", "async"])
def test_a_hung_sync_tool_does_not_keep_the_process_alive(entry: str) -> None:
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", HUNG_RUN, entry],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=20,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the process was still running 20 s after a 0.5 s tool timeout")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["final", "timeout", "timeout"]
    assert time.perf_counter() - started < 20


def test_waiting_for_a_thread_does_not_count_against_the_timeout() -> None:
    # 100 calls of 0.5 s at once; a pool of 40 threads would start the last ones at 1 s.
    @tool
    def nap(i: int) -> int:
        """Sleep half a second."""
        time.sleep(0.5)
        return i

    reply = AIMessage(
        content="",
        tool_calls=[{"name": "nap", "args": {"i": i}, "id": f"n{i}"} for i in range(100)],
    )
    t = run_agent_sync(ScriptedChatModel([reply, "done"]), [nap], "go", tool_timeout=1.3)
    assert t.tool_calls_by_status == {"ok": 100}


def test_workers_are_daemons_and_see_the_callers_context_variables() -> None:
    seen: list[tuple[bool, str]] = []
    label: contextvars.ContextVar[str] = contextvars.ContextVar("label", default="unset")

    def probe() -> str:
        seen.append((threading.current_thread().daemon, label.get()))
        return "probed"

    async def main() -> str:
        label.set("caller")
        return await run_in_daemon_thread(probe)

    assert anyio.run(main) == "probed"
    assert seen == [(True, "caller")]


def test_errors_in_the_thread_reach_the_caller() -> None:
    def fail() -> None:
        raise SystemExit(4)

    async def main() -> None:
        await run_in_daemon_thread(fail)

    with pytest.raises(SystemExit, match="4"):
        anyio.run(main)


def test_an_abandoned_call_finishing_after_its_loop_closed_is_harmless() -> None:
    release = threading.Event()
    finished = threading.Event()

    def slow() -> str:
        release.wait(10)
        finished.set()
        return "late"

    async def main() -> None:
        with anyio.move_on_after(0.05):
            await run_in_daemon_thread(slow)

    anyio.run(main)  # the loop is closed once this returns
    release.set()
    assert finished.wait(10)

    async def again() -> str:
        return await run_in_daemon_thread(lambda: "still works")

    assert anyio.run(again) == "still works"
