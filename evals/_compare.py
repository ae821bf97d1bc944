"""Value comparison, argument rules and call pairing (matching, alignment)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from ._calls import Call
from ._equal import kind_of as _kind
from ._equal import values_equal
from ._matchers import is_optional, matches, object_matches

__all__ = [
    "ARG_MODES",
    "ArgRule",
    "align_in_order",
    "arg_rule",
    "diagnose",
    "max_matching",
    "values_equal",
]

ArgRule = Callable[[Any, Any], bool]
ARG_MODES = ("exact", "ignore", "subset", "superset")


def _subset(small: Any, big: Any, numeric: bool) -> bool:
    """Every member of generated ``small`` is in expected ``big``, acceptably."""
    if isinstance(small, Mapping) and isinstance(big, Mapping):
        return all(k in big and matches(v, big[k], numeric) for k, v in small.items())
    return matches(small, big, numeric)


def _superset(big: Any, small: Any, numeric: bool) -> bool:
    """Every member of expected ``small`` is in generated ``big`` (or is optional)."""
    if isinstance(small, Mapping) and isinstance(big, Mapping):
        return all(
            matches(big[k], v, numeric) if k in big else is_optional(v) for k, v in small.items()
        )
    return matches(big, small, numeric)


def arg_rule(mode: str, numeric: bool) -> ArgRule:
    """The argument predicate ``(generated, expected) -> bool`` for a mode name.

    ``subset``: every generated argument is expected with an equal value;
    ``superset``: every expected argument was generated with an equal value.
    Non-object arguments fall back to equality for both.

    >>> arg_rule("subset", False)({"x": 1}, {"x": 1, "y": 2})
    True
    """
    if mode == "exact":  # plain expected arguments (the common case) skip a call layer
        return lambda g, e: (
            object_matches(g, e, numeric) if type(e) is dict else matches(g, e, numeric)
        )
    if mode == "ignore":
        return lambda g, e: True
    if mode == "subset":
        return lambda g, e: _subset(g, e, numeric)
    if mode == "superset":
        return lambda g, e: _superset(g, e, numeric)
    raise ValueError(f"unknown args mode {mode!r}; valid: {', '.join(ARG_MODES)}")


def diagnose(
    expected_index: int | None,
    expected: Call | None,
    generated_index: int | None,
    generated: Call | None,
    matched: bool,
    numeric: bool,
) -> dict[str, Any]:
    """Describe one pairing as :class:`CallDiagnostic` fields.

    A plain dict: the whole result is validated once, which is much cheaper
    than one pydantic model per call.

    >>> d = diagnose(0, Call("f", {"a": 1, "b": 2}), 0, Call("f", {"a": 1, "c": 3}), False, False)
    >>> d["arg_agreement"], d["missing_args"], d["extra_args"]
    (0.5, ['b'], ['c'])
    """
    mismatched: list[str] = []
    missing: list[str] = []
    extra: list[str] = []
    note = ""
    agreement = 0.0
    if expected is not None and generated is not None:
        e, g = expected.args, generated.args
        if isinstance(e, Mapping) and isinstance(g, Mapping):
            for key, value in e.items():
                if key not in g:
                    if not is_optional(value):
                        missing.append(str(key))
                elif not matches(g[key], value, numeric):
                    mismatched.append(str(key))
            extra = [str(k) for k in g if k not in e]
            agreement = (len(e) - len(missing) - len(mismatched)) / len(e) if e else 1.0
        elif matches(g, e, numeric):
            agreement = 1.0
        else:
            note = f"arguments are not both JSON objects ({_kind(g)} vs {_kind(e)}) and differ"
        if expected.name != generated.name:
            note = (note + "; " if note else "") + "names differ"
    elif expected is not None:
        note = "no generated call to compare with"
    else:
        note = "generated call was not expected"
    return {
        "expected_index": expected_index,
        "generated_index": generated_index,
        "expected_name": expected.name if expected is not None else None,
        "generated_name": generated.name if generated is not None else None,
        "matched": matched,
        "arg_agreement": agreement,
        "mismatched_args": mismatched,
        "missing_args": missing,
        "extra_args": extra,
        "note": note,
    }


def max_matching(adjacency: list[list[int]], n_right: int) -> list[int]:
    """Maximum bipartite matching by BFS augmenting paths (Kuhn's algorithm).

    ``adjacency[i]`` lists the right vertices left vertex ``i`` may pair with.
    Returns the right partner of each left vertex, or -1. Greedy first-fit is
    not enough: an early choice can block a later vertex, and augmenting paths
    undo such choices.

    >>> max_matching([[0, 1], [0]], 2)  # greedy would pair 0-0 and strand 1
    [1, 0]
    """
    right_of = [-1] * len(adjacency)
    left_of = [-1] * n_right
    for start in range(len(adjacency)):
        came_from: dict[int, int] = {}  # right vertex -> left vertex that reached it
        queue = deque([start])
        end = -1
        while queue and end < 0:
            u = queue.popleft()
            for v in adjacency[u]:
                if v in came_from:
                    continue
                came_from[v] = u
                if left_of[v] < 0:
                    end = v
                    break
                queue.append(left_of[v])
        while end >= 0:  # flip the path: each left vertex takes the right it reached
            u = came_from[end]
            previous = right_of[u]
            right_of[u], left_of[end] = end, u
            end = previous
    return right_of


def align_in_order(ok: list[list[bool]]) -> list[tuple[int, int]]:
    """Longest order-preserving pairing (LCS) of generated rows with expected columns.

    >>> align_in_order([[True, False, True], [False, False, True]])  # rows: generated
    [(0, 0), (1, 2)]
    >>> align_in_order([[False, True], [True, False]])  # a swap keeps only one pair
    [(1, 0)]
    """
    n = len(ok)
    m = len(ok[0]) if n else 0
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below, ok_row = best[i], best[i + 1], ok[i]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if ok_row[j] else max(below[j], row[j + 1])
    pairs = []
    i = j = 0
    while i < n and j < m:
        if ok[i][j] and best[i][j] == best[i + 1][j + 1] + 1:
            pairs.append((i, j))
            i += 1
            j += 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs
