"""A tool-call match builds its details on first read: every way of reading a result
gives what it gives once the details are built, and nothing builds them before."""

from __future__ import annotations

import copy
import pickle
from typing import Any
from unittest import mock

import agentloop.evals._call_pairing
import pytest
from agentloop.evals import RewardResult, exact_tool_match_reward, tool_call_match
from agentloop.evals._building import Deferred
from pydantic import BaseModel

A = {"name": "A", "arguments": {"x": 1}}
B = {"name": "B", "arguments": {"y": "two"}}
CASES = [
    ("pass", lambda: tool_call_match([B, A], [A, B], order="unordered")),
    ("failure", lambda: tool_call_match([A], [B])),
    ("nothing expected", lambda: tool_call_match([A], None)),
    ("exact", lambda: exact_tool_match_reward([{"role": "assistant", "tool_calls": [A]}], {
        "tool_calls": [A]})),
]  # fmt: skip


class Row(BaseModel):
    rewards: dict[str, RewardResult[Any]]


def _unread(make: Any) -> RewardResult[Any]:
    result = make()
    assert type(result.__dict__["details"]) is Deferred  # nothing read it yet
    return result


def _read(make: Any) -> RewardResult[Any]:
    result = make()
    assert result.details is not None
    assert type(result.__dict__["details"]) is not Deferred
    return result


READINGS = {
    "dump": lambda r: r.model_dump(),
    "json": lambda r: r.model_dump_json(),
    "nested dump": lambda r: Row(rewards={"m": r}).model_dump(mode="json"),
    "repr": repr,
    "iteration": lambda r: dict(r)["details"],
    "pickle": lambda r: pickle.loads(pickle.dumps(r)).model_dump(),
    "model_copy": lambda r: r.model_copy().model_dump(),
    "deepcopy": lambda r: copy.deepcopy(r).model_dump(),
    "revalidated": lambda r: type(r).model_validate(r.model_dump()).model_dump(),
}


@pytest.mark.parametrize("reading", READINGS)
@pytest.mark.parametrize(("case", "make"), CASES)
def test_each_reading_of_an_unread_result_gives_what_the_built_one_gives(
    case: str, make: Any, reading: str
) -> None:
    read = READINGS[reading]
    assert read(_unread(make)) == read(_read(make))


@pytest.mark.parametrize(("case", "make"), CASES)
def test_unread_and_built_results_are_equal_either_way_round(case: str, make: Any) -> None:
    assert _unread(make) == _read(make)
    assert _read(make) == _unread(make)
    assert _unread(make) != _unread(CASES[1][1] if case != "failure" else CASES[0][1])


def test_a_pickle_and_a_copy_carry_the_built_details() -> None:
    result = _unread(CASES[0][1])
    state = pickle.loads(pickle.dumps(result)).__dict__["details"]
    assert type(state).__name__ == "ToolMatchDetails"
    assert copy.copy(_unread(CASES[0][1])).__dict__["details"] is not None
    unread = _unread(CASES[0][1])
    assert copy.copy(unread).details is unread.details


def test_a_pass_diagnoses_its_calls_only_when_the_details_are_read() -> None:
    diagnostics = agentloop.evals._call_pairing.diagnostics
    with mock.patch("agentloop.evals._call_pairing.diagnostics", side_effect=diagnostics) as spy:
        result = tool_call_match([B, A], [A, B], order="unordered")
        assert (result.score, spy.call_count) == (1.0, 0)
        assert [d.generated_index for d in result.details.calls] == [1, 0]
        assert result.details.call_f1 == 1.0
        assert spy.call_count == 1  # built once, then kept


def test_details_set_by_hand_replace_deferred_ones() -> None:
    result, other = _unread(CASES[0][1]), _read(CASES[1][1])
    result.details = other.details
    assert result.model_dump()["details"] == other.model_dump()["details"]


def test_a_result_without_details_still_says_so() -> None:
    bare = RewardResult[Any].model_construct(score=1.0, reason="r")
    with pytest.raises(AttributeError):
        _ = bare.details
    assert repr(bare).startswith("RewardResult")
