"""What a run's report groups its rows by, for triage: per reward a histogram of the
scores, the failures by type (a reward's own error type where it gives one, as BFCL's
checker does), and the values of the metadata keys the run's summary breaks down. Each
group lists its rows (indices into the report's table), which the table can be
narrowed to.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from agentloop.harness.stats._breakdown import metadata_value

__all__ = ["Groups", "failure_types", "histogram"]

_REASON_CHARS = 300  # of a failure group's first reason


def _call_failure(calls: list[Any]) -> str | None:
    """What the first unpaired call of a tool-call match's diagnostics went through."""
    for call in calls:
        if not isinstance(call, Mapping) or call.get("matched") is not False:
            continue
        if call.get("expected_index") is None:
            return "unexpected call"
        if call.get("generated_index") is None:
            return "call not made"
        if call.get("expected_name") != call.get("generated_name"):
            return "wrong function"
        return "wrong arguments"
    return None


def _error_type(kind: str, message: str) -> str:
    """An error's kind and, when its message starts with one, its exception."""
    first = message.split(":", 1)[0]
    return f"{kind} error ({first})" if first.isidentifier() else f"{kind} error"


def failure_types(
    line: Mapping[str, Any], lower: Collection[str] = ()
) -> list[tuple[str | None, str]]:
    """How a result failed, as (reward, type) pairs: (None, its error) when it errored
    before scoring; (reward, ``reward error (Type)``) per reward that raised; one pair per
    reward it failed (its verdict is fail or, without a pass threshold, it scored below 1;
    above 0 for the rewards in ``lower``, whose lower score is better: an attack that
    succeeded).
    The type is the reward's own ``details.error_type`` when it gives one (BFCL's, e.g.
    ``value_error:string``), else what the first unpaired call of a tool-call match went
    through, else ``score 0`` or ``partial score``."""
    raised = line.get("reward_errors") or {}
    found: list[tuple[str | None, str]] = [
        (key, _error_type("reward", str(message))) for key, message in raised.items()
    ]
    if line.get("status") != "ok" and not raised:  # errored before scoring (or an old line)
        kind = line.get("error_kind") or "unknown"
        found.append((None, _error_type(kind, str(line.get("error") or ""))))
    passed = line.get("passed") or {}
    for key, result in (line.get("scores") or {}).items():
        score = float(result.get("score") or 0.0)
        verdict = passed.get(key)
        good = score <= 0.0 if key in lower else score >= 1.0
        if (verdict is not False) if verdict is not None else good:
            continue
        details = result.get("details") if isinstance(result.get("details"), Mapping) else {}
        error_type = details.get("error_type")
        calls = details.get("calls")
        kind = (
            error_type
            if isinstance(error_type, str) and error_type
            else (_call_failure(calls) if isinstance(calls, list) else None)
        )
        worst = 1.0 if key in lower else 0.0
        found.append((key, kind or (f"score {worst:g}" if score == worst else "partial score")))
    return found


_BINS = 10  # bars between the lowest and the highest score (0 and 1: bars of their own)


def histogram(scores: list[float | None], statuses: list[str | None]) -> list[dict[str, Any]]:
    """The bars of one reward's scores, each with the indices of its rows. Scores in
    [0, 1]: a bar for exactly 0, ten for (0, 0.1), [0.1, 0.2) ... [0.9, 1), one for
    exactly 1; other scores: ten equal bars from the lowest to the highest. Errored
    results (0 in the headline) and results without this reward get a bar each."""
    scored = [x for x in scores if x is not None]
    low, high = min(scored, default=0.0), max(scored, default=1.0)
    unit = low >= 0.0 and high <= 1.0
    if unit:
        low, high = 0.0, 1.0
    width = (high - low) / _BINS or 1.0
    bars: list[dict[str, Any]] = []
    if unit:
        bars.append({"label": "0", "low": 0.0, "high": 0.0, "rows": []})
    for n in range(_BINS):
        lo = low + n * width
        hi = high if n == _BINS - 1 else low + (n + 1) * width
        closed = "]" if n == _BINS - 1 and not unit else ")"
        opened = "(" if n == 0 and unit else "["
        label = f"{opened}{lo:.3g}, {hi:.3g}{closed}"
        bars.append({"label": label, "low": round(lo, 12), "high": round(hi, 12), "rows": []})
    if unit:
        bars.append({"label": "1", "low": 1.0, "high": 1.0, "rows": []})
    errored: list[int] = []
    unscored: list[int] = []
    for i, (score, status) in enumerate(zip(scores, statuses, strict=True)):
        if score is None:
            (errored if status != "ok" else unscored).append(i)
        elif unit:
            at = 0 if score == 0 else _BINS + 1 if score == 1 else 1 + min(int(score * _BINS), 9)
            bars[at]["rows"].append(i)
        else:
            bars[min(int((score - low) / width), _BINS - 1)]["rows"].append(i)
    if errored:
        bars.append({"label": "errored", "low": None, "high": None, "rows": errored})
    if unscored:
        bars.append({"label": "not scored", "low": None, "high": None, "rows": unscored})
    return bars


class Groups:
    """The rows of each failure type and of each broken-down metadata value."""

    def __init__(self, metadata_keys: list[str], lower: Collection[str] = ()) -> None:
        self.failures: dict[tuple[str | None, str], dict[str, Any]] = {}
        self.metadata: dict[str, dict[str, list[int]]] = {k: {} for k in metadata_keys}
        self.lower = lower  # rewards whose lower score is better

    def add(self, i: int, line: Mapping[str, Any]) -> None:
        for reward, kind in failure_types(line, self.lower):
            group = self.failures.get((reward, kind))
            if group is None:
                if reward is None:
                    reason = str(line.get("error") or "")
                elif reward in (line.get("reward_errors") or {}):
                    reason = str(line["reward_errors"][reward])
                else:
                    reason = str(((line.get("scores") or {}).get(reward) or {}).get("reason") or "")
                group = self.failures[(reward, kind)] = {
                    "type": kind,
                    "reward": reward,
                    "reason": reason[:_REASON_CHARS],
                    "rows": [],
                }
            group["rows"].append(i)
        for key, values in self.metadata.items():
            value = metadata_value(line.get("metadata"), key)
            if value is not None:
                values.setdefault(value, []).append(i)

    def failure_list(self) -> list[dict[str, Any]]:
        """Most frequent first."""
        return sorted(self.failures.values(), key=lambda g: (-len(g["rows"]), g["type"]))
