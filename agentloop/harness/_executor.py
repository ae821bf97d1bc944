"""Where (sample, epoch) pairs run: the runner's executor seam.

``open_executor`` opens what a run needs before its run directory exists, so a bad
model spec, an endpoint that does not answer or a worker that cannot load a tool
leaves no run directory behind. ``Executor.run`` then takes a stream of pairs and
hands each encoded result line to ``deliver``; the runner stays the one writer.

- ``local``: the tools' sessions and the model sources (the agent's, the simulated
  user's, the rewards' judges) open in this process, and a fixed pool of ``concurrency``
  tasks pulls from the stream.
- ``ray`` (``_executor_ray``, imported only then): Ray actors prepare the same on
  their side and each runs up to ``concurrency`` pairs at once.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from agentloop.errors import AgentloopError, ModelSpecError
from agentloop.harness._config import EvalConfig
from agentloop.harness._rows import Sample
from agentloop.harness._sample import Prepared, run_sample
from agentloop.models import ModelSource

if TYPE_CHECKING:
    from agentloop.evals import JudgeSpec
    from agentloop.harness._judges import Judges

__all__ = [
    "EXECUTORS",
    "Deliver",
    "Executor",
    "LocalPool",
    "open_executor",
    "open_judges",
    "open_model_source",
    "open_user_source",
]

EXECUTORS = ("local", "ray")

Deliver = Callable[[str, bool], None]
"""Receives each finished pair's encoded results line and whether it errored."""


class Executor(Protocol):
    """Runs a stream of pairs; opened by ``open_executor``."""

    endpoint: str | None
    """The model's endpoint (without credentials), recorded in run.json."""
    user_endpoint: str | None
    """The simulated user's model's endpoint, as resolved (None without a live user)."""

    async def run(self, pairs: Iterator[tuple[Sample, int]], deliver: Deliver) -> None: ...


class _NoModel(ModelSource):
    """The model source of ``mode: score``: nothing is generated."""

    def for_sample(self, sample_id: str, epoch: int) -> Any:
        raise AgentloopError("score mode does not call a model")


@asynccontextmanager
async def _cached(
    source: ModelSource,
    config: EvalConfig,
    spec: str,
    params: dict[str, Any],
    options: dict[str, Any],
) -> AsyncIterator[ModelSource]:
    """``source`` (opened from ``spec``, ``params``, ``options``) with the config's response
    cache set, for the block; the cache keys on that description and the resolved endpoint."""
    from agentloop.models._cache import NOT_IN_KEY, ResponseCache, default_cache_dir

    where = default_cache_dir() if config.cache is True else Path(str(config.cache))
    identity = {
        "model": spec,
        "endpoint": source.endpoint,
        "params": params,
        "options": {k: v for k, v in options.items() if k not in NOT_IN_KEY},
    }
    source.cache = ResponseCache(where, config.cache_expiry_s, identity)
    try:
        yield source
    finally:
        source.cache.close()


@asynccontextmanager
async def open_model_source(config: EvalConfig) -> AsyncIterator[ModelSource]:
    """The config's model source, open for the block (none in score mode)."""
    if config.mode == "score" or config.model is None:
        yield _NoModel()
        return
    from agentloop.models import open_model

    params, options = config.request_params(), config.model_options
    async with open_model(config.model, params, options) as source:
        if config.cache is False:
            yield source
            return
        if source.endpoint is None:
            raise ModelSpecError(
                f"cache: only replies of live models are cached; {config.model} makes no "
                f"requests (remove cache)"
            )
        async with _cached(source, config, config.model, params, options) as cached:
            yield cached


@asynccontextmanager
async def open_user_source(config: EvalConfig) -> AsyncIterator[ModelSource | None]:
    """The simulated user's model source (``user.model``), open for the block; None without
    ``user:``. The cache applies to it when it is live (a scripted or replayed user makes
    no requests). An error opening it (its spec, options, params) says it is the user's."""
    if config.user is None or config.mode == "score":
        yield None
        return
    from agentloop.models import open_model

    user = config.user
    async with AsyncExitStack() as stack:
        try:
            opened = open_model(user.model, user.model_params, user.model_options)
            source = await stack.enter_async_context(opened)
        except ModelSpecError as exc:
            raise ModelSpecError(f"user: {exc}") from None
        if config.cache is False or source.endpoint is None:
            yield source
            return
        async with _cached(
            source, config, user.model, user.model_params, user.model_options
        ) as cached:
            yield cached


@asynccontextmanager
async def open_judges(config: EvalConfig) -> AsyncIterator[Judges]:
    """The run's judges (``agentloop.harness._judges``), for the block: each judge model a
    reward's config names is opened as the agent's is (``open_model``, the response cache
    when it is live) on its first request, once, and closed when the block ends. A replayed
    run's judges answer from the recording and open nothing."""
    from agentloop.harness._judges import Judges

    replaying = Judges.replaying(config.model if config.mode != "score" else None)
    if replaying is not None:
        yield replaying
        return
    from agentloop.models import open_model

    async with AsyncExitStack() as stack:

        async def open_source(spec: JudgeSpec) -> ModelSource:
            params, options = dict(spec.params), dict(spec.options)
            source = await stack.enter_async_context(open_model(spec.model, params, options))
            if config.cache is False or source.endpoint is None:
                return source
            return await stack.enter_async_context(
                _cached(source, config, spec.model, params, options)
            )

        yield Judges(config.prices, open_source)


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
        async def worker() -> None:
            # next() never awaits, so workers can share one plain iterator safely.
            for sample, epoch in pairs:
                deliver(*await run_sample(
                    self.p, self.source, sample, epoch, self.user, self.judges
                ))  # fmt: skip

        async with anyio.create_task_group() as group:
            for _ in range(self.p.config.concurrency):
                group.start_soon(worker)


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
        from agentloop.harness._executor_ray import open_ray_executor

        async with open_ray_executor(p, environ) as executor:
            yield executor
        return
    if name != "local":  # a config built without validation
        raise AgentloopError(f"unknown executor {name!r} (known: {', '.join(EXECUTORS)})")
    # MCP servers: one session each, for the whole run.
    async with (
        p.tools.open(),
        open_model_source(p.config) as source,
        open_user_source(p.config) as user,
        open_judges(p.config) as judges,
    ):
        if p.config.preflight:
            await source.preflight()
            if user is not None:
                await user.preflight()
        yield LocalPool(p, source, user, judges)
