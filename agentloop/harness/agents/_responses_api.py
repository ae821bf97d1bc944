"""The run's model behind OpenAI's Responses API, for an agent in another process:
``POST /v1/responses``, stateless, streaming or not.

The request is read as the chat request it stands for and answered through the same path
(``_model_endpoint.ask``: the run's model, cache, recording, limits, cost). Read:
``input`` (a string, or items: messages with text content, ``function_call`` and
``function_call_output``; ``reasoning`` items are skipped), ``instructions`` (a system
message first), ``tools`` (function tools only), ``tool_choice``, ``parallel_tool_calls``.
Sampling fields are the run's: accepted and ignored. The answer's ``output`` is a
``message`` item with the text (when there is text) and one ``function_call`` item per
call, with ``usage``; with ``stream: true``, the same as the Responses API's server-sent
events (the reply is computed whole, then sent). ``previous_response_id`` and
``conversation`` are refused (400): send the whole input each time (``store=false``).
"""

from __future__ import annotations

import json
import time
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.tool import ToolCall

from agentloop._content import content_text
from agentloop.harness.agents._model_endpoint import WireProtocol

__all__ = ["RESPONSES"]

_IGNORED = (
    "model", "temperature", "top_p", "max_output_tokens", "store", "metadata", "truncation",
    "user", "include", "text", "reasoning", "service_tier", "prompt_cache_key",
    "safety_identifier", "top_logprobs", "max_tool_calls", "background", "prompt",
)  # fmt: skip
_REFUSED = {
    "previous_response_id": "responses are not stored; send the whole input (store=false)",
    "conversation": "conversations are not stored; send the whole input (store=false)",
}
_TEXT_PARTS = ("input_text", "output_text", "text")
_ROLES = {"user": HumanMessage, "system": SystemMessage, "developer": SystemMessage}


def _text(content: Any, where: str) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") in _TEXT_PARTS for p in content
    ):
        return "".join(str(p.get("text") or "") for p in content)
    raise ValueError(f"{where}: text content only (a string, or input_text/output_text parts)")


def _messages(body: dict[str, Any]) -> list[BaseMessage]:
    raw = body.get("input")
    items = [{"role": "user", "content": raw}] if isinstance(raw, str) else raw
    if not isinstance(items, list) or not items:
        raise ValueError("input: a string or a non-empty list of items is required")
    messages: list[BaseMessage] = []
    if body.get("instructions"):
        messages.append(SystemMessage(_text(body["instructions"], "instructions")))
    for n, item in enumerate(items):
        where = f"input[{n}]"
        if not isinstance(item, dict):
            raise ValueError(f"{where}: each item must be a JSON object")
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role")
            text = _text(item.get("content"), where)
            if role == "assistant":
                messages.append(AIMessage(text))
            elif role in _ROLES:
                messages.append(_ROLES[role](text))
            else:
                raise ValueError(f"{where}: role must be user, system, developer or assistant")
        elif kind == "function_call":
            try:
                args = json.loads(item.get("arguments") or "{}")
            except ValueError:
                args = None
            if not isinstance(args, dict):
                raise ValueError(f"{where}: arguments must be a JSON object's text")
            call = ToolCall(name=str(item.get("name")), args=args, id=item.get("call_id"))
            last = messages[-1] if messages else None
            # the calls of one reply follow its message (if any): one assistant message
            if isinstance(last, AIMessage):
                last.tool_calls = [*last.tool_calls, call]
            else:
                messages.append(AIMessage("", tool_calls=[call]))
        elif kind == "function_call_output":
            output = _text(item.get("output"), where)
            messages.append(ToolMessage(output, tool_call_id=str(item.get("call_id"))))
        elif kind == "reasoning":
            continue  # the model's own summary, not sent back to a chat model
        else:
            raise ValueError(f"{where}: unsupported item type {kind!r}")
    return messages


def _read(body: Any) -> tuple[list[BaseMessage], list[dict[str, Any]], dict[str, Any]]:
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object")
    for field, why in _REFUSED.items():
        if body.get(field):
            raise ValueError(f"{field}: {why}")
    known = {"input", "instructions", "tools", "tool_choice", "parallel_tool_calls", "stream"}
    unknown = sorted(set(body) - known - set(_REFUSED) - set(_IGNORED))
    if unknown:
        raise ValueError(f"unsupported field(s): {', '.join(unknown)}")
    tools = body.get("tools") or []
    if not isinstance(tools, list) or not all(
        isinstance(t, dict) and t.get("type") == "function" and t.get("name") for t in tools
    ):
        raise ValueError("tools: function tools only, {'type': 'function', 'name': ...}")
    chat_tools = [
        {"type": "function", "function": {k: t[k] for k in ("name", "description", "parameters")
                                          if t.get(k) is not None}}
        for t in tools
    ]  # fmt: skip
    options: dict[str, Any] = {}
    if "parallel_tool_calls" in body:
        options["parallel_tool_calls"] = body["parallel_tool_calls"]
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "function":
        options["tool_choice"] = {"type": "function", "function": {"name": choice.get("name")}}
    elif choice is not None:
        if choice not in ("auto", "none", "required"):
            raise ValueError("tool_choice: auto, none, required or a function")
        options["tool_choice"] = choice
    return _messages(body), chat_tools, options


def _usage(reply: AIMessage) -> dict[str, Any] | None:
    if (usage := reply.usage_metadata) is None:
        return None
    cached = (usage.get("input_token_details") or {}).get("cache_read") or 0
    reasoning = (usage.get("output_token_details") or {}).get("reasoning") or 0
    return {
        "input_tokens": usage["input_tokens"],
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": usage["output_tokens"],
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": usage["total_tokens"],
    }


def _response(reply: AIMessage, body: dict[str, Any], model: str, number: int) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    text = content_text(reply.content)
    if text:
        output.append({
            "type": "message", "id": f"msg_agentloop_{number}", "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        })  # fmt: skip
    for call in reply.tool_calls:
        output.append({
            "type": "function_call", "id": f"fc_{call['id']}", "call_id": call["id"],
            "name": call["name"], "arguments": json.dumps(call["args"]), "status": "completed",
        })  # fmt: skip
    return {
        "id": f"resp_agentloop_{number}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "model": model,
        "output": output,
        "instructions": body.get("instructions"),
        "tools": body.get("tools") or [],
        "tool_choice": body.get("tool_choice", "auto"),
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "usage": _usage(reply),
        "error": None,
        "incomplete_details": None,
        "metadata": {},
        "text": {"format": {"type": "text"}},
    }


def _sse(kind: str, number: int, data: dict[str, Any]) -> str:
    return (
        f"event: {kind}\ndata: {json.dumps({'type': kind, 'sequence_number': number, **data})}\n\n"
    )


def _events(answer: dict[str, Any]) -> str:
    """``answer`` as the Responses API streams it: created, each output item added, its
    text or arguments as one delta, done, then completed with the whole response."""
    events: list[tuple[str, dict[str, Any]]] = []
    begun = {**answer, "status": "in_progress", "output": [], "usage": None}
    events += [
        ("response.created", {"response": begun}),
        ("response.in_progress", {"response": begun}),
    ]
    for at, item in enumerate(answer["output"]):
        where = {"item_id": item["id"], "output_index": at}
        if item["type"] == "message":
            part = item["content"][0]
            empty = {**item, "status": "in_progress", "content": []}
            events += [
                ("response.output_item.added", {"output_index": at, "item": empty}),
                ("response.content_part.added",
                 {**where, "content_index": 0, "part": {**part, "text": ""}}),
                ("response.output_text.delta",
                 {**where, "content_index": 0, "delta": part["text"], "logprobs": []}),
                ("response.output_text.done",
                 {**where, "content_index": 0, "text": part["text"], "logprobs": []}),
                ("response.content_part.done", {**where, "content_index": 0, "part": part}),
            ]  # fmt: skip
        else:
            empty = {**item, "status": "in_progress", "arguments": ""}
            events += [
                ("response.output_item.added", {"output_index": at, "item": empty}),
                ("response.function_call_arguments.delta", {**where, "delta": item["arguments"]}),
                ("response.function_call_arguments.done",
                 {**where, "name": item["name"], "arguments": item["arguments"]}),
            ]  # fmt: skip
        events.append(("response.output_item.done", {"output_index": at, "item": item}))
    events.append(("response.completed", {"response": answer}))
    return "".join(_sse(kind, n, data) for n, (kind, data) in enumerate(events))


RESPONSES = WireProtocol(
    "/v1/responses",
    _read,
    _response,
    lambda answer, body: _events(answer),
)
