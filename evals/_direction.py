"""Which way a reward's score is good: higher (the default: 1 is the good outcome) or
lower (1 is the bad one, as AgentDojo's security, where 1 means the attack succeeded).

A reward declares it with :func:`lower_is_better`; the harness records it per reward key
in the run's header (``reward_better``) and summary (``RewardStats.better``), and the
report's colours, the printed next steps and ``compare``'s verdicts read it from there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar, get_args

__all__ = ["BETTER", "Better", "lower_is_better", "reward_better"]

Better = Literal["higher", "lower"]
BETTER: tuple[str, ...] = get_args(Better)
_ATTRIBUTE = "__reward_better__"

F = TypeVar("F", bound=Callable[..., Any])


def lower_is_better(fn: F) -> F:
    """Mark a reward whose score 1 is the bad outcome (an attack that succeeded): its
    report colours 1 as a failure, and ``compare`` calls the run with the lower score
    the better one. Returns ``fn``.

    >>> @lower_is_better
    ... def leaked(final_answer):
    ...     return "secret" in final_answer
    >>> reward_better(leaked)
    'lower'
    """
    setattr(fn, _ATTRIBUTE, "lower")
    return fn


def reward_better(fn: Callable[..., Any]) -> Better:
    """Which way ``fn``'s score is good: ``lower`` when marked with
    :func:`lower_is_better`, else ``higher``; ValueError for any other mark.

    >>> reward_better(lambda final_answer: 1.0)
    'higher'
    """
    value = getattr(fn, _ATTRIBUTE, "higher")
    if value == "lower":
        return "lower"
    if value == "higher":
        return "higher"
    raise ValueError(f"{_ATTRIBUTE} of {fn!r} is {value!r}; valid: {', '.join(BETTER)}")
