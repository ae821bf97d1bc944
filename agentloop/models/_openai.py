"""``openai:<model>``: any OpenAI-compatible chat endpoint through ``ChatOpenAI``.

The key and endpoint come from the environment (``OPENAI_API_KEY``,
``OPENAI_BASE_URL``; a ``.env`` file in the working directory fills in variables
that are not set) or from options: ``base_url``, and ``api_key_env`` naming the
variable that holds the key. A key itself is never accepted as an option, so it
cannot end up in a config file or a run record.

Retrying belongs to the engine: ``ChatOpenAI`` is built with ``max_retries=0`` and
the source exposes the ``RetryPolicy`` to pass to ``run_agent`` as ``retry_policy``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from typing import Annotated, Any

import openai
from pydantic import SecretStr, TypeAdapter, ValidationError

from agentloop._secrets import read_dotenv
from agentloop.engine import RetryPolicy
from agentloop.errors import ModelSpecError
from agentloop.models._base import (
    SAMPLING_PARAMS,
    ModelSource,
    ProviderFactory,
    check_param_names,
)
from agentloop.models._compat import FOLLOWUP_TOOL_CHOICES, CompatChatOpenAI
from agentloop.models._endpoint import check_endpoint, display_url
from agentloop.models._pools import pooled_http_client
from agentloop.models._reasoning import openai_reasoning, split_reasoning
from agentloop.models._responses import check_api, check_responses_params, responses_arguments

__all__ = [
    "FACTORIES",
    "SAMPLING_PARAMS",
    "CompatChatOpenAI",
    "OpenAISource",
    "build_chat_openai",
    "read_dotenv",
]

# Connection options shared by ``openai:`` and ``local:`` (and their defaults).
CONNECTION_OPTIONS: dict[str, Any] = {
    "request_timeout": 120.0,
    "max_retries": 4,
    "retry_initial_delay_s": 0.5,
    "retry_max_delay_s": 30.0,
    "retry_max_total_s": 300.0,
    "empty_content_for_tool_calls": False,
    "followup_tool_choice": "auto_if_forced",
    "max_tokens_field": "max_completion_tokens",
    "max_concurrent_requests": None,
    "tool_results_as_user": False,
    "required_as_named": False,
}
OPENAI_OPTIONS = frozenset({"base_url", "api_key_env", "api", *CONNECTION_OPTIONS})
_DEFAULT_BASE_URL = "https://api.openai.com/v1"


def lookup_secret(name: str, dotenv: Mapping[str, str]) -> str | None:
    """The environment wins over ``.env``; empty counts as unset."""
    return os.environ.get(name) or dotenv.get(name) or None


def _number(options: dict[str, Any], name: str, kind: type) -> Any:
    value = options[name]
    kinds = (int,) if kind is int else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or value < 0:
        what = "integer" if kind is int else "number"
        raise ModelSpecError(f"model option {name} must be a non-negative {what}, not {value!r}")
    return kind(value)


def check_options(
    options: dict[str, Any], allowed: frozenset[str], defaults: dict[str, Any], provider: str
) -> dict[str, Any]:
    """Options with defaults filled in, all checked (nothing may fail once a server runs);
    unknown names and inline keys are errors."""
    if "api_key" in options:
        raise ModelSpecError(
            "the api_key option is not accepted: a key must never be written in a config. "
            "Put it in the environment (or .env) and name the variable with api_key_env "
            "(default OPENAI_API_KEY)."
        )
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ModelSpecError(
            f"unknown {provider} model option(s): {', '.join(unknown)}; "
            f"known: {', '.join(sorted(allowed))}"
        )
    merged = {**defaults, **options}
    for flag in ("empty_content_for_tool_calls", "tool_results_as_user", "required_as_named"):
        if not isinstance(merged[flag], bool):
            raise ModelSpecError(f"model option {flag} must be true or false")
    if merged["followup_tool_choice"] not in FOLLOWUP_TOOL_CHOICES:
        raise ModelSpecError(
            f"model option followup_tool_choice must be one of {', '.join(FOLLOWUP_TOOL_CHOICES)}"
        )
    slots = merged["max_concurrent_requests"]
    if slots is not None and (isinstance(slots, bool) or not isinstance(slots, int) or slots < 1):
        raise ModelSpecError("model option max_concurrent_requests must be a positive integer")
    if merged["max_tokens_field"] not in ("max_completion_tokens", "max_tokens"):
        raise ModelSpecError(
            "model option max_tokens_field must be max_completion_tokens or max_tokens"
        )
    _number(merged, "request_timeout", float)
    retry_policy_from(merged)
    return merged


def retry_policy_from(options: dict[str, Any]) -> RetryPolicy:
    """The engine's retry policy from (already checked) connection options."""
    return RetryPolicy(
        max_retries=_number(options, "max_retries", int),
        initial_delay_s=_number(options, "retry_initial_delay_s", float),
        max_delay_s=_number(options, "retry_max_delay_s", float),
        max_total_s=_number(options, "retry_max_total_s", float),
    )


@functools.cache
def _param_type(name: str) -> TypeAdapter[Any]:
    """The type (and constraints) ``CompatChatOpenAI`` gives sampling param ``name``."""
    field = CompatChatOpenAI.model_fields[name]
    annotation: Any = field.annotation
    if field.metadata:
        parts = (annotation, *field.metadata)
        annotation = Annotated[parts]
    return TypeAdapter(annotation)


def check_params(
    params: dict[str, Any], provider: str = "openai", api: str = "chat_completions"
) -> dict[str, Any]:
    """Sampling params, validated by name (server-specific ones belong in extra_body) and
    by type, as the client would, so that a wrong one fails before anything starts; the
    ``reasoning`` setting becomes ``CompatChatOpenAI``'s arguments (``_reasoning``)."""
    check_param_names(params)
    if api == "responses":
        check_responses_params(params)
    reasoning, params = split_reasoning(params)
    if "extra_body" in params and not isinstance(params["extra_body"], dict):
        raise ModelSpecError("sampling param extra_body must be a mapping")
    for name, value in params.items():
        try:
            _param_type(name).validate_python(value)
        except ValidationError as exc:
            reasons = dict.fromkeys(str(e["msg"]) for e in exc.errors())
            raise ModelSpecError(f"model_params.{name}: {'; '.join(reasons)}") from None
    return {**params, **openai_reasoning(reasoning, params, provider, api)}


def build_chat_openai(
    model: str,
    params: dict[str, Any],
    options: dict[str, Any],
    *,
    base_url: str,
    api_key: str,
    http_client: openai.DefaultAsyncHttpxClient,
    provider: str = "openai",
    api: str = "chat_completions",
) -> CompatChatOpenAI:
    """A ``CompatChatOpenAI`` that never retries on its own (the engine does), talking to
    ``api`` (``agentloop.models._responses``)."""
    return CompatChatOpenAI(
        model=model,
        base_url=base_url,
        api_key=SecretStr(api_key),
        timeout=_number(options, "request_timeout", float) or None,
        max_retries=0,
        http_async_client=http_client,
        empty_content_for_tool_calls=options["empty_content_for_tool_calls"],
        followup_tool_choice=options["followup_tool_choice"],
        max_tokens_field=options["max_tokens_field"],
        max_concurrent_requests=options["max_concurrent_requests"],
        tool_results_as_user=options["tool_results_as_user"],
        required_as_named=options["required_as_named"],
        **responses_arguments(api),
        **check_params(params, provider, api),
    )


class OpenAISource(ModelSource):
    """One ``ChatOpenAI`` client shared by every sample (its connections are pooled)."""

    def __init__(
        self, model: str, params: dict[str, Any], options: dict[str, Any], *, dotenv: str = ".env"
    ) -> None:
        options = check_options(options, OPENAI_OPTIONS, CONNECTION_OPTIONS, "openai")
        api = check_api(options)
        check_params(params, api=api)  # before the connection pool is made
        env = read_dotenv(dotenv)
        key_var = options.get("api_key_env", "OPENAI_API_KEY")
        if not isinstance(key_var, str) or not key_var:
            raise ModelSpecError("model option api_key_env must name an environment variable")
        base_url = (
            options.get("base_url")
            or lookup_secret("OPENAI_BASE_URL", env)
            or lookup_secret("OPENAI_API_BASE", env)
            or _DEFAULT_BASE_URL
        )
        key = lookup_secret(key_var, env)
        if key is None:
            if base_url.rstrip("/") == _DEFAULT_BASE_URL:
                raise ModelSpecError(
                    f"no API key for openai:{model}: set {key_var} in the environment or in "
                    f"./.env (or point OPENAI_BASE_URL / the base_url option at a server "
                    f"that needs none)"
                )
            key = "unused"  # local servers (vLLM, Ollama, llama.cpp) accept any key
        self.name = model
        self.base_url = base_url
        self.endpoint = display_url(base_url)
        self.retry_policy = retry_policy_from(options)
        self.api = api
        self._http = pooled_http_client()  # connections in several pools (see _pools)
        self.model = build_chat_openai(
            model,
            params,
            options,
            base_url=base_url,
            api_key=key,
            http_client=self._http,
            api=api,
        )

    def for_sample(self, sample_id: str, epoch: int) -> CompatChatOpenAI:
        return self.model

    async def preflight(self) -> None:
        """``GET /models``, or a 1-token chat request when that is refused; see
        ``agentloop.models._endpoint``."""
        await check_endpoint(
            self.model.root_async_client,
            self.name,
            display_url(self.base_url),
            max_tokens_field=self.model.max_tokens_field,
            mask=self.model.mask_key,
            api=self.api,
        )

    async def aclose(self) -> None:
        await self._http.aclose()


FACTORIES: dict[str, ProviderFactory] = {"openai": OpenAISource}
"""The ``openai:`` prefix (``agentloop.models._base`` reads it)."""
