"""The provider registry and the ``ModelSource`` protocol."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool

from agentloop.engine import DEFAULT_MAX_TOOL_OUTPUT_CHARS, RetryPolicy, ToolDispatcher
from agentloop.errors import ModelSpecError

__all__ = [
    "ModelSource",
    "ProviderFactory",
    "check_spec",
    "dispatcher_of",
    "known_prefixes",
    "open_model",
    "register_provider",
    "retry_policy_of",
]


class ModelSource(Protocol):
    """Hands out the chat model for one sample and epoch; closed when the run ends.

    Optional members, read with :func:`retry_policy_of` and :func:`dispatcher_of`:

    - ``retry_policy``: the ``RetryPolicy`` to give ``run_agent(retry=...)`` (live
      sources build theirs from the ``max_retries``/``retry_*`` options);
    - ``dispatcher_for_sample(sample_id, epoch, tools, *, timeout, max_output_chars)``:
      a ``ToolDispatcher`` to give ``run_agent(dispatcher=...)`` (replay serves recorded
      tool results through it), or None to run the tools normally.
    """

    def for_sample(self, sample_id: str, epoch: int) -> BaseChatModel:
        """The model that answers this sample (a shared client or a per-sample double)."""
        ...

    async def aclose(self) -> None:
        """Release what the source holds (connections, child processes)."""
        ...


def retry_policy_of(source: Any) -> RetryPolicy | None:
    """The source's own retry policy, or None (then use the run's)."""
    policy = getattr(source, "retry_policy", None)
    return policy if isinstance(policy, RetryPolicy) else None


def dispatcher_of(
    source: Any,
    sample_id: str,
    epoch: int,
    tools: Sequence[BaseTool],
    *,
    timeout: float | None = None,
    max_output_chars: int | None = DEFAULT_MAX_TOOL_OUTPUT_CHARS,
) -> ToolDispatcher | None:
    """The source's tool dispatcher for this sample, or None to run the tools normally."""
    make = getattr(source, "dispatcher_for_sample", None)
    if make is None:
        return None
    dispatcher: ToolDispatcher | None = make(
        sample_id, epoch, tools, timeout=timeout, max_output_chars=max_output_chars
    )
    return dispatcher


# A provider gets the spec's value (after the prefix), the sampling params sent with
# each request (temperature, max_tokens, seed, ...) and the connection options
# (base_url, api_key_env, max_retries, request_timeout, ...).
ProviderFactory = Callable[[str, dict[str, Any], dict[str, Any]], Any]
_PROVIDERS: dict[str, ProviderFactory] = {}


def register_provider(prefix: str, factory: ProviderFactory) -> None:
    """Make ``prefix:...`` specs open sources through ``factory(value, params, options)``.

    The factory returns a ``ModelSource`` or an awaitable of one.
    """
    _PROVIDERS[prefix] = factory


def known_prefixes() -> list[str]:
    """The registered spec prefixes, sorted."""
    return sorted(_PROVIDERS)


def _split(spec: str) -> tuple[str, str]:
    prefix, sep, value = spec.partition(":")
    if not sep or not value:
        raise ModelSpecError(
            f"bad model spec {spec!r}: expected PREFIX:VALUE with PREFIX one of "
            f"{', '.join(known_prefixes())}"
        )
    if prefix not in _PROVIDERS:
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
    source = _PROVIDERS[prefix](value, dict(params or {}), dict(options or {}))
    if hasattr(source, "__await__"):
        source = await source
    try:
        yield source
    finally:
        await source.aclose()
