"""A conversation with a simulated user: the agent and a user model take turns.

The user is a chat model of its own (:class:`SimulatedUser`) that sees the conversation
from its side: its instructions as the system message, the agent's texts as the user's
messages (the texts of replies without tool calls: a reply that calls tools is addressed
to the tools, as in τ²-bench), its own replies as the assistant's. It may call tools of its
own in rounds, like the agent (dual control: both sides act on one environment). Each user
text is appended to the agent's conversation as a user message; the agent then runs its
reply (its tool rounds) and its text is shown to the user, and so on.

Who speaks first: the user, when the opening messages are empty or end with an assistant
message (τ²-bench's agent greeting); otherwise the agent answers the opening first.

The conversation ends (``Trajectory.stop_reason``) when a user text holds one of
``stop_signals`` (``user_stop``), an agent text one of ``agent_stop_signals``
(``agent_stop``), after ``max_turns`` user messages have been answered (``max_turns``), when
the step or error limits are reached (``max_steps``, ``too_many_errors``: counted as τ²-bench
counts, see ``agentloop.engine._budget``), or when either model fails (``error`` for the
agent's, ``user_error`` for the user's), or at the run's time or token limit. A limit
reached in the same step as a stop signal wins, as in τ²-bench's orchestrator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from agentloop.engine._budget import Budget
from agentloop.engine._defaults import AGENT_STOP_SIGNALS, USER_STOP_SIGNALS
from agentloop.engine._reply import ContentCallParser
from agentloop.engine._retry import RetryPolicy
from agentloop.engine._rounds import RoundLoop, ToolBinding, ToolsInput
from agentloop.engine._tool_executor import ExecutorFactory
from agentloop.engine._trajectory import StepRecord, StopReason, TurnRecord
from agentloop.engine._wire import message_text

__all__ = [
    "Conversation",
    "SimulatedUser",
    "user_speaks_first",
]


@dataclass(frozen=True)
class SimulatedUser:
    """A chat model playing the user of a conversation, and the conversation's limits."""

    model: BaseChatModel
    """The user's model (its own sampling parameters already bound)."""
    instructions: str
    """Its system message (the scenario it plays)."""
    tools: ToolsInput = ()
    """Tools of its own (acting on the same environment as the agent's)."""
    stop_signals: Sequence[str] = USER_STOP_SIGNALS
    """A user text holding one of these ends the conversation (``user_stop``)."""
    agent_stop_signals: Sequence[str] = AGENT_STOP_SIGNALS
    """An agent text holding one of these ends the conversation (``agent_stop``)."""
    max_rounds: int = 5
    """The user's tool rounds per message."""
    max_turns: int | None = None
    """User messages the agent answers before the conversation ends (None: no limit)."""
    max_steps: int | None = 200
    """Steps of the whole conversation (messages and tool-result batches of both sides)."""
    max_errors: int | None = 10
    """Failed tool calls of both sides."""
    retry: RetryPolicy | None = None
    """Retries of the user's temporary model errors (default: ``RetryPolicy()``)."""
    tool_executor: ExecutorFactory | None = None
    """What answers the user's calls instead of running them (replay), as for the agent."""

    def __post_init__(self) -> None:
        for name in ("max_turns", "max_steps", "max_errors"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be >= 1 (or None for no limit), got {value}")
        if self.max_rounds < 0:
            raise ValueError(f"max_rounds must be >= 0, got {self.max_rounds}")
        if any(not s for s in [*self.stop_signals, *self.agent_stop_signals]):
            raise ValueError("a stop signal must not be empty")

    def binding(self, tool_timeout: float | None, max_tool_output_chars: int | None) -> ToolBinding:
        """The user's model bound to its own tools, with the agent's tool limits: whatever
        drives the agent (agentloop's loop or an agent of your own), the user is bound so."""
        return ToolBinding(
            self.model,
            self.tools,
            tool_timeout=tool_timeout,
            max_tool_output_chars=max_tool_output_chars,
            tool_executor=self.tool_executor,
            tool_choice=None,
            parallel_tool_calls=True,
        )


def _signal(text: str, signals: Sequence[str]) -> str | None:
    return next((s for s in signals if s in text), None)


def user_speaks_first(opening: Sequence[BaseMessage]) -> bool:
    """The user opens when nothing was said yet or the agent spoke last."""
    said = [m for m in opening if not isinstance(m, SystemMessage)]
    return not said or isinstance(said[-1], AIMessage)


class AgentSide(Protocol):
    """What plays the agent: the round loop, or an agent of your own (``_own_conversation``)."""

    steps: list[StepRecord]

    async def run(self, binding: ToolBinding) -> tuple[StopReason, str | None]: ...


class Conversation:
    """Alternates the agent's replies (``agent``, its round loop on the shared history) and
    the user's messages until one side stops or a limit is reached."""

    def __init__(
        self,
        user: SimulatedUser,
        agent: AgentSide,
        *,
        budget: Budget,
        parallel: bool,
        parse_content: ContentCallParser | None,
        raise_on_error: bool,
        binding: ToolBinding,
        at_max_rounds_stop: bool,
    ) -> None:
        self.user = user
        self.agent = agent
        self.budget = budget
        self.at_max_rounds_stop = at_max_rounds_stop
        self.messages: list[BaseMessage] = [SystemMessage(content=user.instructions)]
        """The user's own view (``Trajectory.user_messages``)."""
        self.loop = RoundLoop(
            self.messages,
            max_rounds=user.max_rounds,
            single_turn=False,
            parallel=parallel,
            retry=RetryPolicy() if user.retry is None else user.retry,
            parse_content=parse_content,
            raise_on_error=raise_on_error,
            budget=budget,
        )
        self.binding = binding
        self.shown = 0  # agent-side messages already in the user's view
        self.user_turns = 0
        self.signal: str | None = None
        self.records: list[TurnRecord] = []
        # Where the turn being played started (agent side, user side), until it ends.
        self.current: tuple[tuple[int, int], tuple[int, int] | None] | None = None

    @property
    def steps(self) -> list[StepRecord]:
        return self.loop.steps

    def _show(self, history: list[BaseMessage]) -> None:
        """Append what the user has not seen yet to its view: the agent's texts as user
        messages, and the opening's user messages as its own (assistant) ones. A reply that
        calls tools goes to the tools, not to the user (its text too, as in τ²-bench)."""
        for message in history[self.shown :]:
            text = message_text(message.content)
            if isinstance(message, AIMessage):
                if text and not (message.tool_calls or message.invalid_tool_calls):
                    self.messages.append(HumanMessage(content=text))
            elif isinstance(message, HumanMessage):
                self.messages.append(AIMessage(content=text))
        self.shown = len(history)

    async def _user_says(self, history: list[BaseMessage]) -> tuple[StopReason | None, str | None]:
        """The user's next message, appended to the agent's history; a stop reason when the
        conversation ends with it."""
        stop, error = await self.loop.run(self.binding)
        if stop == "error":
            return "user_error", error
        if stop not in ("final", "max_rounds"):
            return stop, None  # a conversation limit, reached on the user's tool results
        last = self.messages[-1]
        text = message_text(last.content) if isinstance(last, AIMessage) else ""
        history.append(HumanMessage(content=text))
        self.shown = len(history)
        self.user_turns += 1
        ended: StopReason | None = None
        if signal := _signal(text, self.user.stop_signals):
            ended, self.signal = "user_stop", signal
        return self.budget.exceeded() or ended, None

    async def run(
        self,
        history: list[BaseMessage],
        binding: ToolBinding,
        end_turn: Callable[[TurnRecord], None],
    ) -> tuple[StopReason, str | None]:
        """Play the conversation on the agent's ``history``; ``end_turn`` receives each turn's
        record (the caller adds the state) when the turn ends."""
        user_first = user_speaks_first(history)
        while True:
            message_start = 0 if not self.records else len(history)
            user_start: tuple[int, int] | None = None
            step_start = len(self.agent.steps)
            if user_first or self.records:
                user_start = (len(self.messages), len(self.steps))
            self.current = ((message_start, step_start), user_start)
            if user_start is not None:
                self._show(history)
                stop, error = await self._user_says(history)
                if stop is not None:
                    # The user's last message ends the conversation: a turn of its own.
                    self._end(end_turn, (message_start, step_start), user_start, stop)
                    return stop, error
            stop, error = await self.agent.run(binding)
            goes_on = stop == "final" or (stop == "max_rounds" and not self.at_max_rounds_stop)
            if goes_on:
                last = history[-1]
                text = message_text(last.content) if isinstance(last, AIMessage) else ""
                if signal := _signal(text, self.user.agent_stop_signals):
                    stop, self.signal = "agent_stop", signal
                stop = self.budget.exceeded() or stop
                turns = self.user.max_turns
                if stop in ("final", "max_rounds") and turns and self.user_turns >= turns:
                    stop = "max_turns"
                goes_on = stop in ("final", "max_rounds")
            self._end(end_turn, (message_start, step_start), user_start, stop)
            if not goes_on:
                return stop, error

    def _end(
        self,
        end_turn: Callable[[TurnRecord], None],
        start: tuple[int, int],
        user_start: tuple[int, int] | None,
        stop: StopReason,
    ) -> None:
        record = TurnRecord(
            message_start=start[0],
            step_start=start[1],
            stop_reason=stop,
            user_message_start=user_start[0] if user_start else None,
            user_step_start=user_start[1] if user_start else None,
        )
        self.records.append(record)
        self.current = None
        end_turn(record)

    def interrupted(self, end_turn: Callable[[TurnRecord], None], stop: StopReason) -> None:
        """Record the turn a time limit stopped (nothing when it stopped between turns)."""
        if self.current is not None:
            self._end(end_turn, *self.current, stop)

    def stop_running(self, text: str) -> None:
        """Answer the user's calls that were running when the run was stopped."""
        self.loop.stop_running(text)
