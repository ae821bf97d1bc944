"""The figures BFCL reports for its format-sensitivity category, from the verdicts of a
run: the accuracy in each prompt format, their spread (the largest minus the smallest)
and their standard deviation, as ``eval_runner.format_sensitivity_runner`` computes them
(bfcl-eval 2026.3.23) and ``data_format_sensitivity.csv`` shows them. Not part of BFCL's
overall.

A format counts when it has results; the spread and the deviation (``statistics.stdev``:
the sample's) are in percentage points rounded to 2 places, 0 with fewer than two formats.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["FormatSpread", "format_of", "format_spread", "format_spread_lines"]


def format_of(sample_id: str) -> str | None:
    """The prompt format of a BFCL format-sensitivity id
    (``format_sensitivity_<n>:<format>:<source id>``); None for another id."""
    parts = sample_id.split(":")
    return parts[1] if len(parts) == 3 else None


@dataclass(frozen=True)
class FormatSpread:
    """BFCL's format-sensitivity figures."""

    accuracy: dict[str, float]
    """Accuracy per prompt format, in BFCL's order of formats."""
    max_delta: float
    """Largest minus smallest accuracy, percentage points (BFCL's Max Delta)."""
    std: float
    """Sample standard deviation of the accuracies, percentage points."""
    variance: float
    """Their sample variance, squared percentage points."""


def format_spread(counts: Mapping[str, tuple[int, int]], order: tuple[str, ...]) -> FormatSpread:
    """The figures from ``counts``: format -> (correct, total); ``order``: BFCL's formats."""
    rank = {f: i for i, f in enumerate(order)}
    ran = sorted(
        (f for f, (_, n) in counts.items() if n), key=lambda f: (rank.get(f, len(rank)), f)
    )
    accuracy = {f: counts[f][0] / counts[f][1] for f in ran}
    values = list(accuracy.values())
    if len(values) < 2:
        return FormatSpread(accuracy, 0.0, 0.0, 0.0)
    return FormatSpread(
        accuracy,
        round((max(values) - min(values)) * 100, 2),
        round(statistics.stdev(values) * 100, 2),
        round(statistics.variance(values) * 100**2, 2),
    )


def format_spread_lines(spread: FormatSpread) -> list[str]:
    """The figures as lines of text under the summary's table."""
    lines = [
        f"Format sensitivity: max delta {spread.max_delta:.2f} points, standard deviation "
        f"{spread.std:.2f} over {len(spread.accuracy)} prompt formats (not part of the overall)"
    ]
    for fmt, acc in spread.accuracy.items():
        lines.append(f"  {100 * acc:6.2f}%  {fmt}")
    return lines
