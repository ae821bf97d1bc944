"""An agent of your own, run on agentloop's model and tools and recorded like the loop's run.

A factory receives the chat model and the tools (``_observer``: every request and every
call goes through agentloop) and returns the agent: a LangChain ``Runnable`` or LangGraph
graph over ``{"messages": [...]}`` (``create_react_agent``'s convention), or an async
callable taking the messages and returning messages, or its final answer alone (a string:
an agent in another process, ``agentloop.harness.run._command_agent``). The trajectory is
what agentloop observed; the messages the agent returns are checked against it, and a
difference is a note, not a change of the record.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, convert_to_messages
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from agentloop.engine._defaults import DEFAULT_TOOL_TIMEOUT
from agentloop.engine._dispatch import ToolDispatcher
from agentloop.engine._loop import MessagesInput, _to_messages, describe_model
from agentloop.engine._observer import AgentStopped, ObservedModel, ObservedTool, Observer
from agentloop.engine._reply import ContentCallParser
from agentloop.engine._retry import RetryPolicy
from agentloop.engine._rounds import AtMaxRounds, ToolsInput, split_tools
from agentloop.engine._serialize import DEFAULT_MAX_TOOL_OUTPUT_CHARS
from agentloop.engine._tool_executor import ExecutorFactory
from agentloop.engine._trajectory import StopReason, Trajectory, TurnRecord
from agentloop.engine._wire import message_to_openai

__all__ = ["AgentFactory", "OwnAgentRun", "run_own_agent"]

AgentFactory = Callable[..., Any]
"""``factory(model, tools, **args)``: the agent (a Runnable over ``{"messages": [...]}`` or
an async callable over messages); may be async itself."""


@dataclass
class OwnAgentRun:
    """What running an agent of your own gave."""

    trajectory: Trajectory
    """What agentloop observed, in the loop's record format."""
    failed: Literal["agent", "model"] | None = None
    """Who ended the run with an error (``trajectory.error`` says how), if anyone did."""
    notes: list[str] = field(default_factory=list)
    """Where the agent's own account differs from the record, one line each."""


def _observed_tools(tools: Sequence[Any], observer: Observer) -> list[ObservedTool]:
    proxies = []
    for item in tools:
        if isinstance(item, BaseTool):
            name, description, schema = item.name, item.description, item.tool_call_schema
        else:
            function = convert_to_openai_tool(item)["function"]
            name, description = function["name"], function.get("description", "")
            schema = function.get("parameters") or {"type": "object", "properties": {}}
        proxies.append(
            ObservedTool(name=name, description=description, args_schema=schema, observer=observer)
        )
    return proxies


async def _invoke(agent: Any, messages: list[BaseMessage], recursion_limit: int) -> Any:
    if hasattr(agent, "ainvoke"):  # a Runnable: a LangGraph graph, a LangChain chain
        config = {"recursion_limit": recursion_limit}
        return await agent.ainvoke({"messages": messages}, config=config)
    if not callable(agent):
        raise TypeError(
            f"the factory returned {type(agent).__name__}; expected a Runnable over "
            "{'messages': [...]} or an async callable over messages"
        )
    result = agent(messages)
    return await result if inspect.isawaitable(result) else result


def _returned_messages(result: Any) -> list[BaseMessage]:
    if isinstance(result, dict) and "messages" in result:
        result = result["messages"]
    if not isinstance(result, list | tuple):
        raise TypeError(
            f"the agent returned {type(result).__name__}; expected messages or "
            "{'messages': [...]}"
        )
    return list(convert_to_messages(list(result)))


def _difference(returned: list[BaseMessage], observed: list[BaseMessage]) -> str | None:
    """Where the agent's messages part from the record (system messages the agent added
    to its own requests aside), or None."""
    theirs = [message_to_openai(m) for m in returned]
    ours = [message_to_openai(m) for m in observed]
    theirs = [m for m in theirs if m["role"] != "system" or m in ours]
    for index, (a, b) in enumerate(zip(theirs, ours, strict=False)):
        if a != b:
            return (
                f"the agent's message {index} ({a['role']}) is not the one agentloop recorded "
                f"({b['role']}); the record is scored"
            )
    if len(theirs) != len(ours):
        return (
            f"the agent returned {len(theirs)} messages and agentloop recorded {len(ours)}; "
            "the record is scored"
        )
    return None


async def run_own_agent(
    factory: AgentFactory,
    model: BaseChatModel,
    tools: ToolsInput,
    messages: MessagesInput,
    *,
    factory_args: dict[str, Any] | None = None,
    max_rounds: int = 5,
    at_max_rounds: AtMaxRounds = "answer",
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
    time_limit: float | None = None,
    token_limit: int | None = None,
    parallel_tool_calls: bool = True,
    tool_execution: Literal["parallel", "sequential"] = "parallel",
    tool_choice: str | dict[str, Any] | None = None,
    max_tool_output_chars: int | None = DEFAULT_MAX_TOOL_OUTPUT_CHARS,
    retry: RetryPolicy | None = None,
    parse_content_tool_calls: ContentCallParser | None = None,
    tool_executor: ExecutorFactory | None = None,
    unknown_tool: str | None = None,
    snapshot: Callable[[], Any] | None = None,
) -> OwnAgentRun:
    """Run the agent ``factory`` makes from ``model`` and ``tools`` on ``messages``, with the
    loop's limits, and record what it did as ``run_agent`` records its own run.

    The agent's model requests are retried (``retry``) and each is a step; past
    ``max_rounds`` rounds its calls are refused as the loop refuses them, and the next
    request raises ``AgentStopped`` into the agent (``stop_reason="max_rounds"``); so do
    ``token_limit`` and a model error. ``time_limit`` cancels the agent. A factory or
    agent that raises ends the run with ``stop_reason="error"`` (``failed="agent"``).
    ``snapshot`` is called when the agent is done and its value recorded as the one
    turn's ``state``, as ``run_agent`` records it.
    """
    if max_rounds < 0:
        raise ValueError(f"max_rounds must be >= 0, got {max_rounds}")
    started = time.perf_counter()
    opening = _to_messages(messages)
    runnable, bindable = split_tools(tools)
    names = _names([b for b in bindable if isinstance(b, dict)])
    dispatcher = ToolDispatcher(
        runnable,
        timeout=tool_timeout,
        max_output_chars=max_tool_output_chars,
        schema_only=names,
        unknown_tool=unknown_tool,
    )
    observer = Observer(
        model,
        dispatcher if tool_executor is None else tool_executor(dispatcher),
        dict(zip(_names(bindable), bindable, strict=True)),
        max_rounds=max_rounds,
        at_max_rounds=at_max_rounds,
        token_limit=token_limit,
        sequential=tool_execution == "sequential",
        retry=RetryPolicy() if retry is None else retry,
        parse_content=parse_content_tool_calls,
        history=opening,
        tool_choice=tool_choice,
        parallel_tool_calls=parallel_tool_calls,
    )
    stop: StopReason = "final"
    failed: Literal["agent", "model"] | None = None
    error: str | None = None
    returned: list[BaseMessage] | None = None
    # An agent loop makes two graph steps a round: room for every round, and then some.
    recursion_limit = 2 * max_rounds + 10
    with anyio.CancelScope(deadline=anyio.current_time() + (time_limit or math.inf)) as limit:
        try:
            agent = factory(
                ObservedModel(observer=observer, cache=False, disable_streaming=True),
                _observed_tools(bindable, observer),
                **(factory_args or {}),
            )
            if inspect.isawaitable(agent):
                agent = await agent
            result = await _invoke(agent, [m.model_copy() for m in opening], recursion_limit)
            if isinstance(result, str):  # an answer alone: what it did, agentloop observed
                observer.unseen_answer(result)
            else:
                returned = _returned_messages(result)
        except AgentStopped:
            pass  # the observer knows why
        except Exception as exc:
            if observer.ended != "error":
                stop, failed, error = "error", "agent", f"{type(exc).__name__}: {exc}"
    if limit.cancelled_caught:
        observer.stop_running(time_limit or 0.0)
        stop = "time_limit"
    elif observer.ended is not None and failed is None:
        stop = observer.ended
        if stop == "error":
            failed, error = "model", observer.error
    if returned is not None:
        observer.own_answers(returned)
    history = observer.history(opening)
    notes = list(observer.notes)
    if returned is not None and (found := _difference(returned, history)):
        notes.append(found)
    trajectory = Trajectory.build(
        history,
        observer.steps,
        stop,
        error=error,
        wall_time_s=time.perf_counter() - started,
        model=describe_model(model),
        turns=[TurnRecord(message_start=0, step_start=0, stop_reason=stop, state=snapshot())]
        if snapshot is not None
        else None,
    )
    return OwnAgentRun(trajectory=trajectory, failed=failed, notes=notes)


def _names(bindable: Sequence[Any]) -> list[str]:
    return [
        convert_to_openai_tool(b)["function"]["name"] if isinstance(b, dict) else b.name
        for b in bindable
    ]
