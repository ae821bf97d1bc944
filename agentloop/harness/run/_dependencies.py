"""Rows that run after others: a row's ``depends_on`` (a list of row ids).

A row with ``depends_on`` starts only after each row it names has finished in the same
epoch and the same run directory (a resumed run counts the results already written). When
one of them ended in error, the row does not run: its line is an error of kind
``dependency`` naming them. What a dependency leaves behind for its dependents (a memory
in the run directory, say) is the environment's business; the run only orders them.

Checked before anything runs, one line each: an id that is no row of the dataset; a row
that depends on one this run does not select (``sample_ids``, ``limit``: select it too);
a row that depends on one that runs after it (a cycle, or a ``shuffle``); and
``executor: ray``, which runs rows independently.
"""

from __future__ import annotations

from collections.abc import Mapping

import anyio

from agentloop.errors import ConfigError, DatasetError
from agentloop.harness.config._fields import EvalConfig
from agentloop.harness.data._dataset import iter_samples
from agentloop.harness.data._selection import Selection, iter_selected

__all__ = ["Dependencies", "blocked_reason", "check_dependencies"]


def _cycle(start: str, graph: Mapping[str, tuple[str, ...]]) -> list[str] | None:
    """A path of dependencies from ``start`` back to it, if there is one."""
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for dep in graph.get(node, ()):
            if dep == start:
                return [*path, start]
            if dep not in seen:
                seen.add(dep)
                stack.append((dep, [*path, dep]))
    return None


def check_dependencies(config: EvalConfig, selection: Selection) -> Dependencies:
    """The selected rows' dependencies, checked (see the module doc)."""
    every: dict[str, tuple[str, ...]] = {
        s.id: s.depends_on for s in iter_samples(config.dataset, config.mode)
    }
    order = [s.id for s in iter_selected(config, selection)]
    place = {sample_id: k for k, sample_id in enumerate(order)}
    if config.executor != "local":
        raise ConfigError(
            f"executor: {config.executor} runs rows independently; rows with depends_on "
            "need executor: local"
        )
    for k, sample_id in enumerate(order):
        for dep in every[sample_id]:
            if dep not in every:
                raise DatasetError(
                    f"{config.dataset}: row {sample_id!r}: depends_on names {dep!r}, "
                    "which is no row of the dataset"
                )
            if dep not in place:
                raise ConfigError(
                    f"row {sample_id!r} depends on {dep!r}, which this run does not select "
                    "(sample_ids, limit): select it too"
                )
            if place[dep] >= k:
                if (cycle := _cycle(sample_id, every)) is not None:
                    raise DatasetError(
                        f"{config.dataset}: depends_on makes a cycle: {' -> '.join(cycle)}"
                    )
                raise ConfigError(
                    f"row {sample_id!r} depends on {dep!r}, which runs after it "
                    "(shuffle: false keeps the dataset's order)"
                )
    return Dependencies({i: every[i] for i in order if every[i]})


class Dependencies:
    """The order of one run: each pair waits for its dependencies' pairs of its epoch."""

    def __init__(self, graph: dict[str, tuple[str, ...]]) -> None:
        self.graph = graph
        self._ok: dict[tuple[str, int], bool] = {}
        self._events: dict[tuple[str, int], anyio.Event] = {}

    def resume_from(
        self, statuses: Mapping[tuple[str, int], str], done: set[tuple[str, int]]
    ) -> None:
        """The results already in the run directory (pair -> latest status) of the pairs
        that do not run again (``done``; ``retry_errors`` runs the errored ones again)."""
        for pair, status in statuses.items():
            if pair in done:
                self._ok[pair] = status == "ok"

    async def failed(self, sample_id: str, epoch: int) -> list[str]:
        """Wait for the pair's dependencies; the ones that did not end ok."""
        failed = []
        for dep in self.graph.get(sample_id, ()):
            pair = (dep, epoch)
            if pair not in self._ok:
                await self._events.setdefault(pair, anyio.Event()).wait()
            if not self._ok[pair]:
                failed.append(dep)
        return failed

    def finished(self, sample_id: str, epoch: int, ok: bool) -> None:
        """A pair's result is written."""
        self._ok[(sample_id, epoch)] = ok
        if (event := self._events.pop((sample_id, epoch), None)) is not None:
            event.set()


def blocked_reason(failed: list[str]) -> str:
    """The error of a row whose dependencies did not all end ok."""
    names = ", ".join(repr(f) for f in failed)
    return f"not run: the row(s) it depends on ended in error: {names}"
