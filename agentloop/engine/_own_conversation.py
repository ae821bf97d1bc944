"""An agent of your own in a conversation with a simulated user.

The agent is made once (``factory(model, tools)``) and called once per user turn with the
conversation so far; its final reply goes to the user, whose answer is appended, as in the
native conversation (``_conversation``), which plays the user's side, the stop signals,
``max_turns`` and the step and error budget here too. Each call is observed by an
:class:`Observer` of its own (rounds per reply, as the loop counts them; tokens across the
conversation), and what it observed is appended to the one record, so the trajectory has
the native conversation's format (turns, the user's side).

The step and error budget is counted by the observer, step by step: past it the agent's
next model request is refused and the conversation ends, where the round loop stops.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable
from typing import Any, Literal

import anyio
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from agentloop.engine._budget import Budget
from agentloop.engine._conversation import Conversation, SimulatedUser
from agentloop.engine._defaults import DEFAULT_TOOL_TIMEOUT
from agentloop.engine._dispatch import TIME_LIMIT, ToolDispatcher
from agentloop.engine._loop import MessagesInput, _to_messages, describe_model
from agentloop.engine._observer import AgentStopped, ObservedModel, Observer
from agentloop.engine._own_agent import (
    AgentFactory,
    OwnAgentRun,
    _difference,
    _invoke,
    _names,
    _observed_tools,
    _returned_messages,
)
from agentloop.engine._reply import ContentCallParser
from agentloop.engine._retry import RetryPolicy
from agentloop.engine._rounds import AtMaxRounds, ToolBinding, ToolsInput, split_tools
from agentloop.engine._serialize import DEFAULT_MAX_TOOL_OUTPUT_CHARS
from agentloop.engine._tool_executor import ExecutorFactory
from agentloop.engine._trajectory import StepRecord, StopReason, Trajectory, TurnRecord

__all__ = ["run_own_conversation"]


class _Current:
    """What the agent's model and tools report to: the observer of the call running now."""

    def __init__(self) -> None:
        self.observer: Observer | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["observer"], name)


class _AgentTurns:
    """The agent side of a :class:`Conversation`: one agent call per ``run``."""

    def __init__(
        self,
        factory: AgentFactory,
        factory_args: dict[str, Any],
        model: BaseChatModel,
        tools: ToolsInput,
        history: list[BaseMessage],
        budget: Budget,
        observer_args: dict[str, Any],
        executor: ExecutorFactory | None,
        dispatcher_args: dict[str, Any],
        max_rounds: int,
        token_limit: int | None,
    ) -> None:
        self.factory, self.factory_args = factory, factory_args
        self.model, self.history, self.budget = model, history, budget
        runnable, self.bindable = split_tools(tools)
        dispatcher = ToolDispatcher(
            runnable,
            schema_only=_names([b for b in self.bindable if isinstance(b, dict)]),
            **dispatcher_args,
        )
        self.executor = dispatcher if executor is None else executor(dispatcher)
        self.observer_args = observer_args
        self.max_rounds, self.token_limit = max_rounds, token_limit
        self.current = _Current()
        self.agent: Any = None
        self.steps: list[StepRecord] = []
        self.tokens = 0
        self.opening: list[BaseMessage] = []
        self.failed: Literal["agent", "model"] | None = None
        self.notes: list[str] = []

    def _observer(self) -> Observer:
        remaining = None if self.token_limit is None else max(self.token_limit - self.tokens, 0)
        return Observer(
            self.model,
            self.executor,
            dict(zip(_names(self.bindable), self.bindable, strict=True)),
            max_rounds=self.max_rounds,
            token_limit=remaining,
            history=self.history,
            budget=self.budget,  # counted per step: a limit stops the agent mid-call
            **self.observer_args,
        )

    async def run(self, _binding: ToolBinding) -> tuple[StopReason, str | None]:
        """One agent call on the conversation so far; what it did is appended."""
        observer = self.current.observer = self._observer()
        self.opening = list(self.history)
        returned: list[BaseMessage] | None = None
        try:
            if self.agent is None:
                agent = self.factory(
                    ObservedModel(observer=self.current, cache=False, disable_streaming=True),
                    _observed_tools(self.bindable, self.current),  # type: ignore[arg-type]
                    **self.factory_args,
                )
                self.agent = await agent if inspect.isawaitable(agent) else agent
            # An agent loop makes two graph steps a round: room for every round, and more.
            messages = [m.model_copy() for m in self.opening]
            result = await _invoke(self.agent, messages, 2 * self.max_rounds + 10)
            if isinstance(result, str):
                observer.unseen_answer(result)
            else:
                returned = _returned_messages(result)
        except AgentStopped:
            pass  # the observer knows why
        except Exception as exc:
            if observer.ended != "error":
                self.flush(returned)
                self.failed = "agent"
                return "error", f"{type(exc).__name__}: {exc}"
        self.flush(returned)
        if observer.ended == "error":
            self.failed = "model"
            return "error", observer.error
        return observer.ended or "final", None

    def flush(self, returned: list[BaseMessage] | None) -> None:
        """Append what the current observer recorded to the conversation and count it."""
        observer = self.current.observer
        if observer is None:
            return
        self.current.observer = None
        if returned is not None:
            observer.own_answers(returned)
        history = observer.history(self.opening)
        self.history.extend(history[len(self.opening) :])
        self.steps.extend(observer.steps)
        self.tokens += observer.tokens
        self.notes += [n for n in observer.notes if n not in self.notes]
        if returned is not None and (found := _difference(returned, history)):
            self.notes.append(found)

    def stop_running(self, seconds: float) -> None:
        """The time limit stopped the agent: its running calls answered, its record kept."""
        if self.current.observer is not None:
            self.current.observer.stop_running(seconds)
            self.flush(None)


async def run_own_conversation(
    factory: AgentFactory,
    model: BaseChatModel,
    tools: ToolsInput,
    messages: MessagesInput,
    user: SimulatedUser,
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
    """``run_own_agent`` with a simulated ``user``: the agent is called once per user turn
    with the conversation so far (see the module doc); the trajectory is the native
    conversation's (``run_agent(..., user=user)``)."""
    if max_rounds < 0:
        raise ValueError(f"max_rounds must be >= 0, got {max_rounds}")
    started = time.perf_counter()
    history = _to_messages(messages)
    budget = Budget(user.max_steps, user.max_errors)
    sequential = tool_execution == "sequential"
    agent = _AgentTurns(
        factory,
        dict(factory_args or {}),
        model,
        tools,
        history,
        budget,
        {
            "at_max_rounds": at_max_rounds,
            "sequential": sequential,
            "retry": RetryPolicy() if retry is None else retry,
            "parse_content": parse_content_tool_calls,
            "tool_choice": tool_choice,
            "parallel_tool_calls": parallel_tool_calls,
        },
        tool_executor,
        {
            "timeout": tool_timeout,
            "max_output_chars": max_tool_output_chars,
            "unknown_tool": unknown_tool,
        },
        max_rounds,
        token_limit,
    )
    user_binding = user.binding(tool_timeout, max_tool_output_chars)
    conversation = Conversation(
        user,
        agent,
        budget=budget,
        parallel=not sequential,
        parse_content=parse_content_tool_calls,
        raise_on_error=False,
        binding=user_binding,
        at_max_rounds_stop=at_max_rounds == "stop",
    )
    records: list[TurnRecord] = []

    def end_turn(record: TurnRecord) -> None:
        record.state = snapshot() if snapshot is not None else None
        records.append(record)

    stop: StopReason = "final"
    error: str | None = None
    with anyio.CancelScope(deadline=anyio.current_time() + (time_limit or math.inf)) as limit:
        stop, error = await conversation.run(history, user_binding, end_turn)
    if limit.cancelled_caught:
        agent.stop_running(time_limit or 0.0)
        conversation.stop_running(TIME_LIMIT.format(seconds=time_limit))
        stop, error = "time_limit", None
        conversation.interrupted(end_turn, stop)
    trajectory = Trajectory.build(
        history,
        agent.steps,
        stop,
        error=error,
        wall_time_s=time.perf_counter() - started,
        model=describe_model(model),
        turns=records,
        user_messages=conversation.messages,
        user_steps=conversation.steps,
        stop_signal=conversation.signal,
    )
    failed = agent.failed if stop == "error" else None
    return OwnAgentRun(trajectory=trajectory, failed=failed, notes=agent.notes)
