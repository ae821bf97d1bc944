"""OpenAI's Responses API for ``openai:`` models: ``model_options: {api: responses}``.

``openai:`` talks to ``POST /chat/completions`` unless the option says ``responses``; then
the same ``CompatChatOpenAI`` (langchain-openai's ``use_responses_api``) posts to
``POST /responses``. Which API a config uses is said once, in the config: never chosen by
the model's name (langchain-openai would route ``*codex*`` and ``*-pro`` models to the
Responses API on its own).

The requests are stateless: ``store: false`` (nothing of an evaluation is kept at
OpenAI, and a resumed or replayed conversation never depends on what the server still
holds), with ``include: ["reasoning.encrypted_content"]`` so that each reply's reasoning
items come with their encrypted content and can go back with the tool results that follow
(a reasoning item sent back by id alone is refused when nothing is stored). The replies
are kept in langchain-openai's ``responses/v1`` form: reasoning items, function calls and
text are the reply's content blocks, in the server's order, which is how they go back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.outputs import ChatResult
from langchain_core.utils._gateway import GATEWAY_METADATA_RESPONSE_KEY
from langchain_openai.chat_models.base import _construct_lc_result_from_responses_api
from openai.types.responses import Response

from agentloop._tool_calls import NOT_OBJECT, read_call
from agentloop.errors import ModelSpecError

__all__ = [
    "APIS",
    "check_api",
    "check_responses_params",
    "has_function_results",
    "read_response",
    "responses_arguments",
    "without_reasoning_items",
]

APIS = ("chat_completions", "responses")
"""The values of the ``api`` model option (``chat_completions`` by default)."""

# Request fixes for chat-completions servers (see ``CompatChatOpenAI``), with the value
# that leaves a request alone: the Responses API has no use for them.
_CHAT_ONLY_OPTIONS: dict[str, Any] = {
    "empty_content_for_tool_calls": False,
    "tool_results_as_user": False,
    "required_as_named": False,
    "max_tokens_field": "max_completion_tokens",
}
# Sampling params the Responses API does not take (``responses.create`` has no such
# argument; langchain-openai drops ``stop`` without a word).
_NOT_TAKEN = ("stop", "seed", "presence_penalty", "frequency_penalty", "logit_bias", "logprobs")


def check_api(options: Mapping[str, Any]) -> str:
    """The ``api`` option's value, checked, with the options that go with it."""
    api = options.get("api", "chat_completions")
    if api not in APIS:
        raise ModelSpecError(f"model option api must be one of {', '.join(APIS)}, not {api!r}")
    if api == "responses":
        for name, neutral in _CHAT_ONLY_OPTIONS.items():
            if options.get(name, neutral) != neutral:
                raise ModelSpecError(
                    f"model option {name}: a chat completions setting, not used with api: responses"
                )
    return str(api)


def check_responses_params(params: Mapping[str, Any]) -> None:
    """Raise on a sampling param the Responses API does not take."""
    for name in _NOT_TAKEN:
        if name in params:
            raise ModelSpecError(
                f"model_params.{name}: OpenAI's Responses API does not take it "
                f"(model_options.api: responses)"
            )


def responses_arguments(api: str) -> dict[str, Any]:
    """``ChatOpenAI`` arguments for ``api``: the API said explicitly, and for the Responses
    API stateless requests that carry reasoning back (see the module doc)."""
    if api != "responses":
        return {"use_responses_api": False}
    return {
        "use_responses_api": True,
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "output_version": "responses/v1",
    }


def has_function_results(payload: Mapping[str, Any]) -> bool:
    """True when a Responses request's input holds a tool result."""
    items = payload.get("input")
    return isinstance(items, list) and any(
        isinstance(i, Mapping) and i.get("type") == "function_call_output" for i in items
    )


def without_reasoning_items(payload: dict[str, Any]) -> None:
    """Leave the reasoning items out of a Responses request's input (``send_back: false``)."""
    items = payload.get("input")
    if isinstance(items, list):
        payload["input"] = [
            i for i in items if not (isinstance(i, Mapping) and i.get("type") == "reasoning")
        ]


_UNREADABLE = "\x00"  # no JSON reader accepts it: langchain-openai makes the call invalid


def read_response(
    response: Response, generation_info: dict[str, Any], output_version: str | None
) -> ChatResult:
    """langchain-openai's reading of a response (``ChatOpenAI``'s own), except for function
    calls whose arguments are JSON but not an object (``[1, 2]``, ``null``): LangChain
    cannot build a reply holding them and fails the whole request; here, read by the one
    reader of a call, they stay the model's malformed calls, answered like any other, and
    go back as they were made."""
    unusable: dict[str, tuple[str, str]] = {}
    for item in response.output:
        if item.type == "function_call":
            problem = read_call({"name": item.name, "arguments": item.arguments}).problem
            if problem == NOT_OBJECT:
                unusable[item.call_id] = (item.arguments, problem)
                item.arguments = _UNREADABLE
    gateway = generation_info.pop(GATEWAY_METADATA_RESPONSE_KEY, None)
    result = _construct_lc_result_from_responses_api(
        response, metadata=generation_info, output_version=output_version
    )
    for generation in result.generations:
        if gateway is not None:  # where langchain-openai puts it (not response_metadata)
            generation.generation_info = {
                **(generation.generation_info or {}),
                GATEWAY_METADATA_RESPONSE_KEY: gateway,
            }
        message: Any = generation.message
        for call in getattr(message, "invalid_tool_calls", []):
            if call.get("id") in unusable:
                call["args"], call["error"] = unusable[call["id"]]
        for block in message.content if isinstance(message.content, list) else []:
            if isinstance(block, dict) and block.get("call_id") in unusable:
                block["arguments"] = unusable[block["call_id"]][0]
    return result
