"""Calling tools directly is indistinguishable from LangChain's ainvoke, and only
happens when no callback handler would observe the tool run."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import InjectedToolArg, StructuredTool, ToolException, tool
from langchain_core.tracers.context import collect_runs

from agentloop import Trajectory, run_agent_sync
from agentloop.testing import ScriptedChatModel


@tool
async def typed(count: int, label: str = "n", scale: float = 1.0) -> dict[str, Any]:
    """Report the types it received (validated, coerced, defaults applied)."""
    return {"count": [type(count).__name__, count], "label": label, "scale": scale}


@tool
def typed_sync(count: int, label: str = "n") -> dict[str, Any]:
    """The same, sync."""
    return {"count": [type(count).__name__, count], "label": label}


@tool(response_format="content_and_artifact")
def with_artifact(q: str) -> tuple[str, dict[str, str]]:
    """Content plus an artifact."""
    return f"content for {q}", {"raw": q}


@tool
def with_config(q: str, config: RunnableConfig) -> str:
    """Reads the injected config."""
    return f"{q}: config has {sorted(config)[:1]}"


@tool
def with_injected(q: str, secret: Annotated[str, InjectedToolArg] = "none") -> str:
    """Has an injected argument."""
    return f"{q}/{secret}"


def _raise_tool_exception(q: str) -> str:
    """Fails politely."""
    raise ToolException(f"cannot do {q}")


handled = StructuredTool.from_function(_raise_tool_exception, handle_tool_error=True)

TOOLS = [typed, typed_sync, with_artifact, with_config, with_injected, handled]
CALLS = [
    ("typed", {"count": "7"}),
    ("typed", {"count": 2, "label": "x", "scale": 3}),
    ("typed_sync", {"count": "5", "label": "y"}),
    ("with_artifact", {"q": "a"}),
    ("with_config", {"q": "c"}),
    ("with_injected", {"q": "i"}),
    ("_raise_tool_exception", {"q": "z"}),
]


def run_all() -> Trajectory:
    reply = AIMessage(
        content="",
        tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(CALLS)],
    )
    return run_agent_sync(ScriptedChatModel([reply, "done"]), TOOLS, "go")


def outputs(t: Trajectory) -> list[tuple[str, str | None]]:
    return [(str(m.content), m.status) for m in t.messages if isinstance(m, ToolMessage)]


def test_direct_and_langchain_calls_give_identical_results() -> None:
    direct = run_all()
    with collect_runs() as collector:  # an active handler: every tool goes through ainvoke
        traced = run_all()
    assert outputs(direct) == outputs(traced)
    got = outputs(direct)
    assert got[0][0] == '{"count": ["int", 7], "label": "n", "scale": 1.0}'
    assert got[1][0] == '{"count": ["int", 2], "label": "x", "scale": 3.0}'
    assert got[2][0] == '{"count": ["int", 5], "label": "y"}'
    assert got[3][0] == "content for a"
    assert got[4][0].startswith("c: config has")
    assert got[5][0] == "i/none"
    assert got[6] == ("cannot do z", "success")  # the tool's own error handler answered
    assert {run.name for run in collector.traced_runs} >= {"typed", "typed_sync"}


def test_plain_tools_skip_langchain_machinery_when_nothing_observes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("ainvoke used")

    monkeypatch.setattr(StructuredTool, "ainvoke", refuse)
    monkeypatch.setattr(StructuredTool, "invoke", refuse)
    reply = AIMessage(content="", tool_calls=[{"name": "typed", "args": {"count": 1}, "id": "a"}])
    t = run_agent_sync(ScriptedChatModel([reply, "ok"]), [typed], "go")
    assert t.tool_calls()[0].status == "ok"
    with collect_runs():
        t = run_agent_sync(ScriptedChatModel([reply, "ok"]), [typed], "go")
    assert t.tool_calls()[0].status == "error" and "ainvoke used" in (t.tool_calls()[0].error or "")


def test_a_tool_with_its_own_callbacks_still_reports_to_them() -> None:
    seen: list[str] = []

    class Recorder(BaseCallbackHandler):
        def on_tool_start(self, serialized: dict[str, Any], input_str: str, **kw: Any) -> None:
            seen.append(input_str)

    async def add_one(x: int) -> int:
        """Observed by a handler."""
        return x + 1

    observed = StructuredTool.from_function(
        coroutine=add_one, name="observed", callbacks=[Recorder()]
    )

    reply = AIMessage(content="", tool_calls=[{"name": "observed", "args": {"x": 1}, "id": "a"}])
    t = run_agent_sync(ScriptedChatModel([reply, "ok"]), [observed], "go")
    assert t.messages[2].content == "2" and len(seen) == 1
