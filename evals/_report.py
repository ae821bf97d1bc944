"""Assembling tool-match results: rates, per-call diagnostics and the reason text."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ._building import Deferred
from ._calls import Call
from ._results import CallDiagnostic, RewardResult, ToolMatchDetails, trusted

__all__ = ["ToolMatchResult", "describe", "equal_pair", "make_result", "not_expected"]

ToolMatchResult = RewardResult[ToolMatchDetails]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def describe(diag: dict[str, Any], exp: list[Call], gen: list[Call]) -> str:
    """One clause saying what went wrong with a pairing (a ``diagnose`` dict)."""
    e_at, g_at = diag["expected_index"], diag["generated_index"]
    if e_at is None:
        return not_expected(g_at, diag["generated_name"])
    where = f"expected call {e_at} ({diag['expected_name']!r})"
    if g_at is None:
        return f"{where} was not made"
    if diag["expected_name"] != diag["generated_name"]:
        return f"{where}: generated call {g_at} is {diag['generated_name']!r}"
    e, g = exp[e_at].args, gen[g_at].args
    parts = [
        f"argument {k!r} expected {_short(e[k])}, got {_short(g[k])}"
        for k in diag["mismatched_args"][:3]
        if isinstance(e, Mapping) and isinstance(g, Mapping) and k in e and k in g
    ]
    if diag["missing_args"]:
        parts.append(f"missing {diag['missing_args']}")
    if diag["extra_args"]:
        parts.append(f"extra {diag['extra_args']}")
    if diag["note"]:
        parts.append(diag["note"])
    return f"{where}: " + ("; ".join(parts) or "arguments differ under the rule")


def not_expected(index: int, name: str) -> str:
    """The clause for a generated call that nobody expected."""
    return f"generated call {index} ({name!r}) was not expected"


def _rates(matched: int, n_gen: int, n_exp: int) -> tuple[float, float, float]:
    """Call precision, recall and F1; an empty side counts as fully precise/recalled."""
    precision = matched / n_gen if n_gen else 1.0
    recall = matched / n_exp if n_exp else 1.0
    total = precision + recall
    return precision, recall, (2 * precision * recall / total if total else 0.0)


def make_result(
    score: float,
    reason: str,
    gen: list[Call],
    exp: list[Call],
    matched: int,
    calls: list[dict[str, Any]] | Callable[[], list[dict[str, Any]]],
    notes: list[str],
    modes: tuple[str, str, str] = ("strict", "exact", "exact"),
) -> ToolMatchResult:
    """The result; its details are built when first read. ``calls``: ``diagnose``-shaped
    dicts, or the function that makes them.

    >>> r = make_result(1.0, "all 1 tool call(s) match", [Call("f", {})], [Call("f", {})], 1,
    ...                 [equal_pair(0, "f")], [])
    >>> r.details.call_f1, r.details.calls[0].matched
    (1.0, True)
    """
    details = Deferred(_details, len(gen), len(exp), matched, calls, notes, modes)
    return trusted(ToolMatchResult, {"score": score, "reason": reason, "details": details})


def _details(
    n_gen: int,
    n_exp: int,
    matched: int,
    calls: list[dict[str, Any]] | Callable[[], list[dict[str, Any]]],
    notes: list[str],
    modes: tuple[str, str, str],
) -> ToolMatchDetails:
    precision, recall, f1 = _rates(matched, n_gen, n_exp)
    total, n_expected = 0.0, 0
    diagnostics = []
    for d in calls() if callable(calls) else calls:
        if d["expected_index"] is not None:
            total += d["arg_agreement"]
            n_expected += 1
        diagnostics.append(trusted(CallDiagnostic, d))
    return trusted(
        ToolMatchDetails,
        {
            "order": modes[0],
            "args": modes[1],
            "numbers": modes[2],
            "generated_count": n_gen,
            "expected_count": n_exp,
            "matched_count": matched,
            "call_precision": precision,
            "call_recall": recall,
            "call_f1": f1,
            "mean_arg_agreement": total / n_expected if n_expected else 1.0,
            "calls": diagnostics,
            "notes": notes,
        },
    )


def equal_pair(index: int, name: str, generated_index: int | None = None) -> dict[str, Any]:
    """The diagnostic of a pair with nothing to diff: identical calls, or calls whose every
    argument is acceptable and expected (``generated_index``: when positions differ)."""
    return {
        "expected_index": index,
        "generated_index": index if generated_index is None else generated_index,
        "expected_name": name,
        "generated_name": name,
        "matched": True,
        "arg_agreement": 1.0,
        "mismatched_args": [],
        "missing_args": [],
        "extra_args": [],
        "note": "",
    }
