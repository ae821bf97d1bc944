"""A pool of workers running (sample, epoch) pairs: the ``Executor`` protocol the runner
drives, the ``Deliver`` callback that receives each result line, and the local pool, a
fixed number of tasks in this process pulling from one stream.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Protocol

import anyio

from agentloop.harness.data._rows import Sample
from agentloop.harness.run._dependencies import blocked_reason
from agentloop.harness.run._sample import Prepared, run_sample
from agentloop.models import ModelSource

if TYPE_CHECKING:
    from agentloop.harness.run._judges import Judges

__all__ = ["Deliver", "Executor", "LocalPool"]

Deliver = Callable[[str, bool], None]
"""Receives each finished pair's encoded results line and whether it errored."""


class Executor(Protocol):
    """Runs a stream of pairs; opened by ``open_executor``."""

    endpoint: str | None
    """The model's endpoint (without credentials), recorded in run.json."""
    user_endpoint: str | None
    """The simulated user's model's endpoint, as resolved (None without a live user)."""

    async def run(self, pairs: Iterator[tuple[Sample, int]], deliver: Deliver) -> None: ...


class LocalPool:
    """A fixed pool of ``concurrency`` tasks in this process, pulling from one stream."""

    def __init__(
        self,
        p: Prepared,
        source: ModelSource,
        user: ModelSource | None = None,
        judges: Judges | None = None,
    ) -> None:
        self.p = p
        self.source = source
        self.user = user
        self.judges = judges
        self.endpoint = source.endpoint
        self.user_endpoint = user.endpoint if user is not None else None

    async def run(self, pairs: Iterator[tuple[Sample, int]], deliver: Deliver) -> None:
        order = self.p.dependencies

        async def worker() -> None:
            # next() never awaits, so workers can share one plain iterator safely. A row's
            # dependencies come before it in the stream, so waiting for them never deadlocks.
            for sample, epoch in pairs:
                blocked = None
                if order is not None and (failed := await order.failed(sample.id, epoch)):
                    blocked = blocked_reason(failed)
                line, errored = await run_sample(
                    self.p, self.source, sample, epoch, self.user, self.judges, blocked
                )
                deliver(line, errored)
                if order is not None:
                    order.finished(sample.id, epoch, not errored)

        async with anyio.create_task_group() as group:
            for _ in range(self.p.config.concurrency):
                group.start_soon(worker)
