"""The provider registry and the ``ModelSource`` base class every provider returns."""

from __future__ import annotations

import abc
import functools
import importlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from langchain_core.caches import BaseCache
from langchain_core.language_models import BaseChatModel

from agentloop.engine import ExecutorFactory, RetryPolicy
from agentloop.errors import ModelSpecError

__all__ = [
    "SAMPLING_PARAMS",
    "ModelSource",
    "ProviderFactory",
    "check_param_names",
    "check_spec",
    "known_prefixes",
    "open_model",
    "register_provider",
]

# Sampling params that ChatOpenAI knows by name; anything server-specific goes in
# ``extra_body`` so that a typo is an error, not a silently ignored field. Every
# built-in provider checks names against this list (scripted and replay too), so a
# typo fails the same way whatever the model. ``reasoning`` is the config's ``reasoning:``
# setting, mapped by each provider onto its own parameters (``agentloop.models._reasoning``).
SAMPLING_PARAMS = frozenset(
    {
        "temperature",
        "max_tokens",
        "top_p",
        "seed",
        "stop",
        "presence_penalty",
        "frequency_penalty",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "reasoning_effort",
        "reasoning",
        "extra_body",
    }
)


def check_param_names(params: dict[str, Any]) -> None:
    """Raise ``ModelSpecError`` naming the sampling params not in ``SAMPLING_PARAMS``."""
    unknown = sorted(set(params) - SAMPLING_PARAMS)
    if unknown:
        raise ModelSpecError(
            f"unknown sampling param(s): {', '.join(unknown)}; known: "
            f"{', '.join(sorted(SAMPLING_PARAMS))} (server-specific ones go in extra_body)"
        )


class ModelSource(abc.ABC):
    """Hands out the chat model for one sample and epoch; closed when the run ends.

    Providers subclass it; only ``for_sample`` is required. The other members have
    defaults that change nothing: no retry policy of its own (the run's applies),
    tools executed normally, no tool differences to report, no endpoint, no
    preflight check, nothing to close.
    """

    retry_policy: RetryPolicy | None = None
    """The policy for ``run_agent(retry=...)``; live sources build theirs from the
    ``max_retries``/``retry_*`` options. None: the engine's default."""
    endpoint: str | None = None
    """The URL requests go to, without credentials (recorded in run.json as
    ``base_url``); None for sources that call no server."""
    cache: BaseCache | None = None
    """The response cache the run set (``cache:``), for the models this source hands out."""

    async def preflight(self) -> None:
        """Check, with one cheap request, that the model can be reached; raise
        ``ModelSpecError`` (one line, naming the endpoint, never a key) when not.
        Called once before the first sample unless the config says ``preflight: false``."""
        return None

    @abc.abstractmethod
    def for_sample(self, sample_id: str, epoch: int) -> BaseChatModel:
        """The model that answers this sample (a shared client or a per-sample double)."""

    def for_user(self, sample_id: str, epoch: int) -> BaseChatModel:
        """The model that plays the simulated user of this sample (config ``user:``): by
        default the same as ``for_sample``; replay serves the recorded user's side."""
        return self.for_sample(sample_id, epoch)

    def user_tool_executor(self, sample_id: str, epoch: int) -> ExecutorFactory | None:
        """``tool_executor`` for the simulated user's own calls."""
        return self.tool_executor(sample_id, epoch)

    def tool_executor(self, sample_id: str, epoch: int) -> ExecutorFactory | None:
        """What answers this sample's tool calls instead of running them (replay serves
        recorded results), given to ``run_agent(tool_executor=...)``; None runs the tools."""
        return None

    def tool_differences(self, sample_id: str, epoch: int) -> list[str]:
        """Notes on tool outputs that differed from a recording (replay with live tools)."""
        return []

    async def aclose(self) -> None:
        """Release what the source holds (connections, child processes)."""
        return None


# A provider gets the spec's value (after the prefix), the sampling params sent with
# each request (temperature, max_tokens, seed, ...) and the connection options
# (base_url, api_key_env, max_retries, request_timeout, ...).
ProviderFactory = Callable[
    [str, dict[str, Any], dict[str, Any]], ModelSource | Awaitable[ModelSource]
]
_PROVIDERS: dict[str, ProviderFactory] = {}
"""The providers registered with ``register_provider``; they win over the built-in ones."""

# The built-in providers' modules, each with its FACTORIES (prefix -> factory). They import
# their SDKs, so they are imported on the first look-up, not with the package: reading a
# config does not load the OpenAI SDK.
_BUILT_IN = ("_openai", "_local", "_providers", "_replay", "_scripted")


@functools.cache
def _built_in() -> dict[str, ProviderFactory]:
    found: dict[str, ProviderFactory] = {}
    for name in _BUILT_IN:
        found.update(importlib.import_module(f"agentloop.models.{name}").FACTORIES)
    return found


def _registry() -> dict[str, ProviderFactory]:
    return {**_built_in(), **_PROVIDERS}


def register_provider(prefix: str, factory: ProviderFactory) -> None:
    """Make ``prefix:...`` specs open sources through ``factory(value, params, options)``.

    The factory returns a ``ModelSource`` or an awaitable of one.
    """
    _PROVIDERS[prefix] = factory


def known_prefixes() -> list[str]:
    """The spec prefixes, built-in and registered, sorted."""
    return sorted(_registry())


def _split(spec: str) -> tuple[str, str]:
    prefix, sep, value = spec.partition(":")
    if not sep or not value:
        raise ModelSpecError(
            f"bad model spec {spec!r}: expected PREFIX:VALUE with PREFIX one of "
            f"{', '.join(known_prefixes())}"
        )
    if prefix not in _registry():
        raise ModelSpecError(
            f"unknown model spec prefix {prefix!r} in {spec!r}; "
            f"known: {', '.join(known_prefixes())}"
        )
    return prefix, value


def check_spec(spec: str) -> None:
    """Raise ``ModelSpecError`` when ``spec`` has no known prefix (no side effects)."""
    _split(spec)


@asynccontextmanager
async def open_model(
    spec: str, params: dict[str, Any] | None = None, options: dict[str, Any] | None = None
) -> AsyncIterator[ModelSource]:
    """Open the model source a spec names, and close it on the way out (errors included).

    An unknown option name is the provider's to reject with ``ModelSpecError``.
    """
    prefix, value = _split(spec)
    opened = _registry()[prefix](value, dict(params or {}), dict(options or {}))
    source = await opened if isinstance(opened, Awaitable) else opened
    if not isinstance(source, ModelSource):
        raise TypeError(
            f"the {prefix!r} provider returned {type(source).__name__}, not a ModelSource"
        )
    try:
        yield source
    finally:
        await source.aclose()
