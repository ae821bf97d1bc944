"""A conversation's step and error limits, counted the way τ²-bench's orchestrator counts.

One step is one message from either side (a reply of the agent, a message of the simulated
user) or one batch of tool results (the answers to one reply's calls, either side's). A tool
result that failed (raised, timed out, bad arguments, unknown tool, ...) is an error. The
limits are checked after each step except while a reply's calls wait for their results, so
every call is answered before a conversation ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from agentloop.engine._trajectory import ToolCallRecord

__all__ = ["FAILED_STATUSES", "Budget", "BudgetStop"]

BudgetStop = Literal["max_steps", "too_many_errors"]
FAILED_STATUSES = frozenset(
    {"error", "timeout", "invalid_args", "unknown_tool", "no_implementation", "malformed"}
)
"""Call statuses that count as errors (refused calls, never run, do not)."""


class Budget:
    """Steps and errors so far, against their limits (None: no limit)."""

    def __init__(self, max_steps: int | None, max_errors: int | None) -> None:
        self.max_steps = max_steps
        self.max_errors = max_errors
        self.steps = 0
        self.errors = 0

    def message(self) -> None:
        """A message from either side was sent."""
        self.steps += 1

    def results(self, calls: Sequence[ToolCallRecord]) -> None:
        """A batch of tool results was sent back."""
        self.steps += 1
        self.errors += sum(c.status in FAILED_STATUSES for c in calls)

    def exceeded(self) -> BudgetStop | None:
        """The limit reached, if any (errors win over steps, as in τ²-bench)."""
        if self.max_errors is not None and self.errors >= self.max_errors:
            return "too_many_errors"
        if self.max_steps is not None and self.steps >= self.max_steps:
            return "max_steps"
        return None
