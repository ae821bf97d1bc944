"""Model results for BFCL's multi-turn entries: the ground truth replayed, and systematic
perturbations of it. Pure functions over agentloop rows (``bfcl_rows``).

A conversation here is per turn a list of steps, a step a list of calls
``(name, arguments JSON text)``: one model reply's tool calls.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from bfcl_perturb import with_control_character

Call = tuple[str, str]
Turns = list[list[list[Call]]]


def ground_truth_calls(row: dict[str, Any]) -> list[list[tuple[str, dict[str, Any]]]]:
    """Per turn, the ground-truth calls as (name, arguments)."""
    return [
        [(c["name"], dict(c["arguments"])) for c in turn["tool_calls"]]
        for turn in row["ground_truth"]["turns"]
    ]


def _call(name: str, arguments: dict[str, Any]) -> Call:
    return name, json.dumps(arguments)


def _per_call(turns: list[list[tuple[str, dict[str, Any]]]]) -> Turns:
    """One step per call (how a sequential agent replays the ground truth)."""
    return [[[_call(n, a)] for n, a in turn] for turn in turns]


def _changed(value: Any) -> Any:
    """A plausible wrong value of the same kind."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.5
    if isinstance(value, str):
        return value + "_x"
    if isinstance(value, list):
        return value[:-1] if value else ["x"]
    if isinstance(value, dict):
        return {**value, "x": 1}
    return "x"


def _with_turn(turns: list[list[Any]], index: int, calls: list[Any]) -> list[list[Any]]:
    return [calls if i == index else list(t) for i, t in enumerate(turns)]


def perturbations(row: dict[str, Any]) -> Iterator[tuple[str, Turns]]:
    """(kind, conversation) pairs: kind names the perturbation (``gt`` first)."""
    truth = ground_truth_calls(row)
    yield "gt", _per_call(truth)
    yield "gt_one_step", [[[_call(n, a) for n, a in turn]] if turn else [] for turn in truth]
    flat = [(t, i) for t, turn in enumerate(truth) for i in range(len(turn))]
    if flat:
        t, i = flat[-1]
        yield "drop_last", _per_call(_with_turn(truth, t, truth[t][:i] + truth[t][i + 1 :]))
    for t, i in flat:
        turn = truth[t]
        yield "drop", _per_call(_with_turn(truth, t, turn[:i] + turn[i + 1 :]))
        yield "extra", _per_call(_with_turn(truth, t, turn[: i + 1] + turn[i:]))
        if i + 1 < len(turn) and turn[i] != turn[i + 1]:
            swapped = [*turn[:i], turn[i + 1], turn[i], *turn[i + 2 :]]
            yield "reorder", _per_call(_with_turn(truth, t, swapped))
        name, arguments = turn[i]
        if arguments:
            key = next(iter(arguments))
            wrong = {**arguments, key: _changed(arguments[key])}
            yield (
                "wrong_arg",
                _per_call(_with_turn(truth, t, [*turn[:i], (name, wrong), *turn[i + 1 :]])),
            )
            value = arguments[key]
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                as_text = {**arguments, key: str(value)}
                yield (
                    "wrong_type",
                    _per_call(_with_turn(truth, t, [*turn[:i], (name, as_text), *turn[i + 1 :]])),
                )
        unexpected = {**arguments, "unexpected_arg": 1}
        yield (
            "extra_arg",
            _per_call(_with_turn(truth, t, [*turn[:i], (name, unexpected), *turn[i + 1 :]])),
        )
    for t in range(len(truth) - 1):
        here, after = truth[t], truth[t + 1]
        if here:  # the last call one turn late
            late = [list(x) for x in truth]
            late[t], late[t + 1] = here[:-1], [here[-1], *after]
            yield "wrong_turn_late", _per_call(late)
        if after:  # the next turn's first call one turn early
            early = [list(x) for x in truth]
            early[t], early[t + 1] = [*here, after[0]], after[1:]
            yield "wrong_turn_early", _per_call(early)
    for t, turn in enumerate(truth):
        if turn:
            yield "empty_turn", _per_call(_with_turn(truth, t, []))
            broken = [[_call(n, a) for n, a in turn] + [(turn[0][0], '{"unterminated')]]
            per_call = _per_call(truth)
            yield "malformed_step", [*per_call[:t], broken, *per_call[t + 1 :]]
    if truth and truth[0]:
        first = truth[0]
        yield (
            "unknown_function",
            _per_call(_with_turn(truth, 0, [*first, ("no_such_function", {})])),
        )
        yield "refused_name", _per_call(_with_turn(truth, 0, [*first, ("exit", {})]))
        yield "repeated_step", _per_call(_with_turn(truth, 0, first + first))
    yield "truncated", _per_call(truth[:-1])
    yield from _step_limit_cases(row, truth)
    yield from _undecodable_step_cases(truth)


# BFCL's step limit is 20 steps a turn; the calls of a 21st still run, then the
# conversation ends. Padding steps change no state: pwd() where the row has a file system
# (multi_turn_base_12's case), else a name that is no function (an error result).
STEP_LIMIT = 20


def _padded(row: dict[str, Any], calls: list[tuple[str, dict[str, Any]]], steps: int) -> Any:
    """A turn of ``steps`` steps: padding, then ``calls`` as the last step."""
    classes = (row.get("environment") or {}).get("involved_classes") or []
    pad = [("pwd", "{}")] if "GorillaFileSystem" in classes else [("no_such_function", "{}")]
    last = [_call(n, a) for n, a in calls] or pad
    return [pad] * (steps - 1) + [last]


def _step_limit_cases(
    row: dict[str, Any], truth: list[list[tuple[str, dict[str, Any]]]]
) -> Iterator[tuple[str, Turns]]:
    per_call = _per_call(truth)
    last = len(truth) - 1
    # the last turn's calls as its 21st step: run, and the conversation ends as it would
    yield "step_21_last", [*per_call[:last], _padded(row, truth[last], STEP_LIMIT + 1)]
    if last > 0:  # the first turn's 21st step: BFCL runs it and ends the conversation there
        yield "step_21_early", [_padded(row, truth[0], STEP_LIMIT + 1)]
    # 20 steps, then the model answers: within the limit, the conversation goes on
    yield "step_20", [_padded(row, truth[0], STEP_LIMIT), *per_call[1:]]


def _undecodable_step_cases(
    truth: list[list[tuple[str, dict[str, Any]]]],
) -> Iterator[tuple[str, Turns]]:
    """A turn opens with an extra step BFCL cannot decode (strict ``json.loads``, then an
    object): it never runs in BFCL, whatever a lenient reader makes of it."""
    turn = next((t for t, calls in enumerate(truth) if calls), None)
    if turn is None:
        return
    name, arguments = truth[turn][0]
    text = json.dumps(arguments)
    for kind, bad in (
        ("raw_tab_step", with_control_character(text, "\t")),
        ("raw_newline_step", with_control_character(text, "\n")),
        ("blank_args_step", ""),
        ("null_args_step", "null"),
        ("not_object_step", "[1, 2]"),
    ):
        turns = _per_call(truth)
        turns[turn] = [[(name, bad)], *turns[turn]]
        yield kind, turns
