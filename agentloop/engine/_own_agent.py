"""An agent of your own, run on agentloop's model and tools and recorded like the loop's run:
the row's turns as ``run_agent`` plays them (one agent call per turn, ``_own_calls``), or a
conversation with a simulated user (``_own_conversation``).

AgentDojo's ``tool_filter`` defense runs before the agent, as the loop runs it: the run's
model is asked the filter prompt (a step of the record, the prompt and reply in the
conversation) and the agent is made with the tools it kept. ``after_tools`` (AgentDojo's
``repeat_user_prompt``) is not offered: it rewrites the conversation between the agent's
own model requests, which only the loop holds.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

import anyio
from langchain_core.language_models import BaseChatModel

from agentloop.engine._budget import Budget
from agentloop.engine._conversation import SimulatedUser
from agentloop.engine._defaults import DEFAULT_TOOL_TIMEOUT
from agentloop.engine._loop import MessagesInput, Turn, describe_model
from agentloop.engine._own_calls import AgentCalls, AgentFactory, OwnAgentRun
from agentloop.engine._own_conversation import converse
from agentloop.engine._reply import ContentCallParser
from agentloop.engine._retry import RetryPolicy
from agentloop.engine._rounds import AtMaxRounds, RoundLoop, ToolBinding, ToolsInput
from agentloop.engine._serialize import DEFAULT_MAX_TOOL_OUTPUT_CHARS
from agentloop.engine._tool_executor import ExecutorFactory
from agentloop.engine._trajectory import StopReason, Trajectory
from agentloop.engine._turns import TurnPlayer, to_messages

__all__ = ["AgentFactory", "OwnAgentRun", "run_own_agent", "run_own_conversation"]


async def run_own_agent(
    factory: AgentFactory,
    model: BaseChatModel,
    tools: ToolsInput,
    messages: MessagesInput,
    *,
    factory_args: dict[str, Any] | None = None,
    turns: Sequence[Turn] = (),
    user: SimulatedUser | None = None,
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
    tool_filter: str | None = None,
    snapshot: Callable[[], Any] | None = None,
) -> OwnAgentRun:
    """Run the agent ``factory`` makes from ``model`` and ``tools`` on ``messages``, with the
    loop's limits, and record what it did as ``run_agent`` records its own run.

    The agent's model requests are retried (``retry``) and each is a step; past
    ``max_rounds`` rounds its calls are refused as the loop refuses them, and the next
    request raises ``AgentStopped`` into the agent (``stop_reason="max_rounds"``); so do
    ``token_limit`` and a model error. ``time_limit`` cancels the agent. A factory or
    agent that raises ends the run with ``stop_reason="error"`` (``failed="agent"``).

    ``turns`` continue the conversation as in ``run_agent``: the agent is called again per
    turn with the conversation so far and the turn's messages, ``max_rounds`` rounds each;
    a turn that adds tools has the factory called again with all the tools so far.
    ``user`` makes it a conversation with a simulated user (one agent call per user turn).
    ``tool_filter`` is AgentDojo's defense, run before the agent is made (module doc).
    ``snapshot`` is called after every turn and its value recorded as the turn's ``state``.
    """
    if max_rounds < 0:
        raise ValueError(f"max_rounds must be >= 0, got {max_rounds}")
    if turns and user is not None:
        raise ValueError("turns come from the simulated user; give turns or user, not both")
    if tool_filter is not None and user is not None:
        raise ValueError("tool_filter asks the model first; not with user")
    started = time.perf_counter()
    history = to_messages(messages)
    sequential = tool_execution == "sequential"
    retry = RetryPolicy() if retry is None else retry
    # One binding per tool set: made again only when a turn adds tools (the agent too).
    bind = functools.partial(
        ToolBinding,
        model,
        tool_timeout=tool_timeout,
        max_tool_output_chars=max_tool_output_chars,
        tool_executor=tool_executor,
        unknown_tool=unknown_tool,
        tool_choice=tool_choice,
        parallel_tool_calls=parallel_tool_calls,
    )
    calls = AgentCalls(
        factory,
        dict(factory_args or {}),
        model,
        history,
        budget=Budget(user.max_steps, user.max_errors) if user is not None else None,
        max_rounds=max_rounds,
        token_limit=token_limit,
        observer_args={
            "at_max_rounds": at_max_rounds,
            "sequential": sequential,
            "retry": retry,
            "parse_content": parse_content_tool_calls,
            "tool_choice": tool_choice,
            "parallel_tool_calls": parallel_tool_calls,
        },
    )
    if user is not None:
        trajectory = await converse(
            calls,
            user,
            bind(list(tools)),
            tool_timeout=tool_timeout,
            max_tool_output_chars=max_tool_output_chars,
            sequential=sequential,
            parse_content=parse_content_tool_calls,
            at_max_rounds=at_max_rounds,
            time_limit=time_limit,
            snapshot=snapshot,
        )
    else:
        trajectory = await _play_turns(
            calls,
            bind,
            list(tools),
            turns,
            tool_filter=tool_filter,
            rounds=functools.partial(
                RoundLoop,
                history,
                max_rounds=max_rounds,
                single_turn=False,
                parallel=not sequential,
                retry=retry,
                parse_content=parse_content_tool_calls,
                raise_on_error=False,
                token_limit=token_limit,
            ),
            at_max_rounds=at_max_rounds,
            time_limit=time_limit,
            snapshot=snapshot,
        )
    trajectory.wall_time_s = time.perf_counter() - started
    trajectory.model = describe_model(model)
    failed = calls.failed if trajectory.stop_reason == "error" else None
    return OwnAgentRun(trajectory=trajectory, failed=failed, notes=calls.notes)


async def _play_turns(
    calls: AgentCalls,
    bind: Callable[..., ToolBinding],
    available: list[Any],
    turns: Sequence[Turn],
    *,
    tool_filter: str | None,
    rounds: Callable[[], RoundLoop],
    at_max_rounds: AtMaxRounds,
    time_limit: float | None,
    snapshot: Callable[[], Any] | None,
) -> Trajectory:
    """The first turn and each later one as ``run_agent`` plays them, one agent call each."""
    player = TurnPlayer(
        calls.history,
        bind,
        available,
        steps=lambda: len(calls.steps),
        recorded=bool(turns) or snapshot is not None,
        snapshot=snapshot,
    )
    filtering = None
    if tool_filter is not None:

        async def filtering(
            offered: ToolBinding,
        ) -> tuple[list[str], StopReason | None, str | None]:
            return await _filter_tools(calls, offered, tool_filter, rounds())

    with anyio.CancelScope(deadline=anyio.current_time() + (time_limit or math.inf)) as limit:
        await player.play(turns, calls.run, at_max_rounds=at_max_rounds, filter_tools=filtering)
    if limit.cancelled_caught:
        calls.stop_running(time_limit or 0.0)
        player.stop, player.error = "time_limit", None
        player.end_turn()
    return Trajectory.build(
        calls.history, calls.steps, player.stop, error=player.error, turns=player.records
    )


async def _filter_tools(
    calls: AgentCalls, binding: ToolBinding, prompt: str, rounds: RoundLoop
) -> tuple[list[str], StopReason | None, str | None]:
    """AgentDojo's tool filter, asked by the loop's own code on the shared history: its step
    is the record's, its tokens count towards the run's."""
    try:
        return await rounds.filter_tools(binding, prompt)
    finally:
        calls.steps.extend(rounds.steps)
        calls.tokens += rounds.tokens


async def run_own_conversation(
    factory: AgentFactory,
    model: BaseChatModel,
    tools: ToolsInput,
    messages: MessagesInput,
    user: SimulatedUser,
    **options: Any,
) -> OwnAgentRun:
    """``run_own_agent(..., user=user)``: a conversation with a simulated user."""
    return await run_own_agent(factory, model, tools, messages, user=user, **options)
