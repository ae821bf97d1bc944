"""Pairing generated with expected calls: maximum bipartite matching in the unordered
modes, the longest order-preserving alignment in the strict one."""

from __future__ import annotations

from collections import deque
from itertools import compress

__all__ = ["align_in_order", "max_matching", "pair"]


def pair(ok: list[list[bool]], n_expected: int, strict: bool) -> dict[int, int]:
    """The generated partner of each paired expected call; ``ok[i][j]``: generated call
    ``i`` fits expected call ``j``.

    >>> pair([[True, True], [True, False]], 2, strict=False)
    {1: 0, 0: 1}
    >>> pair([[False, True], [True, False]], 2, strict=True)  # a swap keeps one pair
    {0: 1}
    """
    if strict:
        return {j: i for i, j in align_in_order(ok)}
    adjacency = [list(compress(range(len(row)), row)) for row in ok]
    return {j: i for i, j in enumerate(max_matching(adjacency, n_expected)) if j >= 0}


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
