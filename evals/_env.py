"""Rewards over a stateful environment: end states and call results, turn by turn.

Both read the ``environment`` input (the caller executes; these only compare)::

    {"states": [...], "expected_states": [...] | None,
     "results": [[...], ...], "expected_results": [[...], ...] | None}

``states[k]`` is the agent's environment snapshot after turn ``k``; ``expected_states[k]``
the snapshot after executing the ground truth's calls of turns ``0..k`` in a fresh
environment. ``results[k]`` are the texts of the agent's executed calls in turn ``k``;
``expected_results[k]`` those of the ground-truth calls of turn ``k``. The rules are
BFCL's multi-turn checker's: every turn's state must equal the expected one, and the
agent's results up to turn ``k`` must contain turn ``k``'s expected results (an unordered
multiset). Turns are numbered from 1 in reasons.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ._registry import register_reward
from ._result_models import RewardResult

__all__ = ["env_response_match", "env_state_match", "first_difference"]

_MISSING = object()


def _show(value: Any, limit: int = 80) -> str:
    text = "(absent)" if value is _MISSING else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[:limit] + "..."


def first_difference(expected: Any, actual: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first place two JSON values differ: (path, expected, actual), or None.

    Keys are visited in sorted order, so the answer does not depend on insertion order.

    >>> first_difference({"a": {"b": 1, "c": [1, 2]}}, {"a": {"b": 1, "c": [1, 3]}})
    ('a.c[1]', 2, 3)
    """
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(expected.keys() | actual.keys(), key=str):
            here = f"{path}.{key}" if path else str(key)
            found = first_difference(expected.get(key, _MISSING), actual.get(key, _MISSING), here)
            if found is not None:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(want, got, f"{path}[{index}]")
            if found is not None:
                return found
        if len(expected) != len(actual):
            return f"{path}(length)", len(expected), len(actual)
        return None
    same = type(expected) is type(actual) and expected == actual
    return None if same else (path or "(state)", expected, actual)


def _parts(environment: Any, key: str) -> tuple[list[Any], list[Any] | None]:
    if not isinstance(environment, Mapping):
        raise TypeError("the environment input is missing (configure an environment)")
    return list(environment.get(key) or []), environment.get(f"expected_{key}")


def env_state_match(environment: Any) -> RewardResult[Any]:
    """1.0 when the agent's environment state equals the expected state after every turn.

    >>> env = {"states": [{"n": 1}, {"n": 3}], "expected_states": [{"n": 1}, {"n": 2}]}
    >>> r = env_state_match(env)
    >>> r.score, r.reason
    (0.0, 'turn 2: n differs: expected 2, got 3')
    """
    states, expected = _parts(environment, "states")
    if expected is None:
        return RewardResult(score=0.0, reason="no ground-truth calls to compare with", details=None)
    for k, want in enumerate(expected):
        if k >= len(states):
            reason = f"turn {k + 1}: the agent's run has only {len(states)} turn(s)"
            return RewardResult(score=0.0, reason=reason, details={"turn": k + 1})
        found = first_difference(want, states[k])
        if found is not None:
            path, was, now = found
            reason = f"turn {k + 1}: {path} differs: expected {_show(was)}, got {_show(now)}"
            details = {
                "turn": k + 1,
                "path": path,
                "expected": None if was is _MISSING else was,
                "actual": None if now is _MISSING else now,
            }
            return RewardResult(score=0.0, reason=reason, details=details)
    reason = f"the state matches after each of {len(expected)} turn(s)"
    return RewardResult(score=1.0, reason=reason, details={"turns": len(expected)})


def env_response_match(environment: Any) -> RewardResult[Any]:
    """1.0 when, at every turn, the agent's results so far include that turn's expected
    results (counted, in any order).

    >>> env = {"results": [["ok: 5"], []], "expected_results": [["ok: 5"], ["ok: 7"]]}
    >>> env_response_match(env).reason
    "turn 2: expected result 'ok: 7' is not among the agent's results so far"
    """
    results, expected = _parts(environment, "results")
    if expected is None:
        return RewardResult(score=0.0, reason="no ground-truth calls to compare with", details=None)
    seen: Counter[str] = Counter()
    for k, wanted in enumerate(expected):
        if k < len(results):
            seen.update(results[k])
        missing = Counter(wanted) - seen
        if missing:
            text = sorted(missing)[0]
            shown = text if len(text) <= 80 else text[:80] + "..."
            reason = (
                f"turn {k + 1}: expected result {shown!r} is not among the agent's results so far"
            )
            details = {"turn": k + 1, "missing": sorted(missing.elements())}
            return RewardResult(score=0.0, reason=reason, details=details)
    reason = f"every expected result was returned, in each of {len(expected)} turn(s)"
    return RewardResult(score=1.0, reason=reason, details={"turns": len(expected)})


register_reward("env_state_match", env_state_match, pass_threshold=1.0)
register_reward("env_response_match", env_response_match, pass_threshold=1.0)
