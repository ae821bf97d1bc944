"""The built-in rewards, adapted to the registry's calling convention and registered.

>>> from evals import registered_rewards
>>> [n for n in registered_rewards() if n.startswith("qa_")]
['qa_f1_reward', 'qa_f1_reward_format', 'qa_f1_reward_tool']
>>> registered_rewards()["tool_call_match"].pass_threshold
1.0
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._answer_match import LOCATIONS, Location, answer_match
from ._bfcl import bfcl_verdict
from ._llm_judge import check_llm_judge, llm_judge
from ._messages import final_answer_of
from ._qa import qa_f1_reward, qa_f1_reward_format
from ._registry import register_reward
from ._result_models import RewardResult
from ._schema import schema_index
from ._tool_match import exact_tool_match_reward, tool_call_match

__all__: list[str] = []


def _qa(trajectory: Any, ground_truth: Any, *, answer: Any = None) -> RewardResult[Any]:
    return qa_f1_reward(final_answer_of(trajectory), answer, trajectory)


def _qa_format(
    trajectory: Any, ground_truth: Any, *, answer: Any = None, min_tool_messages: int = 1
) -> RewardResult[Any]:
    return qa_f1_reward_format(
        final_answer_of(trajectory), answer, trajectory, min_tool_messages=min_tool_messages
    )


def _answer(
    trajectory: Any,
    ground_truth: Any,
    *,
    answer: Any = None,
    location: Location = "end",
    rel_tol: float = 1e-9,
    abs_tol: float = 0.0,
) -> RewardResult[Any]:
    return answer_match(
        final_answer_of(trajectory), answer, location=location, rel_tol=rel_tol, abs_tol=abs_tol
    )


def _check_answer(params: dict[str, Any]) -> None:
    location = params.get("location", "end")
    if location not in LOCATIONS:
        raise ValueError(f"location must be one of {', '.join(LOCATIONS)}, got {location!r}")
    for key in ("rel_tol", "abs_tol"):
        value = params.get(key, 0.0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ValueError(f"{key} must be a number >= 0, got {value!r}")


def _exact(trajectory: Any, ground_truth: Any, *, answer: Any = None) -> RewardResult[Any]:
    return exact_tool_match_reward(trajectory, ground_truth)


def _match(
    trajectory: Any,
    ground_truth: Any,
    expected_calls: Any,
    *,
    answer: Any = None,
    order: str = "strict",
    args: str = "exact",
    numbers: str = "exact",
    arg_overrides: Mapping[str, Any] | None = None,
    schema: Any = None,
    row: Mapping[str, Any] | None = None,
) -> RewardResult[Any]:
    if schema == "row":
        schema = (row or {}).get("tools")
        if not schema:  # scoring a results file: the rows' tools are not there
            raise ValueError("tool_call_match: schema='row' but the row has no tools")
    # A message list counts all its calls here, like a Trajectory (all rounds); the ground
    # truth compiled once for the sample, or read here (and said why) when it cannot be.
    return tool_call_match(
        trajectory,
        ground_truth if expected_calls is None else expected_calls,
        order=order,
        args=args,
        numbers=numbers,
        arg_overrides=arg_overrides,
        schema=schema,
    )


def _check_min_tools(params: dict[str, Any]) -> None:
    value = params.get("min_tool_messages", 1)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"min_tool_messages must be an int >= 0, got {value!r}")


def _check_match(params: dict[str, Any]) -> None:
    # tool_call_match validates its modes before comparing anything: one set of rules.
    if params.get("schema") == "row":
        params = {**params, "schema": None}
    tool_call_match([], [], **params)
    if params.get("schema") is not None:  # every tool of a fixed schema, not only called ones
        schema_index(params["schema"])


_ANSWER, _TRUTH = frozenset({"answer"}), frozenset({"ground_truth"})
register_reward("qa_f1_reward", _qa, needs=_ANSWER)
register_reward("qa_f1_reward_format", _qa_format, check=_check_min_tools, needs=_ANSWER)
register_reward("qa_f1_reward_tool", _qa_format, check=_check_min_tools, needs=_ANSWER)
register_reward("answer_match", _answer, pass_threshold=1.0, check=_check_answer, needs=_ANSWER)
register_reward("exact_tool_match_reward", _exact, pass_threshold=1.0, needs=_TRUTH)
register_reward("tool_call_match", _match, pass_threshold=1.0, check=_check_match, needs=_TRUTH)
register_reward("bfcl_verdict", bfcl_verdict, pass_threshold=1.0, needs=_TRUTH)
# A judge may grade against its instructions alone.
register_reward(
    "llm_judge", llm_judge, pass_threshold=1.0, check=check_llm_judge, needs=frozenset()
)
