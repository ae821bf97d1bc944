"""The tool-call loop: call the model, run the tools it asks for, repeat, record everything."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Sequence
from typing import Any

import anyio
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, convert_to_messages
from langchain_core.tools import BaseTool
from langchain_core.tools import tool as as_tool

from agentloop.engine._dispatch import ToolDispatcher
from agentloop.engine._reply import CallIds, ContentCallParser, pending_calls
from agentloop.engine._retry import RetryPolicy, call_with_retry
from agentloop.engine._serialize import DEFAULT_MAX_TOOL_OUTPUT_CHARS
from agentloop.engine._trajectory import StepRecord, TokenUsage, Trajectory

__all__ = [
    "MessagesInput",
    "ToolsInput",
    "run_agent",
    "run_agent_sync",
    "split_tools",
]

MessagesInput = str | Sequence[BaseMessage | dict[str, Any]]
ToolsInput = Sequence[BaseTool | Callable[..., Any] | dict[str, Any]]

_SECRET_WORDS = ("key", "secret", "token", "password", "credential", "auth")


def _to_messages(messages: MessagesInput) -> list[BaseMessage]:
    if isinstance(messages, str):
        return [HumanMessage(content=messages)]
    return list(convert_to_messages(list(messages)))


def split_tools(tools: ToolsInput) -> tuple[list[BaseTool], list[Any]]:
    """Executable tools, and everything to bind (schema-only dicts are bound, never run)."""
    runnable: list[BaseTool] = []
    bindable: list[Any] = []
    for item in tools:
        if isinstance(item, BaseTool):
            runnable.append(item)
            bindable.append(item)
        elif isinstance(item, dict):
            bindable.append(item)
        elif callable(item):
            wrapped = as_tool(item)
            runnable.append(wrapped)
            bindable.append(wrapped)
        else:
            raise TypeError(f"not a tool: {item!r} (expected a BaseTool, a function or a schema)")
    return runnable, bindable


def describe_model(model: Any) -> dict[str, Any]:
    """Model name and sampling parameters, from LangChain's tracing params; never secrets."""
    try:
        params = model._get_ls_params()
    except Exception:
        params = {}
    info: dict[str, Any] = {}
    for key, value in params.items():
        name = key.removeprefix("ls_")
        if name == "max_tokens" or not any(w in name.lower() for w in _SECRET_WORDS):
            info[name] = value
    return info


def _usage(message: AIMessage) -> TokenUsage | None:
    meta = message.usage_metadata
    if not meta:
        return None
    return TokenUsage(
        input_tokens=meta.get("input_tokens", 0),
        output_tokens=meta.get("output_tokens", 0),
        total_tokens=meta.get("total_tokens", 0),
    )


async def run_agent(
    model: BaseChatModel,
    tools: ToolsInput,
    messages: MessagesInput,
    *,
    max_rounds: int = 5,
    tool_timeout: float | None = None,
    parallel_tool_calls: bool = True,
    tool_choice: str | dict[str, Any] | None = None,
    max_tool_output_chars: int | None = DEFAULT_MAX_TOOL_OUTPUT_CHARS,
    retry: RetryPolicy | None = None,
    parse_content_tool_calls: ContentCallParser | None = None,
    raise_on_error: bool = False,
    dispatcher: ToolDispatcher | None = None,
) -> Trajectory:
    """Run the tool loop until the model answers, the round cap is hit, or the model fails.

    A round is one model call that requests tools plus the execution of those calls.
    After ``max_rounds`` rounds the model is called once more to answer; tools it still
    requests are answered with an error and not run (``stop_reason="max_rounds"``).
    ``parallel_tool_calls`` is sent to the provider only when false; one round's calls
    then run one by one. ``retry`` (default: ``RetryPolicy()``) retries temporary model
    errors; retries never count as rounds. A model error ends the run with
    ``stop_reason="error"`` unless ``raise_on_error`` is set. ``dispatcher`` replaces
    tool execution (replay serves recorded results through it); ``tools`` are then
    only bound.
    """
    if max_rounds < 0:
        raise ValueError(f"max_rounds must be >= 0, got {max_rounds}")
    started = time.perf_counter()
    history = _to_messages(messages)
    runnable, bindable = split_tools(tools)
    if dispatcher is None:
        dispatcher = ToolDispatcher(
            runnable, timeout=tool_timeout, max_output_chars=max_tool_output_chars
        )
    bound: Any = model
    if bindable:
        bind_kwargs: dict[str, Any] = {}
        if tool_choice is not None:
            bind_kwargs["tool_choice"] = tool_choice
        if not parallel_tool_calls:
            bind_kwargs["parallel_tool_calls"] = False
        bound = model.bind_tools(bindable, **bind_kwargs)
    policy = RetryPolicy() if retry is None else retry
    ids = CallIds(history)
    steps: list[StepRecord] = []
    rounds = 0

    def finish(stop: Any, error: str | None = None) -> Trajectory:
        return Trajectory.build(
            history,
            steps,
            stop,
            error=error,
            wall_time_s=time.perf_counter() - started,
            model=describe_model(model),
        )

    while True:
        retries = 0

        def count_retry(attempt: int, _exc: BaseException, _delay: float) -> None:
            nonlocal retries
            retries = attempt

        call_started = time.perf_counter()
        try:
            reply = await call_with_retry(lambda: bound.ainvoke(history), policy, count_retry)
        except Exception as exc:
            if raise_on_error:
                raise
            latency = time.perf_counter() - call_started
            steps.append(StepRecord(latency_s=latency, retries=retries))
            return finish("error", f"{type(exc).__name__}: {exc}")
        latency = time.perf_counter() - call_started
        if not isinstance(reply, AIMessage):
            reply = AIMessage(content=getattr(reply, "content", str(reply)))
        reply, calls = pending_calls(reply, ids, len(steps), parse_content_tool_calls)
        history.append(reply)
        if not calls:
            steps.append(StepRecord(latency_s=latency, usage=_usage(reply), retries=retries))
            return finish("final")
        out_of_rounds = rounds >= max_rounds
        if out_of_rounds:
            tool_messages, records = dispatcher.refuse(calls, max_rounds)
        else:
            tool_messages, records = await dispatcher.run(calls, parallel=parallel_tool_calls)
            rounds += 1
        history.extend(tool_messages)
        steps.append(
            StepRecord(latency_s=latency, usage=_usage(reply), retries=retries, tool_calls=records)
        )
        if out_of_rounds:
            return finish("max_rounds")


def run_agent_sync(
    model: BaseChatModel, tools: ToolsInput, messages: MessagesInput, **options: Any
) -> Trajectory:
    """``run_agent`` for synchronous callers (same arguments, same result)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(functools.partial(run_agent, model, tools, messages, **options))
    raise RuntimeError(
        "run_agent_sync was called inside a running event loop; await run_agent instead"
    )
