"""The tool-call loop: call the model, run the tools it asks for, repeat, record everything."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, convert_to_messages
from langchain_core.tools import BaseTool
from langchain_core.tools import tool as as_tool
from langchain_core.utils.function_calling import convert_to_openai_tool

from agentloop._secrets import is_secret_name
from agentloop.engine._dispatch import PendingCall, ToolDispatcher
from agentloop.engine._executor import ExecutorFactory, ToolExecutor
from agentloop.engine._reply import CallIds, ContentCallParser, pending_calls
from agentloop.engine._retry import RetryPolicy, call_with_retry
from agentloop.engine._serialize import DEFAULT_MAX_TOOL_OUTPUT_CHARS
from agentloop.engine._sync import run_sync
from agentloop.engine._trajectory import (
    StepRecord,
    StopReason,
    TokenUsage,
    ToolCallRecord,
    Trajectory,
)

__all__ = [
    "MessagesInput",
    "ToolExecution",
    "ToolsInput",
    "run_agent",
    "run_agent_sync",
    "split_tools",
]

MessagesInput = str | Sequence[BaseMessage | dict[str, Any]]
ToolsInput = Sequence[BaseTool | Callable[..., Any] | dict[str, Any]]
ToolExecution = Literal["parallel", "sequential"]

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


def _schema_name(schema: dict[str, Any]) -> str:
    name: str = convert_to_openai_tool(schema)["function"]["name"]
    return name


def describe_model(model: Any) -> dict[str, Any]:
    """Model name and sampling parameters, from LangChain's tracing params; never secrets."""
    try:
        params = model._get_ls_params()
    except Exception:
        params = {}
    info: dict[str, Any] = {}
    for key, value in params.items():
        name = key.removeprefix("ls_")
        if not is_secret_name(name):
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


def _content_parser(option: bool | ContentCallParser | None) -> ContentCallParser | None:
    if option is None or option is False:
        return None
    if option is True:
        from agentloop.engine._content_calls import parse_content_tool_calls

        return parse_content_tool_calls
    if callable(option):
        return option
    raise TypeError(
        f"parse_content_tool_calls must be a bool or a parser function, not {option!r}"
    )


def _not_run(calls: Sequence[PendingCall]) -> list[ToolCallRecord]:
    """Records of calls a single-turn evaluation keeps without running them."""
    return [
        ToolCallRecord(
            id=c.id,
            original_id=c.original_id,
            name=c.name,
            args=c.args,
            raw_args=c.raw_args,
            status="not_run",
            recovered=c.recovered,
        )
        for c in calls
    ]


async def run_agent(
    model: BaseChatModel,
    tools: ToolsInput,
    messages: MessagesInput,
    *,
    max_rounds: int = 5,
    single_turn: bool = False,
    tool_timeout: float | None = None,
    parallel_tool_calls: bool = True,
    tool_execution: ToolExecution = "parallel",
    tool_choice: str | dict[str, Any] | None = None,
    max_tool_output_chars: int | None = DEFAULT_MAX_TOOL_OUTPUT_CHARS,
    retry: RetryPolicy | None = None,
    parse_content_tool_calls: bool | ContentCallParser = False,
    raise_on_error: bool = False,
    tool_executor: ExecutorFactory | None = None,
) -> Trajectory:
    """Run the tool loop until the model answers, the round cap is hit, or the model fails.

    A round is one model call that requests tools plus the execution of those calls.
    After ``max_rounds`` rounds the model is called once more to answer; tools it still
    requests are answered with an error and not run (``stop_reason="max_rounds"``).
    ``single_turn`` calls the model once and records the calls it asks for without
    running them (``stop_reason="tool_calls"``, call status ``not_run``), the way
    tool-call benchmarks score a first reply.

    ``parallel_tool_calls`` is only what the provider is asked (sent when false);
    ``tool_execution`` decides how one round's calls run: ``parallel`` (concurrently,
    results in call order) or ``sequential`` (one by one, in call order).
    ``tool_timeout`` (seconds) and ``max_tool_output_chars`` apply to every call.
    ``retry`` (default: ``RetryPolicy()``) retries temporary model errors; retries never
    count as rounds. A model error ends the run with ``stop_reason="error"`` unless
    ``raise_on_error`` is set. ``parse_content_tool_calls``: True recovers
    ``<tool_call>`` blocks a server left in the text, or pass your own parser.
    ``tool_executor`` receives the dispatcher built here and returns what answers the
    calls instead (replay serves recorded results this way).
    """
    if max_rounds < 0:
        raise ValueError(f"max_rounds must be >= 0, got {max_rounds}")
    if tool_execution not in ("parallel", "sequential"):
        raise ValueError(
            f"tool_execution must be 'parallel' or 'sequential', not {tool_execution!r}"
        )
    parse_content = _content_parser(parse_content_tool_calls)
    started = time.perf_counter()
    history = _to_messages(messages)
    runnable, bindable = split_tools(tools)
    dispatcher = ToolDispatcher(
        runnable,
        timeout=tool_timeout,
        max_output_chars=max_tool_output_chars,
        schema_only=[_schema_name(b) for b in bindable if isinstance(b, dict)],
    )
    executor: ToolExecutor = dispatcher if tool_executor is None else tool_executor(dispatcher)
    parallel = tool_execution == "parallel"
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

    def finish(stop: StopReason, error: str | None = None) -> Trajectory:
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
        reply, calls = pending_calls(reply, ids, len(steps), parse_content)
        history.append(reply)
        step = StepRecord(latency_s=latency, usage=_usage(reply), retries=retries)
        steps.append(step)
        if not calls:
            return finish("final")
        if single_turn:
            step.tool_calls = _not_run(calls)
            return finish("tool_calls")
        out_of_rounds = rounds >= max_rounds
        if out_of_rounds:
            tool_messages, step.tool_calls = executor.refuse(calls, max_rounds)
        else:
            tool_messages, step.tool_calls = await executor.run(calls, parallel=parallel)
            rounds += 1
        history.extend(tool_messages)
        if out_of_rounds:
            return finish("max_rounds")


def run_agent_sync(
    model: BaseChatModel, tools: ToolsInput, messages: MessagesInput, **options: Any
) -> Trajectory:
    """``run_agent`` for synchronous callers (same arguments, same result).

    Every call runs on one background event loop, so a model client that keeps
    connections alive (``ChatOpenAI``) can be used by repeated calls.
    """
    return run_sync(lambda: run_agent(model, tools, messages, **options), "run_agent")
