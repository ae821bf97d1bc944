"""The estimators behind the summary: pass@k, pass^k (unbiased, over a sample's n
scored epochs of which c passed) and percentiles."""

from __future__ import annotations

import math

__all__ = ["pass_at_k", "pass_hat_k", "percentile"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k epochs drawn from n (c passing) passes.

    >>> round(pass_at_k(5, 2, 2), 4)
    0.7
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Probability that all k epochs drawn from n (c passing) pass (pass^k).

    >>> pass_hat_k(5, 2, 2)
    0.1
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return math.comb(c, k) / math.comb(n, k)


def percentile(sorted_values: list[float], q: float) -> float:
    """The q-quantile (0..1) of sorted values, interpolating linearly."""
    if not sorted_values:
        return 0.0
    pos = (len(sorted_values) - 1) * q
    low = math.floor(pos)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (pos - low)
