"""What a tool-call comparison reports: a diagnostic per call (which argument differed,
and how), the rates, and the one clause a reason names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._calls import Call
from ._expected_calls import ExpectedCall
from ._matchers import kind_of, matches
from ._result_models import RewardResult, ToolMatchDetails

__all__ = ["ToolMatchResult", "describe", "diagnose", "diagnostics", "fits", "tool_match_result"]

ToolMatchResult = RewardResult[ToolMatchDetails]
_UNPAIRABLE = "fits the rules but could not be paired (order or count)"


def diagnose(
    j: int | None,
    expected: ExpectedCall | None,
    i: int | None,
    generated: Call | None,
    matched: bool,
    numeric: bool,
) -> dict[str, Any]:
    """Expected call ``j`` compared with generated call ``i`` (either may be None), as
    :class:`~agentloop.evals._result_models.CallDiagnostic` fields (the result is
    validated whole, at once).

    >>> from agentloop.evals._expected_calls import expected_calls
    >>> [e] = expected_calls([{"name": "f", "arguments": {"a": 1, "b": 2}}])
    >>> d = diagnose(0, e, 0, Call("f", {"a": 1, "c": 3}), False, False)
    >>> d["arg_agreement"], d["missing_args"], d["extra_args"]
    (0.5, ['b'], ['c'])
    """
    mismatched: list[str] = []
    missing: list[str] = []
    extra: list[str] = []
    note = ""
    agreement = 0.0
    if expected is not None and generated is not None:
        m, g = expected.matcher, generated.args
        kind, members, _source, _optional = m
        if kind == "object" and (type(g) is dict or isinstance(g, Mapping)):
            present = 0
            for key, member in members.items():
                if key not in g:
                    if not member.optional:
                        missing.append(str(key))
                else:
                    present += 1
                    if not matches(g[key], member, numeric):
                        mismatched.append(str(key))
            if present < len(g):
                extra = [str(k) for k in g if k not in members]
            n = len(members)
            agreement = (n - len(missing) - len(mismatched)) / n if n else 1.0
        elif matches(g, m, numeric):
            agreement = 1.0
        else:
            kinds = f"{kind_of(g)} vs {kind_of(expected.args)}"
            note = f"arguments are not both JSON objects ({kinds}) and differ"
        if expected.name != generated.name:
            note = f"{note}; names differ" if note else "names differ"
    elif expected is not None:
        note = "no generated call to compare with"
    else:
        note = "generated call was not expected"
    return {
        "expected_index": j,
        "generated_index": i,
        "expected_name": None if expected is None else expected.name,
        "generated_name": None if generated is None else generated.name,
        "matched": matched,
        "arg_agreement": agreement,
        "mismatched_args": mismatched,
        "missing_args": missing,
        "extra_args": extra,
        "note": note,
    }


def fits(mode: str, d: dict[str, Any]) -> bool:
    """Whether a diagnosed pair of same-named calls fits an ``args`` mode: ``exact``:
    nothing missing, mismatched or extra; ``superset``: nothing missing or mismatched;
    ``subset``: nothing mismatched or extra; ``ignore``: always. Arguments that are not
    both objects fit when they are acceptable as a whole (agreement 1.0).

    >>> d = {"arg_agreement": 0.5, "missing_args": ["y"], "mismatched_args": [], "extra_args": []}
    >>> fits("exact", d), fits("subset", d), fits("superset", d)
    (False, True, False)
    """
    whole = d["arg_agreement"] == 1.0  # every expected argument acceptable, or optional
    if mode == "exact":
        return whole and not d["extra_args"]
    if mode == "superset":
        return whole
    if mode == "subset":  # (missing arguments are only ever listed for objects)
        return not (d["mismatched_args"] or d["extra_args"]) and (whole or bool(d["missing_args"]))
    return True  # ignore


def diagnostics(
    gen: list[Call],
    exp: Sequence[ExpectedCall],
    partner: dict[int, int],
    fit: list[list[int]],
    diagnosed: dict[tuple[int, int], dict[str, Any]],
) -> list[dict[str, Any]]:
    """One diagnostic per expected call (against its partner, or else the closest free
    generated call of its name), then one per generated call left over. ``partner``:
    expected index -> generated index; ``fit[i]``: the expected calls generated ``i`` fits;
    ``diagnosed``: the diagnosis of each same-named pair ``(i, j)``, used once at most."""
    paired = set(partner.values())
    free = [i for i in range(len(gen)) if i not in paired]
    calls = []
    for j, e in enumerate(exp):
        if j in partner:  # marked in place: a diagnosis is reported once at most
            calls.append(d := diagnosed[partner[j], j])
            d["matched"] = True
            continue
        options = [diagnosed[i, j] for i in free if (i, j) in diagnosed]
        if not options:
            calls.append(diagnose(j, e, None, None, False, False))
            continue
        best = max(options, key=lambda d: d["arg_agreement"])  # the first of the best
        i = best["generated_index"]
        if j in fit[i]:
            best["note"] = _UNPAIRABLE
        free.remove(i)
        calls.append(best)
    for i in free:
        calls.append(diagnose(None, None, i, gen[i], False, False))
    return calls


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def describe(d: dict[str, Any], exp: Sequence[ExpectedCall], gen: list[Call]) -> str:
    """One clause saying what went wrong with a pairing (a :func:`diagnose` dict)."""
    e_at, g_at = d["expected_index"], d["generated_index"]
    if e_at is None:
        return f"generated call {g_at} ({d['generated_name']!r}) was not expected"
    where = f"expected call {e_at} ({d['expected_name']!r})"
    if g_at is None:
        return f"{where} was not made"
    if d["expected_name"] != d["generated_name"]:
        return f"{where}: generated call {g_at} is {d['generated_name']!r}"
    e, g = exp[e_at].args, gen[g_at].args
    parts = [
        f"argument {k!r} expected {_short(e[k])}, got {_short(g[k])}"
        for k in d["mismatched_args"][:3]
        if isinstance(e, Mapping) and isinstance(g, Mapping) and k in e and k in g
    ]
    if d["missing_args"]:
        parts.append(f"missing {d['missing_args']}")
    if d["extra_args"]:
        parts.append(f"extra {d['extra_args']}")
    if d["note"]:
        parts.append(d["note"])
    return f"{where}: " + ("; ".join(parts) or "arguments differ under the rule")


def tool_match_result(
    score: float,
    reason: str,
    counts: tuple[int, int, int],
    calls: list[dict[str, Any]],
    notes: list[str],
    modes: tuple[str, str, str] = ("strict", "exact", "exact"),
) -> ToolMatchResult:
    """The result; ``counts``: generated, expected and paired calls.

    >>> r = tool_match_result(0.0, "none paired", (1, 2, 0), [], [])
    >>> r.details.call_precision, r.details.call_recall, r.details.call_f1
    (0.0, 0.0, 0.0)
    """
    n_gen, n_exp, matched = counts
    precision = matched / n_gen if n_gen else 1.0
    recall = matched / n_exp if n_exp else 1.0
    total = precision + recall
    agreements = []
    for d in calls:
        if d["expected_index"] is not None:
            agreements.append(d["arg_agreement"])
    details = {
        "order": modes[0],
        "args": modes[1],
        "numbers": modes[2],
        "generated_count": n_gen,
        "expected_count": n_exp,
        "matched_count": matched,
        "call_precision": precision,
        "call_recall": recall,
        "call_f1": 2 * precision * recall / total if total else 0.0,
        "mean_arg_agreement": sum(agreements) / len(agreements) if agreements else 1.0,
        "calls": calls,
        "notes": notes,
    }
    # One validation of the whole result: much cheaper than a model per call.
    return ToolMatchResult.model_validate({"score": score, "reason": reason, "details": details})
