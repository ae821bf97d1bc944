"""One turn's round loop: call the model, run the calls it asks for, until it answers."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import BaseTool
from langchain_core.tools import tool as as_tool
from langchain_core.utils.function_calling import convert_to_openai_tool

from agentloop._content import content_text
from agentloop.engine._budget import Budget
from agentloop.engine._dispatch import ROUND_LIMIT, TOKEN_LIMIT, PendingCall, ToolDispatcher
from agentloop.engine._reply import CallIds, ContentCallParser, pending_calls
from agentloop.engine._request_wait import request_waits
from agentloop.engine._retry import RetryPolicy, call_with_retry
from agentloop.engine._tool_executor import ExecutorFactory, ToolExecutor
from agentloop.engine._trajectory import (
    FROM_CACHE,
    StepRecord,
    StopReason,
    TokenUsage,
    ToolCallRecord,
)

__all__ = ["AtMaxRounds", "RoundLoop", "ToolBinding", "ToolsInput", "split_tools"]

ToolsInput = Sequence[BaseTool | Callable[..., Any] | dict[str, Any]]
# What reaching max_rounds does: ask the model once more to answer (its calls refused, the
# next turn follows), or stop the conversation right after the last round (BFCL's force-quit).
AtMaxRounds = Literal["answer", "stop"]


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


def _waited(waits: list[float], latency: float) -> float:
    """The part of a model call's ``latency`` its requests spent waiting for a slot."""
    return min(sum(waits), latency)


def _usage(message: AIMessage) -> TokenUsage | None:
    meta = message.usage_metadata
    if not meta:
        return None
    return TokenUsage.from_usage_metadata(meta)


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


class ToolBinding:
    """The model bound to one set of tools, and what executes calls to them."""

    def __init__(
        self,
        model: BaseChatModel,
        tools: ToolsInput,
        *,
        tool_timeout: float | None,
        max_tool_output_chars: int | None,
        tool_executor: ExecutorFactory | None,
        unknown_tool: str | None = None,
        tool_choice: str | dict[str, Any] | None,
        parallel_tool_calls: bool,
    ) -> None:
        runnable, bindable = split_tools(tools)
        self.tools = bindable
        """What the model is bound to (an agent of your own is handed these)."""
        self.names = [_schema_name(b) if isinstance(b, dict) else b.name for b in bindable]
        dispatcher = ToolDispatcher(
            runnable,
            timeout=tool_timeout,
            max_output_chars=max_tool_output_chars,
            schema_only=[_schema_name(b) for b in bindable if isinstance(b, dict)],
            unknown_tool=unknown_tool,
        )
        self.executor: ToolExecutor = (
            dispatcher if tool_executor is None else tool_executor(dispatcher)
        )
        self.bound: Any = model
        if bindable:
            bind_kwargs: dict[str, Any] = {}
            if tool_choice is not None:
                bind_kwargs["tool_choice"] = tool_choice
            if not parallel_tool_calls:
                bind_kwargs["parallel_tool_calls"] = False
            self.bound = model.bind_tools(bindable, **bind_kwargs)


class RoundLoop:
    """The round loop of one conversation; ``run`` plays one turn on the shared history."""

    def __init__(
        self,
        history: list[BaseMessage],
        *,
        max_rounds: int,
        at_max_rounds: AtMaxRounds = "answer",
        single_turn: bool,
        parallel: bool,
        retry: RetryPolicy,
        parse_content: ContentCallParser | None,
        raise_on_error: bool,
        token_limit: int | None = None,
        budget: Budget | None = None,
        after_tools: Sequence[BaseMessage] = (),
    ) -> None:
        self.history = history
        self.after_tools = list(after_tools)
        self.budget = budget
        self.steps: list[StepRecord] = []
        self.ids = CallIds(history)
        self.max_rounds = max_rounds
        self.at_max_rounds = at_max_rounds
        self.single_turn = single_turn
        self.parallel = parallel
        self.policy = retry
        self.parse_content = parse_content
        self.raise_on_error = raise_on_error
        self.token_limit = token_limit
        self.tokens = 0
        # The step whose calls are running, for answering them if the run is stopped.
        self.running: tuple[StepRecord, Sequence[PendingCall], ToolExecutor] | None = None

    async def run(self, binding: ToolBinding) -> tuple[StopReason, str | None]:
        history, steps, rounds = self.history, self.steps, 0
        while True:
            retries = 0

            def count_retry(attempt: int, _exc: BaseException, _delay: float) -> None:
                nonlocal retries
                retries = attempt

            call_started = time.perf_counter()
            try:
                with request_waits() as waits:
                    reply = await call_with_retry(
                        lambda: binding.bound.ainvoke(history), self.policy, count_retry
                    )
            except Exception as exc:
                if self.raise_on_error:
                    raise
                latency = time.perf_counter() - call_started
                steps.append(
                    StepRecord(latency_s=latency, wait_s=_waited(waits, latency), retries=retries)
                )
                return "error", f"{type(exc).__name__}: {exc}"
            latency = time.perf_counter() - call_started
            if not isinstance(reply, AIMessage):
                reply = AIMessage(content=getattr(reply, "content", str(reply)))
            reply, calls = pending_calls(reply, self.ids, len(steps), self.parse_content)
            history.append(reply)
            step = StepRecord(
                latency_s=latency,
                wait_s=_waited(waits, latency),
                usage=_usage(reply),
                retries=retries,
                cached=reply.response_metadata.get(FROM_CACHE) is True,
            )
            steps.append(step)
            if self.budget is not None:
                self.budget.message()
            self.tokens += step.usage.total_tokens if step.usage else 0
            if not calls:
                return "final", None
            if self.single_turn:
                step.tool_calls = _not_run(calls)
                return "tool_calls", None
            executor = binding.executor
            if self.token_limit is not None and self.tokens >= self.token_limit:
                text = TOKEN_LIMIT.format(limit=self.token_limit)
                tool_messages, step.tool_calls = executor.refuse(calls, text)
                history.extend(tool_messages)
                return "token_limit", None
            if rounds >= self.max_rounds:
                text = ROUND_LIMIT.format(max_rounds=self.max_rounds)
                tool_messages, step.tool_calls = executor.refuse(calls, text, "round_limit")
                history.extend(tool_messages)
                if self.budget is not None:
                    self.budget.results(step.tool_calls)
                    if limit := self.budget.exceeded():
                        return limit, None
                return "max_rounds", None
            self.running = (step, calls, executor)
            tool_messages, step.tool_calls = await executor.run(calls, parallel=self.parallel)
            self.running = None
            rounds += 1
            history.extend(tool_messages)
            history.extend(m.model_copy() for m in self.after_tools)
            if self.budget is not None:
                self.budget.results(step.tool_calls)
                if limit := self.budget.exceeded():
                    return limit, None
            if self.at_max_rounds == "stop" and rounds >= self.max_rounds:
                return "max_rounds", None

    async def filter_tools(
        self, binding: ToolBinding, prompt: str
    ) -> tuple[list[str], StopReason | None, str | None]:
        """Asks the model ``prompt`` (a user message) with every tool of ``binding`` offered
        and none to call (``binding`` is bound with ``tool_choice="none"``): the names of
        the tools its reply's text contains, and the stop reason and error when the call
        failed. The prompt and the reply stay in the history, and the call is a step;
        calls the reply makes anyway are recorded, not run."""
        self.history.append(HumanMessage(content=prompt))
        single, self.single_turn = self.single_turn, True
        try:
            stop, error = await self.run(binding)
        finally:
            self.single_turn = single
        failed = stop not in ("final", "tool_calls")
        text = "" if failed else content_text(self.history[-1].content)
        kept = [name for name in binding.names if name in text]
        if self.steps:  # marks the filter's request (replay checks it as such), failed or not
            self.steps[-1].kept_tools = kept
        return (kept, None, None) if not failed else ([], stop, error)

    def stop_running(self, text: str) -> None:
        """Answer the calls of a round that was stopped while they ran (a time limit): each
        call still gets its tool message, so the conversation stays valid."""
        if self.running is None:
            return
        step, calls, executor = self.running
        self.running = None
        tool_messages, step.tool_calls = executor.refuse(calls, text, "timeout")
        self.history.extend(tool_messages)
