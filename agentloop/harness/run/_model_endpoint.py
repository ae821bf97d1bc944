"""The run's model behind an OpenAI chat-completions endpoint, for an agent in another
process (``_command_agent``): ``POST /v1/chat/completions``, non-streaming.

Each request is answered by the observer (``agentloop.engine.Observer``): sent to the
run's model source for this (sample, epoch) with its cache, retries and recording, kept as
a step of the trajectory, and held to the round and token limits. The request's tools are
bound by name to agentloop's own tool objects, so the request is the native loop's. The
answer is OpenAI's response (``choices[0].message`` with ``tool_calls``, ``finish_reason``,
``usage`` when the model reports it). A request the limits refuse, or one sent after the
episode ended, gets HTTP 403 with ``{"error": {"message": why, "type": "agentloop_limit"}}``;
a request agentloop cannot read gets 400. The token check is the server's (``_tool_server``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, convert_to_messages

from agentloop.engine import AgentStopped, Observer, message_to_openai

__all__ = ["chat_completions_route"]

# What a request may carry beyond messages and tools: sampling is the run's (config), so
# these are read, and the rest is refused rather than silently ignored.
_PASSED = ("tool_choice", "parallel_tool_calls")
_IGNORED = ("model", "temperature", "top_p", "max_tokens", "max_completion_tokens", "seed", "n")


def _error(status: int, message: str, kind: str) -> Any:
    from starlette.responses import JSONResponse

    return JSONResponse({"error": {"message": message, "type": kind}}, status_code=status)


def _read(body: Any) -> tuple[list[Any], list[dict[str, Any]], dict[str, Any]]:
    """The request's messages, tools and the options passed on; ValueError says why not."""
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object")
    if body.get("stream"):
        raise ValueError("stream: streaming is not supported; send stream=false")
    if body.get("n", 1) != 1:
        raise ValueError("n: one choice per request")
    unknown = sorted(set(body) - {"messages", "tools", "stream", *_PASSED, *_IGNORED})
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
    if (usage := reply.usage_metadata) is not None:
        answer["usage"] = {
            "prompt_tokens": usage["input_tokens"],
            "completion_tokens": usage["output_tokens"],
            "total_tokens": usage["total_tokens"],
        }
    return answer


def chat_completions_route(observer: Observer, tools: Sequence[Any]) -> Any:
    """The Starlette route answering ``POST /v1/chat/completions`` with ``observer``'s
    model; ``tools`` are the objects a request's tools are bound to, by name."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    by_name = {tool.name: tool for tool in tools}

    async def complete(request: Request) -> Any:
        try:
            messages, asked, options = _read(await request.json())
        except ValueError as exc:  # JSON errors are ValueErrors too
            return _error(400, f"POST /v1/chat/completions: {exc}", "invalid_request_error")
        chosen = [by_name.get(t["function"].get("name"), t) for t in asked]
        try:
            bound = observer.bind(chosen, options) if chosen else observer.model
            reply = await observer.call_model(bound, messages)
        except AgentStopped as exc:
            return _error(403, str(exc), "agentloop_limit")
        name = getattr(observer.model, "model_name", None) or "agentloop"
        return JSONResponse(_response(reply, str(name), len(observer.steps)))

    return Route("/v1/chat/completions", complete, methods=["POST"])
