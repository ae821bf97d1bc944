"""Deprecated wrappers kept for reward-kit's names; each only delegates to
``exact_tool_match_reward`` and warns."""

from __future__ import annotations

import warnings
from typing import Any

from ._call_diagnostics import ToolMatchResult
from ._tool_match import exact_tool_match_reward

__all__ = ["composite_function_call_reward", "llm_judge_reward", "schema_jaccard_reward"]


def _deprecated(name: str) -> None:
    warnings.warn(
        f"{name} is deprecated and only delegates to exact_tool_match_reward; "
        "call exact_tool_match_reward directly",
        DeprecationWarning,
        stacklevel=3,
    )


def schema_jaccard_reward(messages: Any, ground_truth: Any = None, **_: Any) -> ToolMatchResult:
    """Deprecated: ``exact_tool_match_reward``; old extra keyword arguments are ignored.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = schema_jaccard_reward([{"role": "assistant", "content": "hi"}], expected_schema={})
    >>> r.score, caught[0].category.__name__
    (1.0, 'DeprecationWarning')
    """
    _deprecated("schema_jaccard_reward")
    return exact_tool_match_reward(messages, ground_truth)


def llm_judge_reward(messages: Any, ground_truth: Any = None, **_: Any) -> ToolMatchResult:
    """Deprecated: ``exact_tool_match_reward`` (no model is called); extra kwargs ignored.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = llm_judge_reward([{"role": "assistant", "content": None}], None, model="x")
    >>> r.score, caught[0].category.__name__
    (1.0, 'DeprecationWarning')
    """
    _deprecated("llm_judge_reward")
    return exact_tool_match_reward(messages, ground_truth)


def composite_function_call_reward(
    messages: Any, ground_truth: Any = None, **_: Any
) -> ToolMatchResult:
    """Deprecated: ``exact_tool_match_reward``; old weights and kwargs are ignored.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = composite_function_call_reward([{"role": "user", "content": "x"}], weights={})
    >>> r.score, caught[0].category.__name__
    (1.0, 'DeprecationWarning')
    """
    _deprecated("composite_function_call_reward")
    return exact_tool_match_reward(messages, ground_truth)
