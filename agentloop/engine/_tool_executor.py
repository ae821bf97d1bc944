"""Who answers a round's tool calls: the dispatcher, or recorded results standing in for it.

``run_agent`` always builds the :class:`ToolDispatcher` itself (so the tool timeout and
output limit are decided in one place) and hands it to an optional ``tool_executor``
factory, which may wrap it. :class:`RecordedToolResults` is such a wrapper: it answers
calls with results recorded earlier (replay), checking that each call is the recorded
one, or runs the tools again through the dispatcher and reports outputs that differ.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from langchain_core.messages import ToolMessage

from agentloop.engine._dispatch import PendingCall, ToolDispatcher
from agentloop.engine._trajectory import ToolCallRecord, ToolCallStatus
from agentloop.errors import ReplayMismatchError

__all__ = ["ExecutorFactory", "RecordedToolResults", "ToolExecutor"]

RoundResult = tuple[list[ToolMessage], list[ToolCallRecord]]
_REFUSED = frozenset({"round_limit", "not_run"})  # answered without running


class ToolExecutor(Protocol):
    """Answers one round's calls: exactly one ToolMessage and one record per call, in order."""

    async def run(self, calls: Sequence[PendingCall], *, parallel: bool = True) -> RoundResult:
        """Execute the calls (concurrently when ``parallel``)."""
        ...

    def refuse(
        self, calls: Sequence[PendingCall], text: str, status: ToolCallStatus = "not_run"
    ) -> RoundResult:
        """Answer calls that may not run (a limit was reached) with ``text`` and ``status``."""
        ...


# Given the dispatcher run_agent built, returns what executes the calls (often the same).
ExecutorFactory = Callable[[ToolDispatcher], ToolExecutor]


def _short(value: object, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    text = text if len(text) <= limit else text[:limit] + "..."
    return repr(text) if isinstance(value, str) else text


class RecordedToolResults:
    """Serves recorded tool results by call id, or re-runs the tools and compares.

    ``recorded`` maps call ids to the recorded (ToolMessage, record). A call with no
    recording, other arguments, or a different run/refused fate raises
    ``ReplayMismatchError``. With ``live`` the tools run through ``dispatcher`` and
    every output that differs from the recording is passed to ``on_difference(call_id,
    note)``; the fresh result is what the model sees.
    """

    def __init__(
        self,
        dispatcher: ToolDispatcher,
        recorded: Mapping[str, tuple[ToolMessage, ToolCallRecord]],
        *,
        live: bool = False,
        where: str = "a sample",
        on_difference: Callable[[str, str], None] | None = None,
    ) -> None:
        self.dispatcher = dispatcher
        self.recorded = recorded
        self.live = live
        self.where = where
        self.on_difference = on_difference

    def _lookup(
        self, call: PendingCall, refused: ToolCallStatus | None
    ) -> tuple[ToolMessage, ToolCallRecord]:
        """The recorded result of ``call``; ``refused``: the status it is answered with
        unrun now (a limit), None when it runs."""
        found = self.recorded.get(call.id)
        if found is None:
            raise ReplayMismatchError(
                f"replay: {self.where}: tool call {call.id} ({call.name}) has no recorded result"
            )
        record = found[1]
        if (record.name, record.args, record.raw_args) != (call.name, call.args, call.raw_args):
            raise ReplayMismatchError(
                f"replay: {self.where}: tool call {call.id} differs from the recording: recorded "
                f"{record.name}({_short(record.args or record.raw_args)}), "
                f"now {call.name}({_short(call.args or call.raw_args)})"
            )
        if (record.status in _REFUSED) != (refused is not None):
            if refused is None:
                now = f"run now but was refused ({record.status.replace('_', ' ')})"
            else:
                now = f"refused now ({refused.replace('_', ' ')}) but was run"
            raise ReplayMismatchError(
                f"replay: {self.where}: tool call {call.id} ({call.name}) is {now} in the recording"
            )
        return found[0].model_copy(), record.model_copy()

    def _compare(
        self,
        call: PendingCall,
        recorded: tuple[ToolMessage, ToolCallRecord],
        fresh: tuple[ToolMessage, ToolCallRecord],
    ) -> None:
        (old_message, old_record), (new_message, new_record) = recorded, fresh
        if (new_message.content, new_record.status) == (old_message.content, old_record.status):
            return
        if self.on_difference is not None:
            self.on_difference(
                call.id,
                f"replay: {self.where}: tool {call.name} (call {call.id}) output differs from "
                f"the recording: recorded {old_record.status} {_short(old_message.content)}, "
                f"now {new_record.status} {_short(new_message.content)}",
            )

    async def run(self, calls: Sequence[PendingCall], *, parallel: bool = True) -> RoundResult:
        recorded = [self._lookup(c, refused=None) for c in calls]
        if not self.live:
            return [r[0] for r in recorded], [r[1] for r in recorded]
        messages, records = await self.dispatcher.run(calls, parallel=parallel)
        for index, call in enumerate(calls):
            self._compare(call, recorded[index], (messages[index], records[index]))
        return messages, records

    def refuse(
        self, calls: Sequence[PendingCall], text: str, status: ToolCallStatus = "not_run"
    ) -> RoundResult:
        recorded = [self._lookup(c, refused=status) for c in calls]
        if self.live:
            return self.dispatcher.refuse(calls, text, status)
        return [r[0] for r in recorded], [r[1] for r in recorded]
