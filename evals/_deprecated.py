"""Deprecated wrappers kept for reward-kit's names; each only delegates to
``exact_tool_match_reward`` and warns."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ._call_diagnostics import ToolMatchResult
from ._tool_match import exact_tool_match_reward

__all__ = ["composite_function_call_reward", "llm_judge_reward", "schema_jaccard_reward"]


def _deprecated(name: str, ignored: str) -> Callable[..., ToolMatchResult]:
    def reward(messages: Any, ground_truth: Any = None, **_: Any) -> ToolMatchResult:
        warnings.warn(
            f"{name} is deprecated and only delegates to exact_tool_match_reward; "
            "call exact_tool_match_reward directly",
            DeprecationWarning,
            stacklevel=2,
        )
        return exact_tool_match_reward(messages, ground_truth)

    reward.__name__ = reward.__qualname__ = name
    reward.__doc__ = f"""Deprecated: ``exact_tool_match_reward``; {ignored} are ignored.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = {name}([{{"role": "assistant", "content": None}}], None, model="x")
    >>> r.score, caught[0].category.__name__
    (1.0, 'DeprecationWarning')
    """
    return reward


schema_jaccard_reward = _deprecated("schema_jaccard_reward", "old extra keyword arguments")
llm_judge_reward = _deprecated("llm_judge_reward", "no model is called; extra keyword arguments")
composite_function_call_reward = _deprecated(
    "composite_function_call_reward", "old weights and keyword arguments"
)
