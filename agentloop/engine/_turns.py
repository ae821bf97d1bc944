"""A conversation's scripted turns, played one after another: the loop's own (``run_agent``)
and an agent of your own (``run_own_agent``) both go through :class:`TurnPlayer`, so a
turn starts, adds tools, filters them and ends the same way in both."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, convert_to_messages

from agentloop.engine._rounds import AtMaxRounds, ToolBinding
from agentloop.engine._trajectory import StopReason, TurnRecord

__all__ = ["TurnPlayer", "to_messages"]

RunTurn = Callable[[ToolBinding], Awaitable[tuple[StopReason, str | None]]]
"""Runs one turn on the binding: (why it stopped, the error if any)."""
FilterTools = Callable[[ToolBinding], Awaitable[tuple[list[str], StopReason | None, str | None]]]
"""AgentDojo's tool filter on every tool offered: (names kept, a stop if it failed, error)."""


def to_messages(messages: Any) -> list[BaseMessage]:
    """A prompt (text: one user message) or message dicts and objects, as messages."""
    if isinstance(messages, str):
        return [HumanMessage(content=messages)]
    return list(convert_to_messages(list(messages)))


class TurnPlayer:
    """Plays the first turn, then each later one: its messages appended to ``history``, its
    tools bound with the earlier ones, ``run`` called once per turn. After each turn the
    ``snapshot`` is recorded as the turn's state (with turns or a snapshot, every turn is
    recorded). A model error or the token limit ends the conversation; so does the round
    cap with ``at_max_rounds="stop"``."""

    def __init__(
        self,
        history: list[BaseMessage],
        bind: Callable[..., ToolBinding],
        tools: Sequence[Any],
        *,
        steps: Callable[[], int],
        recorded: bool,
        snapshot: Callable[[], Any] | None,
    ) -> None:
        self.history, self.bind, self.available = history, bind, list(tools)
        self.binding = bind(self.available)
        self.steps, self.recorded, self.snapshot = steps, recorded, snapshot
        self.records: list[TurnRecord] = []
        self.stop: StopReason = "final"
        self.error: str | None = None
        self._start: tuple[int, int, list[str]] = (0, 0, [])

    async def play(
        self,
        turns: Sequence[Any],
        run: RunTurn,
        *,
        at_max_rounds: AtMaxRounds,
        filter_tools: FilterTools | None = None,
    ) -> None:
        for index in range(len(turns) + 1):
            message_start, added = 0, []
            if index > 0:
                turn = turns[index - 1]
                message_start = len(self.history)
                self.history.extend(to_messages(turn.messages) if turn.messages else [])
                if turn.tools:
                    known = set(self.binding.names)
                    self.available.extend(turn.tools)
                    self.binding = self.bind(self.available)
                    added = [n for n in self.binding.names if n not in known]
            self._start = (message_start, self.steps(), added)
            if index == 0 and filter_tools is not None:
                offered = self.bind(self.available, tool_choice="none")
                kept, failed, self.error = await filter_tools(offered)
                if failed is not None:
                    self.stop = failed
                    self.end_turn()
                    break
                names = self.binding.names
                self.available = [
                    t for t, name in zip(self.available, names, strict=True) if name in kept
                ]
                self.binding = self.bind(self.available)
            self.stop, self.error = await run(self.binding)
            self.end_turn()
            if self.stop in ("error", "token_limit"):
                break
            if self.stop == "max_rounds" and at_max_rounds == "stop":
                break  # the conversation ends at the round cap: no later turn

    def end_turn(self) -> None:
        """Record the turn under way (also when the time limit stops it)."""
        if not self.recorded:
            return
        message_start, step_start, added = self._start
        self.records.append(
            TurnRecord(
                message_start=message_start,
                step_start=step_start,
                stop_reason=self.stop,
                tools_added=added,
                state=self.snapshot() if self.snapshot is not None else None,
            )
        )
