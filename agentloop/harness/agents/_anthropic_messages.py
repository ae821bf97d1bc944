"""The run's model behind Anthropic's messages protocol, for an agent in another process:
``POST /v1/messages``, streaming or not.

The request is read as the chat request it stands for and answered through the same path
(``_model_endpoint.ask``: the run's model, cache, recording, limits, cost). Read:
``system``, ``messages`` (text, ``tool_use`` and ``tool_result`` blocks), ``tools``
(``name``, ``description``, ``input_schema``), ``tool_choice`` (``auto``, ``any``,
``tool``, ``none``; ``disable_parallel_tool_use``). Sampling fields are the run's
(``max_tokens`` included): accepted and ignored. The answer is Anthropic's message:
``content`` with a ``text`` block and ``tool_use`` blocks, ``stop_reason`` ``tool_use`` or
``end_turn``, ``usage``; with ``stream: true``, the same as Anthropic's server-sent events
(the reply is computed whole, then sent). Errors are Anthropic's ``{"type": "error",
"error": {...}}``: 400 for a request agentloop cannot read, 403 when the limits refuse.
"""

from __future__ import annotations

import json
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

__all__ = ["MESSAGES"]

_IGNORED = (
    "model", "max_tokens", "temperature", "top_p", "top_k", "stop_sequences", "metadata",
    "thinking", "service_tier",
)  # fmt: skip


def _text(content: Any, where: str) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(b, dict) and b.get("type") == "text" for b in content
    ):
        return "".join(str(b.get("text") or "") for b in content)
    raise ValueError(f"{where}: text content only (a string or text blocks)")


def _blocks(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
        raise ValueError(f"{where}: content is a string or a list of blocks")
    return content


def _messages(body: dict[str, Any]) -> list[BaseMessage]:
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise ValueError("messages: a non-empty list of messages is required")
    messages: list[BaseMessage] = []
    if body.get("system"):
        messages.append(SystemMessage(_text(body["system"], "system")))
    for n, message in enumerate(raw):
        where = f"messages[{n}]"
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise ValueError(f"{where}: a message with role user or assistant")
        texts: list[str] = []
        calls: list[ToolCall] = []
        for m, block in enumerate(_blocks(message.get("content"), where)):
            kind = block.get("type")
            if kind == "text":
                texts.append(str(block.get("text") or ""))
            elif kind == "tool_use" and message["role"] == "assistant":
                calls.append(
                    ToolCall(name=str(block.get("name")), args=block.get("input") or {},
                             id=block.get("id"))
                )  # fmt: skip
            elif kind == "tool_result" and message["role"] == "user":
                result = _text(block.get("content") or "", f"{where}.content[{m}]")
                status = "error" if block.get("is_error") else "success"
                messages.append(
                    ToolMessage(result, tool_call_id=str(block.get("tool_use_id")), status=status)
                )
            elif kind in ("thinking", "redacted_thinking"):
                continue  # the model's own reasoning, not sent back to a chat model
            else:
                raise ValueError(f"{where}.content[{m}]: unsupported block type {kind!r}")
        if message["role"] == "assistant":
            messages.append(AIMessage("".join(texts), tool_calls=calls))
        elif texts:  # after the tool results it carries, if any
            messages.append(HumanMessage("".join(texts)))
    return messages


def _read(body: Any) -> tuple[list[BaseMessage], list[dict[str, Any]], dict[str, Any]]:
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object")
    unknown = sorted(set(body) - {"messages", "system", "tools", "tool_choice", "stream"}
                     - set(_IGNORED))  # fmt: skip
    if unknown:
        raise ValueError(f"unsupported field(s): {', '.join(unknown)}")
    tools = body.get("tools") or []
    if not isinstance(tools, list) or not all(
        isinstance(t, dict) and t.get("name") and t.get("type") in (None, "custom") for t in tools
    ):
        raise ValueError("tools: client tools only, {'name': ..., 'input_schema': {...}}")
    chat_tools = [
        {"type": "function", "function": {
            "name": t["name"], "description": t.get("description") or "",
            "parameters": t.get("input_schema") or {"type": "object", "properties": {}}}}
        for t in tools
    ]  # fmt: skip
    options: dict[str, Any] = {}
    choice = body.get("tool_choice")
    if choice is not None:
        if not isinstance(choice, dict) or choice.get("type") not in (
            "auto",
            "any",
            "tool",
            "none",
        ):
            raise ValueError("tool_choice: {'type': 'auto' | 'any' | 'tool' | 'none'}")
        kind = choice["type"]
        if kind == "tool":
            options["tool_choice"] = {"type": "function", "function": {"name": choice.get("name")}}
        elif kind != "auto":
            options["tool_choice"] = {"any": "required", "none": "none"}[kind]
        if choice.get("disable_parallel_tool_use"):
            options["parallel_tool_calls"] = False
    return _messages(body), chat_tools, options


def _error(status: int, message: str, kind: str) -> Any:
    from starlette.responses import JSONResponse

    body = {"type": "error", "error": {"type": kind, "message": message}}
    return JSONResponse(body, status_code=status)


def _response(reply: AIMessage, model: str, number: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if text := content_text(reply.content):
        content.append({"type": "text", "text": text})
    for call in reply.tool_calls:
        content.append({"type": "tool_use", "id": call["id"], "name": call["name"],
                        "input": call["args"]})  # fmt: skip
    usage = reply.usage_metadata
    return {
        "id": f"msg_agentloop_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage["input_tokens"] if usage else 0,
            "output_tokens": usage["output_tokens"] if usage else 0,
        },
    }


def _events(answer: dict[str, Any]) -> str:
    """``answer`` as Anthropic streams it: the message without content, each block
    started, its text or input as one delta, stopped, then the stop reason and usage."""
    usage = answer["usage"]
    start = {**answer, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 0}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(answer["content"]):
        if block["type"] == "text":
            empty, delta = {**block, "text": ""}, {"type": "text_delta", "text": block["text"]}
        else:
            empty = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            {"type": "content_block_start", "index": index, "content_block": empty},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {"type": "message_delta", "usage": {"output_tokens": usage["output_tokens"]},
         "delta": {"stop_reason": answer["stop_reason"], "stop_sequence": None}},
        {"type": "message_stop"},
    ]  # fmt: skip
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


MESSAGES = WireProtocol(
    "/v1/messages",
    _read,
    lambda reply, body, model, number: _response(reply, model, number),
    lambda answer, body: _events(answer),
    error=_error,
    refused="permission_error",
)
