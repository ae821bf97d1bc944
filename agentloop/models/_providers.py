"""``PROVIDER:MODEL`` for LangChain's chat-model integrations (``anthropic:``, ``groq:``, ...).

The prefixes are the provider names of LangChain's ``init_chat_model``; each maps to its
integration package, installed through the extra of that name
(``pip install 'agentloop[anthropic]'``). The chat model is built as ``openai:`` builds
``ChatOpenAI``: sampling params checked against the class's own parameters before
anything connects, the key read from the environment or ``./.env`` (never written
anywhere), the SDK's own retries off so that the run's retry policy is the only one,
and a one-request preflight.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
from typing import Any

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from pydantic import SecretStr, ValidationError

from agentloop._secrets import read_dotenv
from agentloop.engine._retry import is_transient
from agentloop.errors import ModelSpecError
from agentloop.models._base import SAMPLING_PARAMS, ModelSource, ProviderFactory
from agentloop.models._endpoint import display_url
from agentloop.models._openai import CONNECTION_OPTIONS, lookup_secret, retry_policy_from
from agentloop.models._reasoning import (
    SENDS_REASONING_BACK,
    langchain_reasoning,
    send_reasoning_back,
    split_reasoning,
)

__all__ = ["FACTORIES", "PROVIDERS", "LangChainSource"]

# prefix -> (module, class, the environment variable of its key or None); the package
# is the module's name with dashes.
PROVIDERS: dict[str, tuple[str, str, str | None]] = {
    "anthropic": ("langchain_anthropic", "ChatAnthropic", "ANTHROPIC_API_KEY"),
    "azure_openai": ("langchain_openai", "AzureChatOpenAI", "AZURE_OPENAI_API_KEY"),
    "bedrock_converse": ("langchain_aws", "ChatBedrockConverse", None),
    "cohere": ("langchain_cohere", "ChatCohere", "COHERE_API_KEY"),
    "deepseek": ("langchain_deepseek", "ChatDeepSeek", "DEEPSEEK_API_KEY"),
    "fireworks": ("langchain_fireworks", "ChatFireworks", "FIREWORKS_API_KEY"),
    "google_genai": ("langchain_google_genai", "ChatGoogleGenerativeAI", "GOOGLE_API_KEY"),
    "google_vertexai": ("langchain_google_vertexai", "ChatVertexAI", None),
    "groq": ("langchain_groq", "ChatGroq", "GROQ_API_KEY"),
    "mistralai": ("langchain_mistralai", "ChatMistralAI", "MISTRAL_API_KEY"),
    "ollama": ("langchain_ollama", "ChatOllama", None),
    "perplexity": ("langchain_perplexity", "ChatPerplexity", "PPLX_API_KEY"),
    "together": ("langchain_together", "ChatTogether", "TOGETHER_API_KEY"),
    "xai": ("langchain_xai", "ChatXAI", "XAI_API_KEY"),
}

# openai:'s timeout and retry options, with the same defaults.
_SHARED = (
    "request_timeout",
    "max_retries",
    "retry_initial_delay_s",
    "retry_max_delay_s",
    "retry_max_total_s",
)
OPTIONS: dict[str, Any] = {
    "base_url": None,
    "api_key_env": None,
    **{name: CONNECTION_OPTIONS[name] for name in _SHARED},
}


# How a request asks for one token, where the call does not take ``max_tokens`` (ChatOllama
# and ChatGoogleGenerativeAI pass unknown arguments on to their clients, which refuse them).
_MAX_1: dict[str, Any] = {"max_tokens": 1}
_ONE_TOKEN: dict[str, dict[str, Any]] = {
    "google_genai": {"max_output_tokens": 1},
    "ollama": {"options": {"num_predict": 1}},
}


def _class(prefix: str) -> type[BaseChatModel]:
    module_name, class_name, _ = PROVIDERS[prefix]
    if importlib.util.find_spec(module_name) is None:
        raise ModelSpecError(
            f"{prefix}: models need {module_name.replace('_', '-')}, which is not installed: "
            f"pip install 'agentloop[{prefix}]'"
        )
    cls: type[BaseChatModel] = getattr(importlib.import_module(module_name), class_name)
    return cls


@functools.cache
def _sending_reasoning_back(cls: type[BaseChatModel]) -> type[BaseChatModel]:
    """A subclass of an OpenAI-protocol class whose requests carry the reasoning of the
    replies before them (see ``SENDS_REASONING_BACK``)."""

    def _get_request_payload(self: Any, input_: Any, *, stop: Any = None, **kwargs: Any) -> Any:
        payload = cls._get_request_payload(self, input_, stop=stop, **kwargs)  # type: ignore[attr-defined]
        sent = self._convert_input(input_).to_messages()
        send_reasoning_back(sent, payload.get("messages") or [])
        return payload

    namespace = {"_get_request_payload": _get_request_payload, "__module__": __name__}
    return type(cls.__name__, (cls,), namespace)


class _Think:
    """ChatOllama's ``reasoning`` argument, made truthy: langchain-ollama keeps a reply's
    ``thinking`` only when ``reasoning`` is truthy, so a model that thinks by default (or
    despite ``think: false``) would lose it; wrapped, the thinking is kept whatever
    Ollama's ``think`` says, and ``value`` is what goes on the wire."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __bool__(self) -> bool:
        return True


@functools.cache
def _keeping_thinking(cls: type[BaseChatModel]) -> type[BaseChatModel]:
    """A subclass of ChatOllama whose replies keep the thinking Ollama returns
    (``additional_kwargs["reasoning_content"]``, as langchain-ollama names it)."""

    def _aiterate_over_stream(self: Any, messages: Any, stop: Any = None, **kwargs: Any) -> Any:
        kwargs["reasoning"] = _Think(kwargs.get("reasoning", self.reasoning))
        return cls._aiterate_over_stream(self, messages, stop, **kwargs)  # type: ignore[attr-defined]

    def _iterate_over_stream(self: Any, messages: Any, stop: Any = None, **kwargs: Any) -> Any:
        kwargs["reasoning"] = _Think(kwargs.get("reasoning", self.reasoning))
        return cls._iterate_over_stream(self, messages, stop, **kwargs)  # type: ignore[attr-defined]

    def _chat_params(self: Any, messages: Any, stop: Any = None, **kwargs: Any) -> Any:
        if isinstance(kwargs.get("reasoning"), _Think):
            kwargs["reasoning"] = kwargs["reasoning"].value
        return cls._chat_params(self, messages, stop, **kwargs)  # type: ignore[attr-defined]

    namespace = {
        "_aiterate_over_stream": _aiterate_over_stream,
        "_iterate_over_stream": _iterate_over_stream,
        "_chat_params": _chat_params,
        "__module__": __name__,
    }
    return type(cls.__name__, (cls,), namespace)


def _check_applicable(
    prefix: str, cls: type[BaseChatModel], accepted: set[str], given: set[str]
) -> None:
    """A model option the class cannot apply is a one-line error, never dropped."""
    needs = {
        "base_url": {"base_url"},
        "request_timeout": {"timeout", "client_kwargs"},
        "api_key_env": {"api_key"},
    }
    for option in sorted(given & set(needs)):
        if not needs[option] & accepted:
            raise ModelSpecError(
                f"model_options.{option}: {prefix}: models cannot apply it ({cls.__name__} "
                f"takes no {' or '.join(sorted(needs[option]))}); remove it"
            )


def _accepted(cls: type[BaseChatModel]) -> set[str]:
    """The constructor names of a pydantic chat model: its fields and their aliases."""
    names = set()
    for name, info in cls.model_fields.items():
        names.add(name)
        if info.alias:
            names.add(info.alias)
    return names


class LangChainSource(ModelSource):
    """One chat model of a LangChain integration, shared by every sample."""

    def __init__(
        self, prefix: str, model: str, params: dict[str, Any], options: dict[str, Any]
    ) -> None:
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ModelSpecError(
                f"unknown {prefix} model option(s): {', '.join(unknown)}; "
                f"known: {', '.join(sorted(OPTIONS))}"
            )
        given = set(options)
        options = {**OPTIONS, **options}
        cls = _class(prefix)
        accepted = _accepted(cls)
        _check_applicable(prefix, cls, accepted, given)
        reasoning, params = split_reasoning(params)
        sends_back = reasoning is None or reasoning.send_back is not False
        if prefix in SENDS_REASONING_BACK and sends_back:
            cls = _sending_reasoning_back(cls)
        if prefix == "ollama":
            cls = _keeping_thinking(cls)
        # Names first (a typo must not reach model_kwargs and the wire), then values.
        wrong = sorted(p for p in params if p not in SAMPLING_PARAMS or p not in accepted)
        if wrong:
            raise ModelSpecError(
                f"model_params.{wrong[0]}: not a sampling parameter of {cls.__name__} "
                f"({prefix}:); it takes {', '.join(sorted(SAMPLING_PARAMS & accepted))}"
            )
        key_var = options["api_key_env"] or PROVIDERS[prefix][2]
        kwargs: dict[str, Any] = {
            "model": model,
            "max_retries": 0,
            **params,
            **langchain_reasoning(reasoning, params, prefix, cls),
        }
        if key_var is not None:
            key = lookup_secret(key_var, read_dotenv(".env"))
            if key is None and options["base_url"] is None:
                raise ModelSpecError(
                    f"no API key for {prefix}:{model}: set {key_var} in the environment or "
                    f"in ./.env"
                )
            kwargs["api_key"] = SecretStr(key or "unused")
        if options["base_url"] is not None:
            kwargs["base_url"] = options["base_url"]
        if options["request_timeout"] and "timeout" in accepted:
            kwargs["timeout"] = float(options["request_timeout"])
        elif options["request_timeout"] and "client_kwargs" in accepted:  # ChatOllama's httpx
            kwargs["client_kwargs"] = {"timeout": float(options["request_timeout"])}
        # An OpenAI-SDK class gets a connection pool of its own, closed with the source
        # (by default langchain-openai shares one per endpoint that nobody closes).
        self._http = openai.DefaultAsyncHttpxClient() if "http_async_client" in accepted else None
        kwargs["http_async_client"] = self._http
        try:
            self.model = cls(**{k: v for k, v in kwargs.items() if k in accepted})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "model"
            raise ModelSpecError(f"{prefix}:{model}: {where}: {first['msg']}") from None
        self.name = model
        self.prefix = prefix
        self.retry_policy = retry_policy_from(options)
        self.endpoint = display_url(_base_url(prefix, self.model, options["base_url"]))

    def for_sample(self, sample_id: str, epoch: int) -> BaseChatModel:
        return self.model

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
        close = getattr(self.model, "aclose", None)  # ChatGoogleGenerativeAI's own clients
        if callable(close):
            await close()

    async def preflight(self) -> None:
        """One 1-token request: a refused key or an unreachable endpoint is a one-line
        error before the first sample; a temporary error passes (the run retries)."""
        model = self.model
        thinking = getattr(model, "thinking", None)
        if isinstance(thinking, dict) and thinking.get("type") == "enabled":
            # A thinking budget must be below max_tokens: the 1-token request thinks not.
            model = model.model_copy(update={"thinking": {"type": "disabled"}})
        try:
            await model.ainvoke([HumanMessage("ping")], **_ONE_TOKEN.get(self.prefix, _MAX_1))
        except Exception as exc:
            if is_transient(exc) and not _is_connection(exc):
                return
            raise ModelSpecError(
                f"cannot use {self.prefix}:{self.name} ({self.endpoint}): "
                f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            ) from None


# Where each integration keeps the URL it resolved (the option, its environment variable or
# its default); the first that is set wins.
_URL_FIELDS = ("base_url", "api_base", "openai_api_base", "anthropic_api_url")


def _base_url(prefix: str, model: BaseChatModel, option: str | None) -> str:
    """The URL requests go to, as the integration resolved it; else the provider's name
    (an SDK that keeps its default to itself)."""
    if option:
        return option
    for name in _URL_FIELDS:
        value = getattr(model, name, None)
        if isinstance(value, str) and value:
            return value
    if prefix == "ollama":  # the ollama client reads OLLAMA_HOST itself
        return os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"
    return prefix


def _is_connection(exc: BaseException) -> bool:
    return any(c.__name__ == "APIConnectionError" for c in type(exc).__mro__)


def _factory(prefix: str) -> ProviderFactory:
    def open_source(value: str, params: dict[str, Any], options: dict[str, Any]) -> ModelSource:
        return LangChainSource(prefix, value, params, options)

    return open_source


FACTORIES = {prefix: _factory(prefix) for prefix in PROVIDERS}
"""One prefix per integration (``agentloop.models._base`` reads them)."""
