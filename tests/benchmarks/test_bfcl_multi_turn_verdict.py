"""bfcl_multi_turn_verdict: BFCL's multi-turn rules, and agreement with BFCL's own
multi_turn_checker (imported from the installed bfcl-eval) on the fixture's entries."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentloop.benchmarks import bfcl_multi_turn_verdict
from agentloop.benchmarks.bfcl._data import bfcl_rows
from agentloop.benchmarks.bfcl._multi import MULTI_TURN_CATEGORIES
from agentloop.benchmarks.bfcl._package import bfcl_package
from agentloop.engine import Trajectory, TurnRecord
from agentloop.engine._wire import from_wire
from tests.support.harness import bench_module

perturb = bench_module("bfcl_multi_turn_perturb")

VERDICT_TURNS = list[list[list[tuple[str, str]]]]


def _row(category: str, number: int) -> dict[str, Any]:
    return next(r for r in bfcl_rows(category) if r["id"] == f"{category}_{number}")


def conversation(row: dict[str, Any], turns: VERDICT_TURNS) -> list[dict[str, Any]]:
    """OpenAI messages: the row's user turns, one assistant message per step, a final answer."""
    user_turns = [row["messages"]] + [t["messages"] for t in row["turns"]]
    messages: list[dict[str, Any]] = []
    for number, (asked, steps) in enumerate(zip(user_turns, turns, strict=False)):
        messages += asked
        for index, step in enumerate(steps):
            calls = [
                {"id": f"c{number}_{index}_{k}", "type": "function",
                 "function": {"name": name, "arguments": arguments}}
                for k, (name, arguments) in enumerate(step)
            ]  # fmt: skip
            messages.append({"role": "assistant", "content": "", "tool_calls": calls})
            messages += [{"role": "tool", "tool_call_id": c["id"], "content": "ok"} for c in calls]
        messages.append({"role": "assistant", "content": "Done."})
    return messages


def _truth(row: dict[str, Any]) -> VERDICT_TURNS:
    return dict(perturb.perturbations(row))["gt"]


def test_the_ground_truth_passes_and_names_the_turns() -> None:
    row = _row("multi_turn_base", 0)
    result = bfcl_multi_turn_verdict(conversation(row, _truth(row)), row)
    assert result.score == 1.0 and result.details.error_type is None
    assert result.reason.startswith(f"all {len(row['ground_truth']['turns'])} turn(s) match")


def test_a_missing_state_change_names_the_class_attribute_and_turn() -> None:
    row = _row("multi_turn_base", 0)
    turns = _truth(row)
    turns[0] = turns[0][:-1]  # no mv in the first turn: the file stays where it was
    result = bfcl_multi_turn_verdict(conversation(row, turns), row)
    assert result.score == 0.0
    assert result.details.error_type == "multi_turn:instance_state_mismatch"
    assert (result.details.turn, result.details.class_name) == (1, "GorillaFileSystem")
    assert result.details.attribute == "root"
    assert result.reason.startswith("turn 1: GorillaFileSystem.root differs")


def test_a_missing_result_is_a_response_mismatch() -> None:
    row = _row("multi_turn_base", 0)
    turns = _truth(row)
    read_only = [i for i, step in enumerate(turns[1]) if step[0][0] == "grep"]
    turns[1] = [s for i, s in enumerate(turns[1]) if i not in read_only]
    result = bfcl_multi_turn_verdict(conversation(row, turns), row)
    assert result.details.error_type == "multi_turn:execution_response_mismatch"
    assert result.details.turn == 2 and result.details.missing_results
    assert "budget analysis" in result.details.missing_results[0]


def test_an_earlier_result_counts_for_a_later_turn() -> None:
    row = _row("multi_turn_base", 0)
    turns = _truth(row)
    cd_temp, grep = turns[1]  # turn 2's ground truth: cd temp, grep
    assert cd_temp[0][0] == "cd" and grep[0][0] == "grep"
    turns[1] = [cd_temp]
    without = bfcl_multi_turn_verdict(conversation(row, turns), row)
    assert without.details.error_type == "multi_turn:execution_response_mismatch"
    back = [("cd", json.dumps({"folder": ".."}))]
    turns[0] = [*turns[0], cd_temp, grep, back]  # grep one turn early, then back to document
    assert bfcl_multi_turn_verdict(conversation(row, turns), row).score == 1.0


def test_no_call_where_the_ground_truth_has_some_fails_that_turn() -> None:
    row = _row("multi_turn_base", 0)
    turns = _truth(row)
    turns[2] = []
    result = bfcl_multi_turn_verdict(conversation(row, turns), row)
    assert result.details.error_type == "multi_turn:empty_turn_model_response"
    assert result.details.turn == 3 and result.reason.startswith("turn 3: no tool call")


def test_a_step_with_malformed_arguments_is_dropped_whole() -> None:
    row = _row("multi_turn_base", 0)
    turns = _truth(row)
    turns[0] = [[*turns[0][0], ("ls", "{not json")], *turns[0][1:]]  # the cd goes with it
    result = bfcl_multi_turn_verdict(conversation(row, turns), row)
    assert result.score == 0.0 and result.details.steps_dropped == 1


def test_missing_turns_or_a_step_limit_before_the_last_turn_are_force_terminated() -> None:
    row = _row("multi_turn_base", 0)
    messages = conversation(row, _truth(row))
    short = bfcl_multi_turn_verdict(conversation(row, _truth(row)[:-1]), row)
    assert short.score == 0.0 and short.details.error_type == "multi_turn:force_terminated"
    starts = [i for i, m in enumerate(messages) if m["role"] == "user"]
    records = [TurnRecord(message_start=s, step_start=0, stop_reason="final") for s in starts]
    records[1] = records[1].model_copy(update={"stop_reason": "max_rounds"})
    trajectory = Trajectory.model_validate({
        "messages": [from_wire(m) for m in messages], "stop_reason": "final", "turns": records,
    })  # fmt: skip
    result = bfcl_multi_turn_verdict(trajectory, row)
    assert result.details.error_type == "multi_turn:force_terminated"
    assert result.reason.startswith("turn 2 ended at the step limit")
    records[1] = records[1].model_copy(update={"stop_reason": "final"})
    passing = trajectory.model_copy(update={"turns": records})
    assert bfcl_multi_turn_verdict(passing, row).score == 1.0
    # BFCL runs the last turn's 21st step and checks the entry: no force-termination
    records[-1] = records[-1].model_copy(update={"stop_reason": "max_rounds"})
    last = trajectory.model_copy(update={"turns": records})
    assert bfcl_multi_turn_verdict(last, row).score == 1.0


def test_without_its_row_the_verdict_says_so() -> None:
    with pytest.raises(ValueError, match="needs the BFCL row"):
        bfcl_multi_turn_verdict([], None)  # type: ignore[arg-type]


def _bfcl_valid(row: dict[str, Any], turns: VERDICT_TURNS, entry: dict, truth: list) -> bool:
    """BFCL's own multi_turn_checker on the calls decoded the way BFCL's OpenAI FC decoder
    writes them (``name(k=repr(v),...)``); a step whose arguments do not parse is dropped."""
    assert bfcl_package() is not None  # importable where make installs it, too
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    decoded = []
    for turn in turns:
        steps = []
        for step in turn:
            try:
                parsed = [(n, json.loads(a)) for n, a in step]
                text = [f"{n}({','.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in parsed]
            except (ValueError, AttributeError):
                continue
            if text:
                steps.append(text)
        decoded.append(steps)
    if len(decoded) != len(truth):
        return False
    before = set(vars(multi_turn_utils))
    try:
        return bool(multi_turn_checker(decoded, truth, entry, "", f"test_{id(turns)}")["valid"])
    finally:
        for name in set(vars(multi_turn_utils)) - before:
            delattr(multi_turn_utils, name)


@pytest.mark.parametrize("category", MULTI_TURN_CATEGORIES)
def test_agrees_with_bfcls_checker_on_every_perturbation(category: str) -> None:
    from tests.benchmarks.conftest import FIXTURE

    name = f"BFCL_v4_{category}.json"
    entries = {e["id"]: e for e in map(json.loads, (FIXTURE / name).read_text().splitlines())}
    answers = (FIXTURE / "possible_answer" / name).read_text().splitlines()
    truths = {a["id"]: a["ground_truth"] for a in map(json.loads, answers)}
    checked = passed = 0
    for row in bfcl_rows(category):
        for kind, turns in perturb.perturbations(row):
            ours = bfcl_multi_turn_verdict(conversation(row, turns), row).score == 1.0
            theirs = _bfcl_valid(row, turns, entries[row["id"]], truths[row["id"]])
            assert ours == theirs, (row["id"], kind, turns)
            checked, passed = checked + 1, passed + ours
    assert checked > 100 and 0 < passed < checked
