"""Reasoning models: the ``reasoning:`` setting, its mapping onto each provider's own
parameters, and the reasoning a reply carries.

The setting travels with the sampling params under the name ``reasoning`` (the config's
top-level ``reasoning:`` puts it there), so it is part of what a replay compares, what
the response cache keys on (through the provider parameters it becomes) and what a resume
compares. Each provider maps it, or refuses a part it cannot take with a one-line
``ConfigError`` naming the field; nothing is silently ignored.

What a reply's reasoning looks like, by provider:

- OpenAI-compatible servers (DeepSeek, vLLM, llama.cpp, ...): a ``reasoning_content`` (or
  ``reasoning``) field beside ``content``; kept in the reply's
  ``additional_kwargs`` under the server's own name, and sent back under that name
  (``send_back``).
- OpenAI's Responses API (``openai:`` with ``model_options: {api: responses}``):
  ``reasoning`` items (``id``, ``summary``, ``encrypted_content``) among the reply's
  content blocks, in the order the server returned them; langchain-openai sends them back
  as input items (agentloop asks for ``encrypted_content`` and stores nothing at OpenAI).
- Anthropic: ``thinking`` blocks (with their ``signature``) and ``redacted_thinking``
  blocks in the reply's content, sent back unchanged by langchain-anthropic.
- Ollama: the message's ``thinking``, kept by langchain-ollama as ``reasoning_content`` in
  ``additional_kwargs`` (agentloop keeps it whatever ``think`` says, see
  ``_providers``) and sent back by it as the message's ``thinking``.
- Gemini (``google_genai:``): thought summaries (``include_thoughts``) as ``thinking``
  content blocks; each function call's thought signature in ``additional_kwargs``
  (langchain-google-genai's ``__gemini_function_call_thought_signatures__``, by call id),
  sent back with the call by langchain-google-genai.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from agentloop.errors import ConfigError

if TYPE_CHECKING:  # a config reads this module: LangChain is imported when a request is sent
    from langchain_core.messages import BaseMessage

__all__ = [
    "REASONING_FIELDS",
    "REASONING_PARAM",
    "SENDS_REASONING_BACK",
    "Reasoning",
    "langchain_reasoning",
    "openai_reasoning",
    "reasoning_parts",
    "send_reasoning_back",
    "split_reasoning",
]

REASONING_PARAM = "reasoning"
"""The name the setting travels under among the sampling params."""
REASONING_FIELDS = ("reasoning_content", "reasoning")
"""Message fields OpenAI-compatible servers return reasoning text in (DeepSeek, llama.cpp
and older vLLM say ``reasoning_content``; newer vLLM, Groq and OpenRouter ``reasoning``)."""

SENDS_REASONING_BACK = frozenset({"deepseek"})
"""LangChain providers whose integration keeps a reply's ``reasoning_content`` but drops it
from the requests that follow (langchain-deepseek: langchain-ai/langchain#40219): agentloop
sends it back itself, as ``openai:`` does, unless ``send_back: false``."""

Effort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]
Summary = Literal["auto", "concise", "detailed"]


class Reasoning(BaseModel):
    """How much a reasoning model thinks, and whether its reasoning goes back to it."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, frozen=True)

    enabled: bool | None = None
    """Turn reasoning on or off (unset: the model's default)."""
    effort: Effort | None = None
    """Reasoning effort (openai: ``reasoning_effort``; anthropic: ``effort``). Each
    provider takes its own subset of these values."""
    budget_tokens: int | None = Field(default=None, ge=1)
    """Tokens the model may think for (anthropic: ``thinking.budget_tokens``, at least
    1024 and below ``max_tokens``)."""
    send_back: bool | None = None
    """Send each assistant message's reasoning back with the conversation (unset: the
    provider's default, true for openai:, local:, deepseek:, anthropic:, google_genai:
    and ollama:)."""
    summary: Summary | None = None
    """Ask for a summary of the reasoning, for the record (openai: with the Responses API
    only, ``reasoning.summary``; google_genai: ``auto``, its thought summaries). Neither
    returns one unless asked."""

    @model_validator(mode="after")
    def _consistent(self) -> Reasoning:
        if self.enabled is False and (self.effort not in (None, "none") or self.budget_tokens):
            raise ValueError("enabled: false, but effort or budget_tokens asks for reasoning")
        return self

    def as_param(self) -> dict[str, Any]:
        """The setting as JSON data, the way it travels among the sampling params."""
        return self.model_dump(exclude_none=True)


def _field_error(exc: ValidationError) -> ConfigError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    message = str(first["msg"]).removeprefix("Value error, ")
    return ConfigError(f"reasoning.{where}: {message}" if where else f"reasoning: {message}")


def split_reasoning(params: Mapping[str, Any]) -> tuple[Reasoning | None, dict[str, Any]]:
    """The ``reasoning`` setting among ``params`` (validated), and the other params."""
    rest = {k: v for k, v in params.items() if k != REASONING_PARAM}
    raw = params.get(REASONING_PARAM)
    if raw is None or isinstance(raw, Reasoning):
        return raw, rest
    if not isinstance(raw, Mapping):
        raise ConfigError(
            f"reasoning: a mapping of enabled, effort, budget_tokens and send_back, not {raw!r}"
        )
    try:
        return Reasoning.model_validate(dict(raw)), rest
    except ValidationError as exc:
        raise _field_error(exc) from None


def openai_reasoning(
    reasoning: Reasoning | None,
    params: Mapping[str, Any],
    provider: str,
    api: str = "chat_completions",
) -> dict[str, Any]:
    """``CompatChatOpenAI`` arguments for the setting: ``effort`` becomes
    ``reasoning_effort`` (``enabled: false``: ``"none"``, OpenAI's switch), ``send_back``
    becomes ``reasoning_send_back``. OpenAI's chat API has no token budget and no switch
    that turns reasoning on: those are errors.

    Through the Responses API (``api="responses"``) ``effort`` and ``summary`` become its
    ``reasoning: {effort, summary}``; ``summary`` is an error for the chat API."""
    if reasoning is None:
        return {}
    if reasoning.summary is not None and api != "responses":
        raise ConfigError(
            f"reasoning.summary: {provider}: the chat completions API returns no reasoning "
            f"summaries (OpenAI's Responses API does: model_options: {{api: responses}})"
        )
    if reasoning.budget_tokens is not None:
        raise ConfigError(
            f"reasoning.budget_tokens: {provider}: OpenAI-compatible servers take an effort, "
            f"not a token budget (a server's own field goes in model_params.extra_body)"
        )
    if reasoning.enabled is True and reasoning.effort is None:
        raise ConfigError(
            f"reasoning.enabled: {provider}: the OpenAI API has no switch that turns "
            f"reasoning on (reasoning models reason by default); set reasoning.effort"
        )
    out: dict[str, Any] = {}
    effort = "none" if reasoning.enabled is False else reasoning.effort
    if effort is not None:
        if "reasoning_effort" in params:
            raise ConfigError(
                "reasoning.effort: model_params.reasoning_effort says it too; keep one"
            )
        out["reasoning_effort"] = effort
    if api == "responses" and (effort is not None or reasoning.summary is not None):
        summary = {"summary": reasoning.summary} if reasoning.summary else {}
        effort_field = {"effort": out.pop("reasoning_effort")} if effort is not None else {}
        out["reasoning"] = {**effort_field, **summary}
    if reasoning.send_back is not None:
        out["reasoning_send_back"] = reasoning.send_back
    return out


def send_reasoning_back(sent: Sequence[BaseMessage], payload: list[dict[str, Any]]) -> None:
    """Put each assistant message's reasoning (``additional_kwargs``) into its request
    message (``payload``, one per message of ``sent``), in the field the server used."""
    from langchain_core.messages import AIMessage

    for original, message in zip(sent, payload, strict=True):
        if isinstance(original, AIMessage):
            for name in REASONING_FIELDS:
                if name in original.additional_kwargs:
                    message[name] = original.additional_kwargs[name]


def _checked(cls: type, name: str, value: Any, setting: str, provider: str) -> Any:
    """``value`` validated as ``cls``'s field ``name`` would validate it."""
    try:
        return TypeAdapter(cls.model_fields[name].annotation).validate_python(value)  # type: ignore[attr-defined]
    except ValidationError as exc:
        reason = str(exc.errors()[0]["msg"])
        raise ConfigError(f"reasoning.{setting}: {provider}: {reason}") from None


def _anthropic(reasoning: Reasoning, params: Mapping[str, Any], cls: type) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if reasoning.send_back is False:
        raise ConfigError(
            "reasoning.send_back: anthropic: the API refuses a tool result whose assistant "
            "turn lost its thinking blocks; they always go back"
        )
    if reasoning.summary is not None:
        raise ConfigError(
            "reasoning.summary: anthropic: not supported (its thinking blocks are summaries "
            "already on Claude 4 models)"
        )
    budget = reasoning.budget_tokens
    if budget is not None:
        if budget < 1024:
            raise ConfigError("reasoning.budget_tokens: anthropic: at least 1024")
        max_tokens = params.get("max_tokens")
        if isinstance(max_tokens, int) and budget >= max_tokens:
            raise ConfigError(
                f"reasoning.budget_tokens: anthropic: must be below model_params.max_tokens "
                f"({max_tokens})"
            )
        out["thinking"] = {"type": "enabled", "budget_tokens": budget}
    elif reasoning.enabled is True:
        out["thinking"] = {"type": "adaptive"}
    elif reasoning.enabled is False:
        out["thinking"] = {"type": "disabled"}
    if reasoning.effort is not None:
        out["effort"] = _checked(cls, "reasoning_effort", reasoning.effort, "effort", "anthropic")
    return out


_OLLAMA_EFFORTS = ("low", "medium", "high")


def _ollama(reasoning: Reasoning, params: Mapping[str, Any], cls: type) -> dict[str, Any]:
    """ChatOllama's ``reasoning`` (Ollama's ``think``): true or false, or an effort
    (low, medium, high: gpt-oss). langchain-ollama sends each reply's thinking back (the
    message's ``thinking``); Ollama hands it to the model's template."""
    if reasoning.send_back is False:
        raise ConfigError(
            "reasoning.send_back: ollama: not supported (langchain-ollama sends each "
            "reply's thinking back as the message's thinking)"
        )
    for name in ("budget_tokens", "summary"):
        if getattr(reasoning, name) is not None:
            raise ConfigError(
                f"reasoning.{name}: ollama: not supported (Ollama's think "
                f"takes true, false or an effort)"
            )
    effort = reasoning.effort
    if effort is not None and effort != "none" and effort not in _OLLAMA_EFFORTS:
        raise ConfigError(
            f"reasoning.effort: ollama: one of none, {', '.join(_OLLAMA_EFFORTS)}, not {effort!r}"
        )
    if effort == "none" or reasoning.enabled is False:
        return {"reasoning": False}
    if effort is not None:
        return {"reasoning": effort}
    return {"reasoning": True} if reasoning.enabled else {}


def _google(reasoning: Reasoning, params: Mapping[str, Any], cls: type) -> dict[str, Any]:
    """ChatGoogleGenerativeAI's thinking: ``budget_tokens`` is ``thinking_budget``
    (``enabled`` alone: -1, dynamic, or 0, off), ``effort`` is ``thinking_level``
    (``reasoning_effort`` in langchain-google-genai), ``summary: auto`` is
    ``include_thoughts`` (Gemini's thought summaries). The thought signatures of function
    calls always go back (langchain-google-genai keeps them in the reply)."""
    if reasoning.send_back is False:
        raise ConfigError(
            "reasoning.send_back: google_genai: not supported (Gemini needs each function "
            "call's thought signature back; langchain-google-genai always sends it)"
        )
    if reasoning.effort is not None and reasoning.budget_tokens is not None:
        raise ConfigError(
            "reasoning.budget_tokens: google_genai: set effort (thinking_level) or "
            "budget_tokens (thinking_budget), not both"
        )
    out: dict[str, Any] = {}
    if reasoning.budget_tokens is not None:
        out["thinking_budget"] = reasoning.budget_tokens
    elif reasoning.enabled is not None and reasoning.effort is None:
        out["thinking_budget"] = -1 if reasoning.enabled else 0
    if reasoning.effort is not None:
        if "reasoning_effort" not in getattr(cls, "model_fields", {}):
            raise ConfigError(
                "reasoning.effort: google_genai: the installed langchain-google-genai has "
                "no thinking_level; upgrade it, or set budget_tokens"
            )
        out["reasoning_effort"] = _checked(
            cls, "reasoning_effort", reasoning.effort, "effort", "google_genai"
        )
    if reasoning.summary is not None:
        if reasoning.summary != "auto":
            raise ConfigError(
                f"reasoning.summary: google_genai: auto only (Gemini's thought summaries "
                f"are on or off), not {reasoning.summary!r}"
            )
        out["include_thoughts"] = True
    return out


_MAPPINGS = {"anthropic": _anthropic, "google_genai": _google, "ollama": _ollama}


def langchain_reasoning(
    reasoning: Reasoning | None, params: Mapping[str, Any], prefix: str, cls: type
) -> dict[str, Any]:
    """Constructor arguments of a LangChain chat model class for the setting.

    anthropic: ``budget_tokens`` becomes ``thinking={"type": "enabled", "budget_tokens":
    N}``, ``enabled`` alone ``{"type": "adaptive"}`` or ``{"type": "disabled"}``,
    ``effort`` the model's ``effort``. ollama: ``reasoning`` (``_ollama``). google_genai:
    ``thinking_budget``, ``thinking_level``, ``include_thoughts`` (``_google``). Another
    provider takes ``effort`` when its class has ``reasoning_effort``; the rest is an
    error naming the field.
    """
    if reasoning is None:
        return {}
    if prefix in _MAPPINGS:
        return _MAPPINGS[prefix](reasoning, params, cls)
    fields = getattr(cls, "model_fields", {})
    out: dict[str, Any] = {}
    if reasoning.effort is not None and "reasoning_effort" in fields:
        if "reasoning_effort" in params:
            raise ConfigError(
                "reasoning.effort: model_params.reasoning_effort says it too; keep one"
            )
        out["reasoning_effort"] = _checked(
            cls, "reasoning_effort", reasoning.effort, "effort", prefix
        )
    for name, value in reasoning.as_param().items():
        if name == "effort" and "reasoning_effort" in out:
            continue
        if name == "send_back" and prefix in SENDS_REASONING_BACK:
            continue
        why = (
            f"reasoning goes back as {cls.__module__.split('.')[0]} sends it"
            if name == "send_back"
            else f"agentloop does not map it onto {getattr(cls, '__name__', cls)}"
        )
        raise ConfigError(f"reasoning.{name}: {prefix}: not supported ({why}; value {value!r})")
    return out


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def reasoning_parts(message: Mapping[str, Any]) -> list[dict[str, str]]:
    """The reasoning of one stored assistant message (see ``agentloop.engine._wire``), in
    order: ``{"kind": "reasoning" | "thinking" | "redacted_thinking" | "summary" |
    "encrypted_reasoning", "text": ...}``.
    Read from the LangChain fields the stored form keeps (``additional_kwargs`` and
    content blocks), or from a LangChain message dump."""
    extra = message.get("langchain") if "role" in message else message
    extra = extra if isinstance(extra, Mapping) else {}
    parts: list[dict[str, str]] = []
    kwargs = extra.get("additional_kwargs") or {}
    for name in REASONING_FIELDS:  # vLLM's transition releases return both, alike
        value = kwargs.get(name) if isinstance(kwargs, Mapping) else None
        part = {"kind": "reasoning", "text": _text(value)}
        if value not in (None, "") and not isinstance(value, Mapping) and part not in parts:
            parts.append(part)
    content = extra.get("content")
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "thinking":
            parts.append({"kind": "thinking", "text": _text(block.get("thinking", ""))})
        elif kind == "redacted_thinking":
            parts.append({"kind": "redacted_thinking", "text": "(redacted by the provider)"})
        elif kind == "reasoning" and "reasoning" in block:  # LangChain's standard block
            parts.append({"kind": "reasoning", "text": _text(block.get("reasoning", ""))})
        elif kind == "reasoning":  # a Responses API reasoning item
            parts.extend(_reasoning_item(block))
    return parts


def _item_texts(value: Any) -> list[str]:
    items = value if isinstance(value, list) else []
    return [str(i["text"]) for i in items if isinstance(i, Mapping) and i.get("text")]


def _reasoning_item(block: Mapping[str, Any]) -> list[dict[str, str]]:
    """The readable parts of a Responses API reasoning item: its reasoning text (open
    models' ``content``), its ``summary``; or a note when it carries neither (OpenAI's
    own reasoning is encrypted, and summarised only when asked)."""
    parts = [{"kind": "reasoning", "text": t} for t in _item_texts(block.get("content"))]
    summary = _item_texts(block.get("summary"))
    if summary:
        parts.append({"kind": "summary", "text": "\n\n".join(summary)})
    return parts or [{"kind": "encrypted_reasoning", "text": "(not shown by the provider)"}]
