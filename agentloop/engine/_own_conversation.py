"""An agent of your own in a conversation with a simulated user.

The agent (``_own_calls``) is called once per user turn with the conversation so far; its
final reply goes to the user, whose answer is appended, as in the native conversation
(``_conversation``), which plays the user's side, the stop signals, ``max_turns`` and the
step and error budget here too, so the trajectory has the native conversation's format
(turns, the user's side).

The step and error budget is counted by each call's observer, step by step: past it the
agent's next model request is refused and the conversation ends, where the round loop stops.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import anyio

from agentloop.engine._conversation import Conversation, SimulatedUser
from agentloop.engine._dispatch import TIME_LIMIT
from agentloop.engine._own_calls import AgentCalls
from agentloop.engine._reply import ContentCallParser
from agentloop.engine._rounds import AtMaxRounds, ToolBinding
from agentloop.engine._trajectory import StopReason, Trajectory, TurnRecord

__all__ = ["converse"]


async def converse(
    calls: AgentCalls,
    user: SimulatedUser,
    binding: ToolBinding,
    *,
    tool_timeout: float | None,
    max_tool_output_chars: int | None,
    sequential: bool,
    parse_content: ContentCallParser | None,
    at_max_rounds: AtMaxRounds,
    time_limit: float | None,
    snapshot: Callable[[], Any] | None,
) -> Trajectory:
    """The conversation of ``calls`` (made with the user's budget) with ``user``, the agent's
    tools ``binding``'s; the trajectory without its wall time and model."""
    assert calls.budget is not None
    user_binding = user.binding(tool_timeout, max_tool_output_chars)
    conversation = Conversation(
        user,
        calls,
        budget=calls.budget,
        parallel=not sequential,
        parse_content=parse_content,
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
        stop, error = await conversation.run(calls.history, binding, end_turn)
    if limit.cancelled_caught:
        calls.stop_running(time_limit or 0.0)
        conversation.stop_running(TIME_LIMIT.format(seconds=time_limit))
        stop, error = "time_limit", None
        conversation.interrupted(end_turn, stop)
    return Trajectory.build(
        calls.history,
        calls.steps,
        stop,
        error=error,
        turns=records,
        user_messages=conversation.messages,
        user_steps=conversation.steps,
        stop_signal=conversation.signal,
    )
