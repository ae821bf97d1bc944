"""The run's model behind an OpenAI chat-completions endpoint, for an agent in another
process (``_external``): ``POST /v1/chat/completions``, streaming or not.

Each request is answered by the observer (``agentloop.engine.Observer``): sent to the
run's model source for this (sample, epoch) with its cache, retries and recording, kept as
a step of the trajectory, and held to the round and token limits (``ask``, which the other
protocols, ``_responses_api`` and ``_anthropic_messages``, answer through too). The
request's tools are bound by name to agentloop's own tool objects, so the request is the
native loop's. The answer is OpenAI's response (``choices[0].message`` with
``tool_calls``, ``finish_reason``, ``usage`` when the model reports it); with
``stream: true``, the same reply as server-sent ``chat.completion.chunk`` events ending
``data: [DONE]`` (the reply is computed whole, then sent). A request the limits refuse, or
one sent after the episode ended, gets HTTP 403 with ``{"error": {"message": why, "type":
"agentloop_limit"}}``; a request agentloop cannot read gets 400. The token check is the
server's (``_tool_server``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, convert_to_messages

from agentloop.engine import AgentStopped, Observer, message_to_openai

__all__ = [
    "CHAT_COMPLETIONS",
    "WireProtocol",
    "ask",
    "error_response",
    "model_name",
    "protocol_route",
]

# What a request may carry beyond messages and tools: sampling is the run's (config), so
# these are read, and the rest is refused rather than silently ignored.
_PASSED = ("tool_choice", "parallel_tool_calls")
_IGNORED = ("model", "temperature", "top_p", "max_tokens", "max_completion_tokens", "seed", "n")


def error_response(status: int, message: str, kind: str) -> Any:
    """OpenAI's error body."""
    from starlette.responses import JSONResponse

    return JSONResponse({"error": {"message": message, "type": kind}}, status_code=status)


def model_name(observer: Observer) -> str:
    """The name an answer gives its model."""
    return str(getattr(observer.model, "model_name", None) or "agentloop")


async def ask(
    observer: Observer,
    by_name: dict[str, Any],
    messages: list[BaseMessage],
    tools: list[dict[str, Any]],
    options: dict[str, Any],
) -> AIMessage:
    """The run's model's reply to one request (OpenAI chat tools and options), a step of
    the record; ``AgentStopped`` when the limits refuse it."""
    chosen = [by_name.get(t["function"].get("name"), t) for t in tools]
    bound = observer.bind(chosen, options) if chosen else observer.model
    return await observer.call_model(bound, messages)


def _read(body: Any) -> tuple[list[Any], list[dict[str, Any]], dict[str, Any]]:
    """The request's messages, tools and the options passed on; ValueError says why not."""
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object")
    if body.get("n", 1) != 1:
        raise ValueError("n: one choice per request")
    options = body.get("stream_options")
    if options is not None and (not isinstance(options, dict) or set(options) - {"include_usage"}):
        raise ValueError("stream_options: only {'include_usage': bool}")
    known = {"messages", "tools", "stream", "stream_options", *_PASSED, *_IGNORED}
    unknown = sorted(set(body) - known)
    if unknown:
        raise ValueError(f"unsupported field(s): {', '.join(unknown)}")
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise ValueError("messages: a non-empty list of chat messages is required")
    if not all(isinstance(m, dict) for m in raw):
        raise ValueError("messages: each message must be a JSON object")
    # OpenAI lets an assistant message with calls leave its content out or null
    messages = convert_to_messages([{**m, "content": m.get("content") or ""} for m in raw])
    tools = body.get("tools") or []
    if not isinstance(tools, list) or not all(
        isinstance(t, dict) and isinstance(t.get("function"), dict) for t in tools
    ):
        raise ValueError("tools: a list of {'type': 'function', 'function': {...}}")
    return list(messages), tools, {k: body[k] for k in _PASSED if k in body}


def _usage(reply: AIMessage) -> dict[str, int] | None:
    if (usage := reply.usage_metadata) is None:
        return None
    return {
        "prompt_tokens": usage["input_tokens"],
        "completion_tokens": usage["output_tokens"],
        "total_tokens": usage["total_tokens"],
    }


def _response(reply: AIMessage, model: str, number: int) -> dict[str, Any]:
    message = message_to_openai(reply)
    message["content"] = message["content"] or (None if message.get("tool_calls") else "")
    answer: dict[str, Any] = {
        "id": f"chatcmpl-agentloop-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
    }
    if (usage := _usage(reply)) is not None:
        answer["usage"] = usage
    return answer


def _chunks(answer: dict[str, Any], include_usage: bool) -> str:
    """``answer`` as OpenAI streams it: the role, the text, each call whole, the finish
    reason, the usage when asked, ``[DONE]``."""
    (choice,) = answer["choices"]
    message = choice["message"]
    head = {k: answer[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    events = [chunk({"role": "assistant", "content": "" if message["content"] else None})]
    if message["content"]:
        events.append(chunk({"content": message["content"]}))
    for index, call in enumerate(message.get("tool_calls") or []):
        events.append(chunk({"tool_calls": [{"index": index, **call}]}))
    events.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        events.append({**head, "choices": [], "usage": answer.get("usage")})
    return "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"


@dataclass(frozen=True)
class WireProtocol:
    """One way to ask the model at the endpoint: where, how a request is read, how the
    reply is answered (whole, or as the events of a stream) and how an error looks."""

    path: str
    read: Callable[[Any], tuple[list[BaseMessage], list[dict[str, Any]], dict[str, Any]]]
    answer: Callable[[AIMessage, dict[str, Any], str, int], dict[str, Any]]
    """(reply, request body, model name, step number) -> the answer."""
    events: Callable[[dict[str, Any], dict[str, Any]], str]
    """(answer, request body) -> the stream's server-sent events."""
    error: Callable[[int, str, str], Any] = error_response
    refused: str = "agentloop_limit"
    """The error type of a request the limits refuse (HTTP 403)."""


def protocol_route(protocol: WireProtocol, observer: Observer, tools: Sequence[Any]) -> Any:
    """The Starlette route answering ``protocol`` with ``observer``'s model; ``tools`` are
    the objects a request's tools are bound to, by name."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    by_name = {tool.name: tool for tool in tools}

    async def create(request: Request) -> Any:
        try:
            body = await request.json()
            messages, asked, options = protocol.read(body)
        except ValueError as exc:  # JSON errors are ValueErrors too
            return protocol.error(400, f"POST {protocol.path}: {exc}", "invalid_request_error")
        try:
            reply = await ask(observer, by_name, messages, asked, options)
        except AgentStopped as exc:
            return protocol.error(403, str(exc), protocol.refused)
        answer = protocol.answer(reply, body, model_name(observer), len(observer.steps))
        if body.get("stream"):
            return Response(protocol.events(answer, body), media_type="text/event-stream")
        return JSONResponse(answer)

    return Route(protocol.path, create, methods=["POST"])


CHAT_COMPLETIONS = WireProtocol(
    "/v1/chat/completions",
    _read,
    lambda reply, body, model, number: _response(reply, model, number),
    lambda answer, body: _chunks(
        answer, bool((body.get("stream_options") or {}).get("include_usage"))
    ),
)
