"""The expected side of a tool-call comparison: the ground truth's calls, each with its
arguments compiled once into a :class:`~agentloop.evals._matchers.Matcher`; or, when the
ground truth cannot be used whole, the reason why."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from ._calls import Call, calls_from_items, collect_calls
from ._matchers import Matcher, _new, compile_matchers

__all__ = ["ExpectedCall", "UnusableGroundTruth", "expected_calls", "ground_truth_calls"]


# Keys that make an object a ground truth, a message or a call (anything else holds no call).
_CALL_KEYS = frozenset(
    ("tool_calls", "role", "content", "function", "name", "arguments", "args", "parameters")
)


class ExpectedCall(NamedTuple):
    """One expected call: its name, its arguments as written and compiled."""

    name: str
    args: Any
    matcher: Matcher


class UnusableGroundTruth(ValueError):
    """A ground truth that cannot be read whole: a reward scores it 0 with this reason."""


_TURNS = (
    "unusable ground truth: it has turns (a multi-turn conversation), and this reward "
    "compares one list of calls; score the turns with env_state_match / env_response_match"
)


def _no_turns(ground_truth: Mapping[str, Any]) -> None:
    # {"turns": [...]} holds no top-level call: read as "no calls expected", it would score
    # the run that makes the right calls 0 and the run that makes none 1.
    if "turns" in ground_truth and "tool_calls" not in ground_truth:
        raise UnusableGroundTruth(_TURNS)


def ground_truth_calls(ground_truth: Any) -> list[Call]:
    """The calls of a reward-kit ground truth ``{"tool_calls": [...]}`` (a dict or its
    JSON; None: no calls), as ``exact_tool_match_reward`` reads it.

    >>> ground_truth_calls('{"tool_calls": [{"name": "f", "arguments": {"x": 1}}]}')
    [ReadCall(name='f', args={'x': 1}, problem=None)]
    >>> ground_truth_calls({"tool_calls": [{"nme": "f", "arguments": {}}]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    agentloop.evals._expected_calls.UnusableGroundTruth: unusable ground truth: tool call 0 has...
    """
    if ground_truth is None:
        return []
    ground_truth = _decoded(ground_truth)
    if not isinstance(ground_truth, Mapping):
        raise UnusableGroundTruth(
            f"unusable ground truth: a {type(ground_truth).__name__}, not a dict"
        )
    _no_turns(ground_truth)
    notes: list[str] = []
    return _usable(calls_from_items(ground_truth.get("tool_calls"), notes, "ground truth"), notes)


def _decoded(value: Any) -> Any:
    """A ground truth given as JSON text, decoded; any other value as it is."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        raise UnusableGroundTruth(
            f"unusable ground truth: a string that is not JSON: {value[:100]!r}"
        ) from None


def _usable(calls: list[Call], notes: list[str]) -> list[Call]:
    """``calls`` when nothing of the ground truth was skipped and every call is named."""
    if notes:  # a call dropped silently would change what is expected
        for suffix in ("; skipped", "; ignored", "; no calls"):
            notes[0] = notes[0].removesuffix(suffix)
        raise UnusableGroundTruth(f"unusable {notes[0]}")
    for i, call in enumerate(calls):
        if not call.name:
            raise UnusableGroundTruth(f"unusable ground truth: tool call {i} has no function name")
    return calls


def expected_calls(
    expected: Any,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    literal: bool = False,
) -> tuple[ExpectedCall, ...]:
    """The expected calls of ``expected`` (any shape ``collect_calls`` reads, calls already
    read, or calls compiled already: returned as they are), compiled; ``overrides``:
    acceptable values by tool and argument, replacing the expected ones. ``literal``: no
    matchers (JSON identity). ``UnusableGroundTruth`` when a call cannot be read or has no
    name; ValueError on a bad matcher.

    >>> [(e.name, e.matcher.kind) for e in expected_calls([{"name": "f", "arguments": {}}])]
    [('f', 'object')]
    """
    if type(expected) is tuple and all(type(c) is ExpectedCall for c in expected):
        if not overrides:  # compiled when the row was read
            return expected
        calls = [Call(c.name, c.args) for c in expected]
    elif type(expected := _decoded(expected)) is list and all(type(c) is Call for c in expected):
        calls = expected  # read already (JSON text of any shape is decoded first)
    elif isinstance(expected, Mapping) and not _CALL_KEYS.intersection(expected):
        _no_turns(expected)
        calls = []  # an object with no call in it ({}, {"answer": ...}): nothing expected
    else:
        notes: list[str] = []
        calls = _usable(collect_calls(expected, notes, "ground truth"), notes)
    out = []
    for call in calls:
        args = call.args
        extra = overrides.get(call.name) if overrides else None
        if extra is not None and isinstance(args, Mapping):
            args = {**args, **extra}
        out.append(_new(ExpectedCall, (call.name, args, compile_matchers(args, literal=literal))))
    return tuple(out)
