"""``RawChatCompletions``: the openai SDK's chat completions, the request body posted as built.

``AsyncCompletions.create`` passes its parameters through the SDK's typed transformation
(``async_maybe_transform``), which walks the whole conversation on every request: about
half of a request's client CPU once the conversation holds a few rounds. For the JSON that
LangChain builds (plain dicts, lists, strings and numbers) that walk changes nothing but
the order of the top-level fields, and the chat parameters have no aliases to rename. So
this ``create`` builds the same body in the same order and hands it to the SDK's own
``post``: the same bytes, headers, timeout, retries, errors, ``with_raw_response`` and
streaming, only without the walk. ``tests/models/test_raw_completions.py`` compares the
bytes sent with those of the SDK's ``create``.
"""

from __future__ import annotations

import inspect
from typing import Any

from openai import AsyncStream, NotGiven, not_given
from openai._base_client import make_request_options
from openai.resources.chat import AsyncCompletions
from openai.types.chat import ChatCompletion, ChatCompletionChunk

__all__ = ["BODY_FIELDS", "RawChatCompletions"]

# The body fields of ``AsyncCompletions.create``, in the order it builds its body.
BODY_FIELDS: tuple[str, ...] = (
    "model", "stream", "service_tier", "messages", "audio", "frequency_penalty",
    "function_call", "functions", "logit_bias", "logprobs", "max_completion_tokens",
    "max_tokens", "metadata", "modalities", "moderation", "n", "parallel_tool_calls",
    "prediction", "presence_penalty", "prompt_cache_key", "prompt_cache_options",
    "prompt_cache_retention", "reasoning_effort", "response_format", "safety_identifier",
    "seed", "stop", "store", "stream_options", "temperature", "tool_choice", "tools",
    "top_logprobs", "top_p", "user", "verbosity", "web_search_options",
)  # fmt: skip
_KNOWN = frozenset(BODY_FIELDS)
# openai>=3 sends the API key only to requests that ask for it (``security``).
_AUTH: dict[str, Any] = (
    {"security": {"bearer_auth": True}}
    if "security" in inspect.signature(make_request_options).parameters
    else {}
)


class RawChatCompletions(AsyncCompletions):
    """``client.chat.completions`` whose ``create`` posts the parameters as they are."""

    async def create(  # type: ignore[override]
        self,
        *,
        extra_headers: dict[str, str] | None = None,
        extra_query: dict[str, object] | None = None,
        extra_body: dict[str, object] | None = None,
        timeout: float | NotGiven | None = not_given,
        **params: Any,
    ) -> Any:
        unknown = sorted(set(params) - _KNOWN)
        if unknown:
            raise TypeError(f"create() got unexpected keyword argument(s): {', '.join(unknown)}")
        if not isinstance(params.get("response_format", {}), dict):
            raise TypeError("response_format must be a dict here (a model class goes to .parse)")
        stream = bool(params.get("stream"))
        body = {name: params[name] for name in BODY_FIELDS if name in params}
        options = make_request_options(
            extra_headers=extra_headers,
            extra_query=extra_query,
            extra_body=extra_body,
            timeout=timeout,
            **_AUTH,
        )
        return await self._post(
            "/chat/completions",
            body=body,
            options=options,
            cast_to=ChatCompletion,
            stream=stream,
            stream_cls=AsyncStream[ChatCompletionChunk],
        )
