"""Pairing generated with expected calls: maximum bipartite matching in the unordered
modes, the longest order-preserving alignment in the strict one."""

from __future__ import annotations

__all__ = ["align_in_order", "max_matching", "pair"]


def pair(fit: list[list[int]], n_expected: int, strict: bool) -> dict[int, int]:
    """The generated partner of each paired expected call; ``fit[i]``: the expected calls
    generated call ``i`` fits, in order.

    >>> pair([[0, 1], [0]], 2, strict=False)
    {1: 0, 0: 1}
    >>> pair([[1], [0]], 2, strict=True)  # a swap keeps one pair
    {0: 1}
    """
    if strict:
        return {j: i for i, j in align_in_order(fit, n_expected)}
    return {j: i for i, j in enumerate(max_matching(fit, n_expected)) if j >= 0}


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
        queue = [start]  # grows as it is read: breadth first
        end = -1
        for u in queue:
            for v in adjacency[u]:
                if v in came_from:
                    continue
                came_from[v] = u
                if left_of[v] < 0:
                    end = v
                    break
                queue.append(left_of[v])
            if end >= 0:
                break
        while end >= 0:  # flip the path: each left vertex takes the right it reached
            u = came_from[end]
            previous = right_of[u]
            right_of[u], left_of[end] = end, u
            end = previous
    return right_of


def align_in_order(fit: list[list[int]], m: int) -> list[tuple[int, int]]:
    """Longest order-preserving pairing (LCS) of generated calls with the ``m`` expected
    ones; ``fit[i]``: the expected calls generated call ``i`` fits.

    >>> align_in_order([[0, 2], [2]], 3)
    [(0, 0), (1, 2)]
    >>> align_in_order([[1], [0]], 2)  # a swap keeps only one pair
    [(1, 0)]
    """
    n = len(fit)
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below, fits = best[i], best[i + 1], fit[i]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if j in fits else max(below[j], row[j + 1])
    pairs = []
    i = j = 0
    while i < n and j < m:
        if j in fit[i] and best[i][j] == best[i + 1][j + 1] + 1:
            pairs.append((i, j))
            i += 1
            j += 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs
