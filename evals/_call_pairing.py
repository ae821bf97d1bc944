"""Pairing generated with expected calls for ``tool_call_match``, and the diagnostics.

``paired_at_once`` settles the common case cheaply: as many calls as expected, each
fitting at its own place (strict) or at the first free expected call (the others). It
pairs exactly as the general ``paired_by_rules`` would then, so both give the same
result; the general path runs only when it fails, building every comparison and the
closest-call diagnostics.
"""

from __future__ import annotations

from typing import Any

from ._calls import Call
from ._compare import ArgRule, align_in_order, diagnose, max_matching
from ._report import describe, equal_pair

__all__ = [
    "diagnostics",
    "failure_reason",
    "paired_at_once",
    "paired_by_rules",
    "pass_diagnostics",
]


def paired_at_once(
    gen: list[Call],
    exp: list[Call],
    broken: list[str | None] | None,
    default_rule: ArgRule,
    per_tool: dict[str, ArgRule],
    strict: bool,
) -> list[int] | None:
    """The generated partner of every expected call, or None when the calls do not
    all pair this way (the general path decides then).

    Unordered, each generated call takes the first free expected call it fits, as the
    first round of :func:`max_matching`'s augmenting-path search would: when this pairs
    every call, maximum matching pairs the same way.

    >>> same = lambda g, e: g == e
    >>> paired_at_once([Call("f", 2), Call("f", 1)], [Call("f", 1), Call("f", 2)], None,
    ...                same, {}, strict=False)
    [1, 0]
    """
    n = len(gen)
    if n != len(exp) or (broken is not None and any(broken)):
        return None
    if strict:
        for g, e in zip(gen, exp, strict=True):
            if g.name != e.name or not per_tool.get(e.name, default_rule)(g.args, e.args):
                return None
        return list(range(n))
    partner = [-1] * n
    for i, g in enumerate(gen):
        for j, e in enumerate(exp):
            if (
                partner[j] < 0
                and g.name == e.name
                and per_tool.get(e.name, default_rule)(g.args, e.args)
            ):
                partner[j] = i
                break
        else:
            return None
    return partner


def paired_by_rules(
    gen: list[Call],
    exp: list[Call],
    broken: list[str | None] | None,
    default_rule: ArgRule,
    per_tool: dict[str, ArgRule],
    order: str,
) -> tuple[dict[int, int], list[list[bool]]]:
    """The generated partner of each paired expected call, and every comparison: the
    longest order-preserving alignment for ``strict``, maximum bipartite matching
    otherwise."""
    partners: dict[int, int] = {}
    if not exp or not gen:  # nothing to compare
        return partners, [[] for _ in gen]
    ok = [
        [g.name == e.name and per_tool.get(e.name, default_rule)(g.args, e.args) for e in exp]
        if broken is None or broken[i] is None
        else [False] * len(exp)  # a call breaking its schema pairs with nothing
        for i, g in enumerate(gen)
    ]
    if order == "strict":
        for i, j in align_in_order(ok):
            partners[j] = i
        return partners, ok
    adjacency = [[j for j, fits in enumerate(row) if fits] for row in ok]
    for i, j in enumerate(max_matching(adjacency, len(exp))):
        if j >= 0:
            partners[j] = i
    return partners, ok


def diagnostics(
    gen: list[Call],
    exp: list[Call],
    partner: dict[int, int],
    ok: list[list[bool]] | None,
    plain: bool,
    per_tool: dict[str, ArgRule],
    numeric: bool,
) -> list[dict[str, Any]]:
    """A ``diagnose`` dict per expected call (paired, or against the closest unpaired call
    of its name), then one per generated call left over. ``partner``: expected index ->
    generated index; ``plain``: exact arguments, so a paired call has nothing to diff."""
    if len(partner) == len(gen):  # every generated call paired (a pass, mostly)
        free = []
    else:
        paired = set(partner.values())
        free = [i for i in range(len(gen)) if i not in paired]
    calls: list[dict[str, Any]] = []
    for j, e in enumerate(exp):
        if j in partner:
            i = partner[j]
            if plain and e.name not in per_tool:
                calls.append(equal_pair(j, e.name, i))
            else:
                calls.append(diagnose(j, e, i, gen[i], True, numeric))
            continue
        options = [
            (i, diagnose(j, e, i, gen[i], False, numeric)) for i in free if gen[i].name == e.name
        ]
        if not options:
            calls.append(diagnose(j, e, None, None, False, numeric))
            continue
        i, best = max(options, key=lambda option: option[1]["arg_agreement"])
        if ok is not None and ok[i][j]:
            best["note"] = "fits the rules but could not be paired (order or count)"
        free.remove(i)
        calls.append(best)
    for i in free:
        calls.append(diagnose(None, None, i, gen[i], False, numeric))
    return calls


def pass_diagnostics(
    gen: list[Call],
    exp: list[Call],
    partner: list[int],
    plain: bool,
    per_tool: dict[str, ArgRule],
    numeric: bool,
) -> list[dict[str, Any]]:
    """:func:`diagnostics` of calls that all paired (``paired_at_once``'s list)."""
    return diagnostics(gen, exp, dict(enumerate(partner)), None, plain, per_tool, numeric)


def failure_reason(
    summary: str, order: str, calls: list[dict[str, Any]], exp: list[Call], gen: list[Call]
) -> str:
    """The summary and the first failing pairing on the side the mode checks (extras for
    subset, misses for superset)."""
    for d in calls:
        if (
            not d["matched"]
            and (order != "subset" or d["generated_index"] is not None)
            and (order != "superset" or d["expected_index"] is not None)
        ):
            return summary + "; " + describe(d, exp, gen)
    return summary
