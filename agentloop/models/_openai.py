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

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import anyio
import openai
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI
from pydantic import PrivateAttr, SecretStr

from agentloop.engine import RetryPolicy
from agentloop.errors import ModelSpecError
from agentloop.models._base import register_provider

__all__ = ["CompatChatOpenAI", "OpenAISource", "build_chat_openai", "read_dotenv"]

FollowupToolChoice = Literal["keep", "auto", "none"]

# Sampling params that ChatOpenAI knows by name; anything server-specific goes in
# ``extra_body`` so that a typo is an error, not a silently ignored field.
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
        "extra_body",
    }
)

# Connection options shared by ``openai:`` and ``local:`` (and their defaults).
CONNECTION_OPTIONS: dict[str, Any] = {
    "request_timeout": 120.0,
    "max_retries": 4,
    "retry_initial_delay_s": 0.5,
    "retry_max_delay_s": 30.0,
    "retry_max_total_s": 300.0,
    "empty_content_for_tool_calls": False,
    "followup_tool_choice": "keep",
    "max_tokens_field": "max_completion_tokens",
    "max_concurrent_requests": None,
    "tool_results_as_user": False,
    "required_as_named": False,
}
OPENAI_OPTIONS = frozenset({"base_url", "api_key_env", *CONNECTION_OPTIONS})
_DEFAULT_BASE_URL = "https://api.openai.com/v1"


class CompatChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` with request fixes for OpenAI-compatible servers."""

    empty_content_for_tool_calls: bool = False
    """Send ``""`` rather than ``null`` as the content of tool-call-only assistant
    messages (llama-cpp-python's server answers HTTP 500 to ``null``)."""
    followup_tool_choice: FollowupToolChoice = "keep"
    """The ``tool_choice`` sent once the conversation holds tool results: ``keep`` the
    bound one, or ``auto``/``none``. A forced choice kept on every call can never
    end in an answer; switching after the first results lets the model reply."""
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] = "max_completion_tokens"
    """The request field carrying ``max_tokens``: OpenAI's current name, or the legacy
    one that llama-cpp-python, LM Studio and older servers read."""

    tool_results_as_user: bool = False
    """Send tool results as user messages (``Tool result (id): ...``), for chat formats
    that drop the ``tool`` role (llama-cpp-python's chatml-function-calling does)."""
    required_as_named: bool = False
    """Send ``tool_choice: required`` as the named tool when exactly one tool is bound
    (llama-cpp-python's chatml-function-calling knows only auto, none and a name)."""
    max_concurrent_requests: int | None = None
    """Requests in flight at once through this client (None: no limit); requests wait
    their turn before the clock of ``request_timeout`` starts."""
    _slots: anyio.Semaphore | None = PrivateAttr(default=None)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        try:
            if self.max_concurrent_requests is None:
                return await super()._agenerate(messages, stop, run_manager, **kwargs)
            if self._slots is None:  # made lazily: it belongs to the running event loop
                self._slots = anyio.Semaphore(self.max_concurrent_requests)
            async with self._slots:
                return await super()._agenerate(messages, stop, run_manager, **kwargs)
        except Exception as exc:
            self._scrub_key(exc)
            raise

    def _scrub_key(self, exc: Exception) -> None:
        """Mask the API key in an error a server echoed it into (the error is recorded).

        In place, so the error keeps its type, status and headers for retrying.
        """
        secret = self.openai_api_key
        key = secret.get_secret_value() if isinstance(secret, SecretStr) else ""
        if len(key) < 6 or key not in str(exc):
            return
        exc.args = tuple(a.replace(key, "***") if isinstance(a, str) else a for a in exc.args)
        if isinstance(getattr(exc, "message", None), str):
            exc.message = exc.message.replace(key, "***")  # type: ignore[attr-defined]

    def _get_request_payload(
        self, input_: LanguageModelInput, *, stop: list[str] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        payload: dict[str, Any] = super()._get_request_payload(input_, stop=stop, **kwargs)
        messages = payload.get("messages") or []
        has_tool_results = any(m.get("role") == "tool" for m in messages)
        if self.empty_content_for_tool_calls:
            for message in messages:
                if message.get("role") == "assistant" and message.get("content") is None:
                    message["content"] = ""
        if self.tool_results_as_user:
            names = {
                c.get("id"): c.get("function", {}).get("name")
                for m in messages
                for c in m.get("tool_calls") or []
            }
            for message in messages:
                if message.get("role") == "tool":
                    text = message.get("content")
                    text = text if isinstance(text, str) else json.dumps(text)
                    name = names.get(message.get("tool_call_id")) or "the tool"
                    message.clear()
                    message.update(role="user", content=f"Result of {name}: {text}")
        if self.max_tokens_field == "max_tokens" and "max_completion_tokens" in payload:
            payload["max_tokens"] = payload.pop("max_completion_tokens")
        if (
            self.followup_tool_choice != "keep"
            and "tool_choice" in payload
            and has_tool_results
        ):
            payload["tool_choice"] = self.followup_tool_choice
        tools = payload.get("tools") or []
        if self.required_as_named and payload.get("tool_choice") == "required" and len(tools) == 1:
            name = tools[0].get("function", {}).get("name")
            payload["tool_choice"] = {"type": "function", "function": {"name": name}}
        return payload


def read_dotenv(path: str | Path = ".env") -> dict[str, str]:
    """``KEY=VALUE`` lines of a ``.env`` file (``export``, comments and quotes allowed).

    Missing file: ``{}``. Values are not expanded; the environment is not changed.
    """
    file = Path(path)
    if not file.is_file():
        return {}
    values: dict[str, str] = {}
    for raw in file.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").strip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key.replace("_", "").isalnum():
            continue
        value = value.strip()
        if value[:1] in ("'", '"'):
            quote = value[0]
            end = value.find(quote, 1)
            value = value[1:end] if end > 0 else value[1:]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values[key] = value
    return values


def _lookup(name: str, dotenv: Mapping[str, str]) -> str | None:
    """The environment wins over ``.env``; empty counts as unset."""
    return os.environ.get(name) or dotenv.get(name) or None


def _number(options: dict[str, Any], name: str, kind: type) -> Any:
    value = options[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ModelSpecError(f"model option {name} must be a non-negative number, not {value!r}")
    return kind(value)


def check_options(
    options: dict[str, Any], allowed: frozenset[str], defaults: dict[str, Any], provider: str
) -> dict[str, Any]:
    """Options with defaults filled in; unknown names and inline keys are errors."""
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
    if merged["followup_tool_choice"] not in ("keep", "auto", "none"):
        raise ModelSpecError("model option followup_tool_choice must be keep, auto or none")
    slots = merged["max_concurrent_requests"]
    if slots is not None and (isinstance(slots, bool) or not isinstance(slots, int) or slots < 1):
        raise ModelSpecError("model option max_concurrent_requests must be a positive integer")
    if merged["max_tokens_field"] not in ("max_completion_tokens", "max_tokens"):
        raise ModelSpecError(
            "model option max_tokens_field must be max_completion_tokens or max_tokens"
        )
    return merged


def retry_policy_from(options: dict[str, Any]) -> RetryPolicy:
    """The engine's retry policy from (already checked) connection options."""
    return RetryPolicy(
        max_retries=_number(options, "max_retries", int),
        initial_delay_s=_number(options, "retry_initial_delay_s", float),
        max_delay_s=_number(options, "retry_max_delay_s", float),
        max_total_s=_number(options, "retry_max_total_s", float),
    )


def check_params(params: dict[str, Any]) -> dict[str, Any]:
    """Sampling params, validated by name (server-specific ones belong in extra_body)."""
    unknown = sorted(set(params) - SAMPLING_PARAMS)
    if unknown:
        raise ModelSpecError(
            f"unknown sampling param(s): {', '.join(unknown)}; known: "
            f"{', '.join(sorted(SAMPLING_PARAMS))} (server-specific ones go in extra_body)"
        )
    if "extra_body" in params and not isinstance(params["extra_body"], dict):
        raise ModelSpecError("sampling param extra_body must be a mapping")
    return dict(params)


def build_chat_openai(
    model: str,
    params: dict[str, Any],
    options: dict[str, Any],
    *,
    base_url: str,
    api_key: str,
    http_client: openai.DefaultAsyncHttpxClient,
) -> CompatChatOpenAI:
    """A ``CompatChatOpenAI`` that never retries on its own (the engine does)."""
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
        **check_params(params),
    )


class OpenAISource:
    """One ``ChatOpenAI`` client shared by every sample (its connections are pooled)."""

    def __init__(
        self, model: str, params: dict[str, Any], options: dict[str, Any], *, dotenv: str = ".env"
    ) -> None:
        options = check_options(options, OPENAI_OPTIONS, CONNECTION_OPTIONS, "openai")
        env = read_dotenv(dotenv)
        key_var = options.get("api_key_env", "OPENAI_API_KEY")
        if not isinstance(key_var, str) or not key_var:
            raise ModelSpecError("model option api_key_env must name an environment variable")
        base_url = (
            options.get("base_url")
            or _lookup("OPENAI_BASE_URL", env)
            or _lookup("OPENAI_API_BASE", env)
            or _DEFAULT_BASE_URL
        )
        key = _lookup(key_var, env)
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
        self.retry_policy = retry_policy_from(options)
        self._http = openai.DefaultAsyncHttpxClient()
        self.model = build_chat_openai(
            model, params, options, base_url=base_url, api_key=key, http_client=self._http
        )

    def for_sample(self, sample_id: str, epoch: int) -> CompatChatOpenAI:
        return self.model

    async def aclose(self) -> None:
        await self._http.aclose()


register_provider("openai", OpenAISource)
