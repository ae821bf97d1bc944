"""Where (sample, epoch) pairs run: the runner's executor seam.

``open_executor`` opens what a run needs before its run directory exists, so a bad
model spec, an endpoint that does not answer or a worker that cannot load a tool
leaves no run directory behind. ``Executor.run`` then takes a stream of pairs and
hands each encoded result line to ``deliver``; the runner stays the one writer.

- ``local``: the tools' sessions and the model sources (the agent's, the simulated
  user's, the rewards' judges) open in this process, and a fixed pool of ``concurrency``
  tasks pulls from the stream.
- ``ray`` (``_ray``, imported only then): Ray actors prepare the same on their side and
  each runs up to ``concurrency`` pairs at once.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

from agentloop.errors import AgentloopError
from agentloop.harness.config._fields import EvalConfig
from agentloop.harness.run._pool import Executor, LocalPool
from agentloop.harness.run._sample import Prepared
from agentloop.harness.run._sources import open_sources

__all__ = ["EXECUTORS", "open_executor"]

EXECUTORS = ("local", "ray")


def _ray_loopback_defaults(config: EvalConfig) -> None:
    """For a Ray on this machine: without this flag (read when ray is imported), Ray
    swaps 127.0.0.1 for the machine's address and its servers listen on every interface."""
    address = config.ray_address or os.environ.get("RAY_ADDRESS")
    host = (address or "127.0.0.1").removeprefix("ray://").rsplit(":", 1)[0].strip("[]")
    if host == "localhost" or (_is_ip(host) and ipaddress.ip_address(host).is_loopback):
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    if address is None:  # a Ray started for this run reports no usage statistics
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


@asynccontextmanager
async def open_executor(
    p: Prepared, environ: Mapping[str, str] | None = None
) -> AsyncIterator[Executor]:
    """The config's executor, open for the block; ``environ`` is where ``ray_env``
    values come from (default: this process's environment)."""
    name = p.config.executor
    if name == "ray":
        _ray_loopback_defaults(p.config)
        from agentloop.harness.run._ray import open_ray_executor

        async with open_ray_executor(p, environ) as executor:
            yield executor
        return
    if name != "local":  # a config built without validation
        raise AgentloopError(f"unknown executor {name!r} (known: {', '.join(EXECUTORS)})")
    async with open_sources(p) as (source, user, judges):  # for the whole run
        yield LocalPool(p, source, user, judges)
