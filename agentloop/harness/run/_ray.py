"""The ``ray`` executor: (sample, epoch) pairs streamed to Ray actors, result lines back.

Each actor (``RayWorker``) prepares the config on its side: tools, rewards and the
model source load by import path from the working directory Ray ships with the
job, and secrets come from the environment (the node's own, plus the ``ray_env``
names copied from this process; never from the run files). It runs pairs with the
same engine as the local pool, up to ``concurrency`` at once.

The driver (this process) keeps at most ``concurrency`` pairs in flight per actor and
delivers each line it receives. When an actor dies, its unfinished pairs go back to
the queue and a replacement actor starts, so every pair is delivered exactly once.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import deque
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
import ray
from ray import exceptions as ray_errors

from agentloop.errors import AgentloopError
from agentloop.harness.config._fields import EvalConfig
from agentloop.harness.data._rows import Sample
from agentloop.harness.run._pool import Deliver
from agentloop.harness.run._sample import Prepared, prepare, run_sample
from agentloop.harness.run._sources import open_sources

__all__ = ["RayPool", "RayWorker", "open_ray_executor"]

# Lost actors (or their node or results), not errors of the code they ran.
_LOST = (ray_errors.RayActorError, ray_errors.WorkerCrashedError, ray_errors.ObjectLostError)
# Never shipped to workers, besides what .gitignore lists and Ray's own defaults (.git,
# .venv, __pycache__): environments and caches.
_EXCLUDES = [".venv*", ".mypy_cache", ".hypothesis"]
_STOP_TIMEOUT = 10.0


class RayWorker:
    """One actor: the config prepared on its node, pairs run on one event loop."""

    def __init__(self, config: EvalConfig, config_path: str | None) -> None:
        self._config = config
        self._config_path = config_path
        self._holder: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._prepared: Prepared | None = None
        self._source: Any = None
        self._user: Any = None
        self._judges: Any = None

    async def _hold(self) -> None:
        # Opened and closed in this one task: MCP sessions use task-bound cancel scopes.
        p = prepare(self._config, self._config_path, os.environ)
        async with open_sources(p) as (source, user, judges):
            self._prepared, self._source, self._user = p, source, user
            self._judges = judges
            self._ready.set()
            await self._stop.wait()

    async def _started(self) -> None:
        if self._holder is None:
            self._holder = asyncio.create_task(self._hold())
        ready = asyncio.ensure_future(self._ready.wait())
        await asyncio.wait({self._holder, ready}, return_when=asyncio.FIRST_COMPLETED)
        if not self._ready.is_set():
            ready.cancel()
            exc = self._holder.exception()
            raise RuntimeError(_describe(exc) if exc else "the worker stopped")

    async def start(self) -> dict[str, Any]:
        """Prepare; returns the model's endpoint, or ``{"error": line}``."""
        try:
            await self._started()
        except RuntimeError as exc:
            return {"error": str(exc)}
        user = self._user.endpoint if self._user is not None else None
        return {"endpoint": self._source.endpoint, "user_endpoint": user}

    async def run(self, sample: Sample, epoch: int) -> tuple[str, bool]:
        await self._started()
        assert self._prepared is not None
        return await run_sample(
            self._prepared, self._source, sample, epoch, self._user, self._judges
        )

    async def stop(self) -> None:
        self._stop.set()
        if self._holder is not None:
            with suppress(Exception):
                await self._holder


def _describe(exc: BaseException) -> str:
    text = str(exc) if isinstance(exc, AgentloopError) else f"{type(exc).__name__}: {exc}"
    return " ".join(text.split())  # one line


def _runtime_env(config: EvalConfig, environ: Mapping[str, str]) -> dict[str, Any]:
    """The working directory (without environments, caches and run outputs) and the
    ``ray_env`` variables, plus the model's ``api_key_env`` when set here."""
    names = list(config.ray_env)
    key_env = config.model_options.get("api_key_env")
    if isinstance(key_env, str) and key_env in environ and key_env not in names:
        names.append(key_env)
    missing = [n for n in config.ray_env if n not in environ]
    if missing:
        raise AgentloopError(f"ray_env: {', '.join(missing)} is not set in this environment")
    excludes = list(_EXCLUDES)
    output = Path(config.output_dir)
    if not output.is_absolute():
        excludes.append(f"/{output.as_posix().strip('/')}")
    return {
        "working_dir": os.getcwd(),
        "excludes": excludes,
        "env_vars": {n: environ[n] for n in names},
    }


class RayPool:
    """The driver's side: actors fed from the stream, at most ``concurrency`` pairs each."""

    def __init__(self, p: Prepared, actor_options: dict[str, Any], workers: int) -> None:
        self.p = p
        self.endpoint: str | None = None
        self.user_endpoint: str | None = None
        self._actor_class = ray.remote(RayWorker).options(**actor_options)
        self._workers = workers
        self._actors: list[Any] = []
        self._replacements = 0

    def _new_actor(self) -> Any:
        actor = self._actor_class.remote(self.p.config, self.p.config_path)
        self._actors.append(actor)
        return actor

    async def start(self) -> None:
        """Start every actor; the first that cannot prepare fails the run in one line."""
        actors = [self._new_actor() for _ in range(self._workers)]
        try:
            infos = await asyncio.gather(*(a.start.remote() for a in actors))
        except ray_errors.RayError as exc:  # e.g. the working directory could not be set up
            raise AgentloopError(f"ray worker: {_describe(exc)}") from None
        for info in infos:
            if "error" in info:
                raise AgentloopError(f"ray worker: {info['error']}")
        self.endpoint = infos[0]["endpoint"]
        self.user_endpoint = infos[0]["user_endpoint"]

    def _replace(self, dead: Any) -> Any:
        self._actors.remove(dead)
        self._replacements += 1
        if self._replacements > 3 * self._workers:
            raise AgentloopError(f"ray workers died {self._replacements} times; stopping the run")
        return self._new_actor()  # its first run() call prepares it

    async def run(self, pairs: Iterator[tuple[Sample, int]], deliver: Deliver) -> None:
        in_flight: dict[asyncio.Future[Any], tuple[tuple[Sample, int], Any]] = {}
        try:
            await self._stream(pairs, deliver, in_flight)
        finally:
            for future in in_flight:  # stopped early: their actors are killed next
                if not future.cancel():  # done: retrieved, or asyncio logs it as lost
                    future.exception()

    async def _stream(
        self,
        pairs: Iterator[tuple[Sample, int]],
        deliver: Deliver,
        in_flight: dict[asyncio.Future[Any], tuple[tuple[Sample, int], Any]],
    ) -> None:
        cap = self.p.config.concurrency
        load = {actor: 0 for actor in self._actors}
        queue: deque[tuple[Sample, int]] = deque()  # pairs of dead actors, first
        exhausted = False
        while True:
            for actor in list(load):
                while load[actor] < cap and (queue or not exhausted):
                    pair = queue.popleft() if queue else next(pairs, None)
                    if pair is None:
                        exhausted = True
                        break
                    ref = actor.run.remote(*pair)
                    in_flight[asyncio.wrap_future(ref.future())] = (pair, actor)
                    load[actor] += 1
            if not in_flight:
                return
            done, _ = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                pair, actor = in_flight.pop(future)
                if actor in load:
                    load[actor] -= 1
                try:
                    line, errored = future.result()
                except _LOST:
                    queue.append(pair)
                    if actor in load:
                        del load[actor]
                        load[self._replace(actor)] = 0
                    continue
                except ray_errors.RayTaskError as exc:
                    cause = exc.cause if isinstance(exc.cause, BaseException) else exc
                    raise AgentloopError(f"ray worker: {_describe(cause)}") from None
                deliver(line, errored)

    async def close(self) -> None:
        """Stop the actors (closing their tools and model sources), then end them."""
        with anyio.CancelScope(shield=True), anyio.move_on_after(_STOP_TIMEOUT):
            await asyncio.gather(*(a.stop.remote() for a in self._actors), return_exceptions=True)
        for actor in self._actors:
            with suppress(Exception):
                ray.kill(actor, no_restart=True)


def _connect(config: EvalConfig, runtime_env: dict[str, Any]) -> None:
    """Connect to the configured cluster (or start a Ray here) as a job that ships the
    working directory (Ray ships local directories only for a whole job)."""
    if ray.is_initialized():
        raise AgentloopError(
            "executor: ray: this process is already connected to Ray; agentloop connects "
            "itself (to ship the working directory): call ray.shutdown() first"
        )
    address = config.ray_address or os.environ.get("RAY_ADDRESS")
    options: dict[str, Any] = {
        "runtime_env": runtime_env,
        "log_to_driver": False,  # workers' output stays in the cluster's logs
        "logging_level": logging.WARNING,
    }
    if address:
        ray.init(address=address, **options)
    else:  # a private Ray on this machine, reachable from it only
        ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.1", **options)


@asynccontextmanager
async def open_ray_executor(
    p: Prepared, environ: Mapping[str, str] | None = None
) -> AsyncIterator[RayPool]:
    """Connect, start the actors (each prepared, before the run directory exists),
    yield the pool; stop the actors and disconnect at the end."""
    config = p.config
    runtime_env = _runtime_env(config, os.environ if environ is None else environ)
    try:
        _connect(config, runtime_env)
    except AgentloopError:
        raise
    except Exception as exc:
        where = config.ray_address or os.environ.get("RAY_ADDRESS") or "a local Ray"
        raise AgentloopError(f"cannot connect to {where}: {_describe(exc)}") from None
    try:
        workers = config.ray_workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        options = {
            "max_concurrency": config.concurrency + 2,  # + start and stop calls
            "scheduling_strategy": "SPREAD",
            "max_restarts": 0,  # the driver replaces a dead actor and requeues its pairs
        }
        pool = RayPool(p, options, workers)
        try:
            await pool.start()
            yield pool
        finally:
            await pool.close()
    finally:
        ray.shutdown()
