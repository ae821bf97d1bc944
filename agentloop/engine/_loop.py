"""The tool-call loop: call the model, run the tools it asks for, repeat, record everything."""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from agentloop._secrets import is_secret_name
from agentloop.engine._budget import Budget
from agentloop.engine._conversation import Conversation, SimulatedUser
from agentloop.engine._defaults import DEFAULT_TOOL_TIMEOUT
from agentloop.engine._dispatch import TIME_LIMIT
from agentloop.engine._reply import ContentCallParser
from agentloop.engine._retry import RetryPolicy
from agentloop.engine._rounds import AtMaxRounds, RoundLoop, ToolBinding, ToolsInput, split_tools
from agentloop.engine._serialize import DEFAULT_MAX_TOOL_OUTPUT_CHARS
from agentloop.engine._sync import run_sync
from agentloop.engine._tool_executor import ExecutorFactory
from agentloop.engine._trajectory import (
    Trajectory,
    TurnRecord,
)
from agentloop.engine._turns import TurnPlayer, to_messages

__all__ = [
    "MessagesInput",
    "ToolExecution",
    "ToolsInput",
    "Turn",
    "run_agent",
    "run_agent_sync",
    "split_tools",
]

MessagesInput = str | Sequence[BaseMessage | dict[str, Any]]
ToolExecution = Literal["parallel", "sequential"]


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


def _content_parser(option: bool | ContentCallParser | None) -> ContentCallParser | None:
    if option is None or option is False:
        return None
    if option is True:
        from agentloop.engine._content_calls import parse_content_tool_calls

        return parse_content_tool_calls
    if callable(option):
        return option
    raise TypeError(f"parse_content_tool_calls must be a bool or a parser function, not {option!r}")


@dataclass(frozen=True)
class Turn:
    """A later turn of a conversation: messages appended to the history, then the model runs
    again. ``tools`` become available from this turn on (bound with the earlier ones)."""

    messages: MessagesInput = ()
    tools: ToolsInput = ()


async def run_agent(
    model: BaseChatModel,
    tools: ToolsInput,
    messages: MessagesInput,
    *,
    max_rounds: int = 5,
    at_max_rounds: AtMaxRounds = "answer",
    single_turn: bool = False,
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
    time_limit: float | None = None,
    token_limit: int | None = None,
    parallel_tool_calls: bool = True,
    tool_execution: ToolExecution = "parallel",
    tool_choice: str | dict[str, Any] | None = None,
    max_tool_output_chars: int | None = DEFAULT_MAX_TOOL_OUTPUT_CHARS,
    retry: RetryPolicy | None = None,
    parse_content_tool_calls: bool | ContentCallParser = False,
    raise_on_error: bool = False,
    tool_executor: ExecutorFactory | None = None,
    unknown_tool: str | None = None,
    after_tools: MessagesInput = (),
    tool_filter: str | None = None,
    turns: Sequence[Turn] = (),
    snapshot: Callable[[], Any] | None = None,
    user: SimulatedUser | None = None,
) -> Trajectory:
    """Run the tool loop until the model answers, the round cap is hit, or the model fails.

    A round is one model call that requests tools plus the execution of those calls.
    After ``max_rounds`` rounds the model is called once more to answer; tools it still
    requests are answered with an error and not run (``stop_reason="max_rounds"``).
    ``at_max_rounds="stop"`` instead ends the conversation right after the last round: no
    further model call, no later turn (BFCL's step limit: ``max_rounds=21``).
    ``single_turn`` calls the model once and records the calls it asks for without
    running them (``stop_reason="tool_calls"``, call status ``not_run``), the way
    tool-call benchmarks score a first reply.

    ``turns`` continue the conversation: after the first turn ends (answered or out of
    rounds), each turn's messages are appended and the loop runs again with up to
    ``max_rounds`` rounds of its own; its ``tools`` are bound from then on. A model
    error ends the whole conversation. ``snapshot`` is called after every turn and its
    value (JSON-able) recorded as that turn's ``state``. With turns or a snapshot the
    trajectory's ``turns`` say where each turn starts and why it stopped.

    ``parallel_tool_calls`` is only what the provider is asked (sent when false);
    ``tool_execution`` decides how one round's calls run: ``parallel`` (concurrently,
    results in call order) or ``sequential`` (one by one, in call order).
    ``tool_timeout`` (seconds, default 60; None for none) and ``max_tool_output_chars``
    apply to every call. ``time_limit`` (seconds of wall time) and ``token_limit`` (total
    tokens the model reported) bound the whole run: when one is reached the run stops
    (``stop_reason`` ``time_limit`` / ``token_limit``), calls it leaves unanswered are
    answered as stopped or not run, and the trajectory holds what was done.
    ``retry`` (default: ``RetryPolicy()``) retries temporary model errors; retries never
    count as rounds. A model error ends the run with ``stop_reason="error"`` unless
    ``raise_on_error`` is set. ``parse_content_tool_calls``: True recovers
    ``<tool_call>`` blocks a server left in the text, or pass your own parser.
    ``tool_executor`` receives the dispatcher built here and returns what answers the
    calls instead (replay serves recorded results this way; it is asked again when a
    turn adds tools). ``unknown_tool`` is the text a call to a tool that is not bound is
    answered with (``{name}`` and ``{available}`` filled in; default ``Error: unknown tool
    '{name}'. Available tools: {available}.``): a benchmark's own wording, for one.
    ``after_tools``: messages appended after every round's tool results, before the model
    is called again (AgentDojo's ``repeat_user_prompt`` defense repeats the task this way).
    ``tool_filter``: a prompt the model is asked first (a user message after ``messages``),
    with every tool offered and ``tool_choice="none"``; from then on only the tools whose
    names its reply's text contains are bound, the others answered as unknown tools
    (AgentDojo's ``tool_filter`` defense). The prompt and the reply stay in the
    conversation; the call is a step of the trajectory.

    ``user`` makes the run a conversation with a simulated user (a chat model of its own,
    with its own tools and the conversation's stop signals and limits): after each agent
    reply the user answers, until a stop signal or a limit (see
    ``agentloop.engine._conversation``). ``max_rounds`` then bounds each agent reply;
    the trajectory also holds the user's side (``user_messages``, ``user_steps``).
    """
    if max_rounds < 0:
        raise ValueError(f"max_rounds must be >= 0, got {max_rounds}")
    if at_max_rounds not in ("answer", "stop"):
        raise ValueError(f"at_max_rounds must be 'answer' or 'stop', not {at_max_rounds!r}")
    if tool_execution not in ("parallel", "sequential"):
        raise ValueError(
            f"tool_execution must be 'parallel' or 'sequential', not {tool_execution!r}"
        )
    if single_turn and (turns or user is not None):
        raise ValueError("single_turn records one reply; it cannot run later turns")
    if turns and user is not None:
        raise ValueError("turns come from the simulated user; give turns or user, not both")
    if tool_filter is not None and (single_turn or user is not None):
        raise ValueError("tool_filter asks the model first; not with single_turn or user")
    for name, value in (
        ("tool_timeout", tool_timeout),
        ("time_limit", time_limit),
        ("token_limit", token_limit),
    ):
        if value is not None and not value > 0:
            raise ValueError(f"{name} must be > 0 (or None for no limit), got {value}")
    # One binding per tool set: made again only when a turn adds tools.
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
    started = time.perf_counter()
    history = to_messages(messages)
    budget = Budget(user.max_steps, user.max_errors) if user is not None else None
    rounds = RoundLoop(
        history,
        budget=budget,
        max_rounds=max_rounds,
        at_max_rounds=at_max_rounds,
        single_turn=single_turn,
        parallel=tool_execution == "parallel",
        retry=RetryPolicy() if retry is None else retry,
        parse_content=_content_parser(parse_content_tool_calls),
        raise_on_error=raise_on_error,
        token_limit=token_limit,
        after_tools=to_messages(after_tools) if after_tools else (),
    )
    player = TurnPlayer(
        history,
        bind,
        tools,
        steps=lambda: len(rounds.steps),
        recorded=bool(turns) or snapshot is not None,
        snapshot=snapshot,
    )
    conversation = None
    if user is not None:
        assert budget is not None
        user_binding = user.binding(tool_timeout, max_tool_output_chars)
        conversation = Conversation(
            user,
            rounds,
            budget=budget,
            parallel=tool_execution == "parallel",
            parse_content=rounds.parse_content,
            raise_on_error=raise_on_error,
            binding=user_binding,
            at_max_rounds_stop=at_max_rounds == "stop",
        )

    def end_conversation_turn(record: TurnRecord) -> None:
        record.state = snapshot() if snapshot is not None else None
        player.records.append(record)

    # One deadline for the whole run, turns included (no deadline: never cancelled).
    with anyio.CancelScope(deadline=anyio.current_time() + (time_limit or math.inf)) as limit:
        if conversation is not None:
            player.stop, player.error = await conversation.run(
                history, player.binding, end_conversation_turn
            )
        else:
            filtering = None
            if tool_filter is not None:
                filtering = functools.partial(rounds.filter_tools, prompt=tool_filter)
            await player.play(
                turns, rounds.run, at_max_rounds=at_max_rounds, filter_tools=filtering
            )
    if limit.cancelled_caught:
        rounds.stop_running(TIME_LIMIT.format(seconds=time_limit))
        player.stop, player.error = "time_limit", None
        if conversation is not None:  # stopped in the middle of a user turn
            conversation.stop_running(TIME_LIMIT.format(seconds=time_limit))
            conversation.interrupted(end_conversation_turn, "time_limit")
        else:
            player.end_turn()
    return Trajectory.build(
        history,
        rounds.steps,
        player.stop,
        error=player.error,
        wall_time_s=time.perf_counter() - started,
        model=describe_model(model),
        turns=player.records,
        user_messages=conversation.messages if conversation is not None else None,
        user_steps=conversation.steps if conversation is not None else None,
        stop_signal=conversation.signal if conversation is not None else None,
    )


def run_agent_sync(
    model: BaseChatModel, tools: ToolsInput, messages: MessagesInput, **options: Any
) -> Trajectory:
    """``run_agent`` for synchronous callers (same arguments, same result).

    Every call runs on one background event loop, so a model client that keeps
    connections alive (``ChatOpenAI``) can be used by repeated calls.
    """
    return run_sync(lambda: run_agent(model, tools, messages, **options), "run_agent")
