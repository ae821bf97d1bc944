"""The model sources a run opens before its first sample: the agent's, the simulated
user's and the rewards' judges, each with the config's response cache when it is live
(score mode opens no model); ``open_sources`` opens them with the tools' sessions, as a
worker does (the local pool, or each Ray worker).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentloop.errors import AgentloopError, ModelSpecError
from agentloop.harness.config._fields import EvalConfig
from agentloop.models import ModelSource

if TYPE_CHECKING:
    from agentloop.evals import JudgeSpec
    from agentloop.harness.run._judges import Judges
    from agentloop.harness.run._sample import Prepared

__all__ = ["open_judges", "open_model_source", "open_sources", "open_user_source"]


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
    """The run's judges (``agentloop.harness.run._judges``), for the block: each judge model a
    reward's config names is opened as the agent's is (``open_model``, the response cache
    when it is live) on its first request, once, and closed when the block ends. A replayed
    run's judges answer from the recording and open nothing."""
    from agentloop.harness.run._judges import Judges

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


@asynccontextmanager
async def open_sources(
    p: Prepared,
) -> AsyncIterator[tuple[ModelSource, ModelSource | None, Judges]]:
    """What a worker opens for a run, for the block: the tools' sessions (MCP servers:
    one session each), the agent's and the simulated user's model sources (each asked
    whether its endpoint answers, with ``preflight``) and the judges."""
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
        yield source, user, judges
