"""Trajectory messages as stored: OpenAI chat dicts, plus what LangChain needs back.

A stored message is exactly :func:`message_to_openai` of it (``role``, ``content``,
``tool_calls`` with JSON-string ``arguments``, ``tool_call_id``), plus, only when
needed, a ``"langchain"`` dict holding the LangChain fields that form cannot carry,
under their LangChain names and only where they differ from the defaults: ``id``,
``name``, ``content`` (when not plain text), ``additional_kwargs``,
``response_metadata``, ``usage_metadata``, ``invalid_tool_calls`` (the last calls of
``tool_calls``), a tool message's ``status`` and ``artifact``. Message classes other
than system, human, AI and tool messages keep their whole LangChain dump there.

Reading rebuilds the LangChain dump and leaves validation to pydantic, as before, so
trajectories written before this format (plain LangChain dumps, ``type`` instead of
``role``) and OpenAI dicts from elsewhere read the same way.
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

from agentloop._content import content_text
from agentloop._tool_calls import NO_NAME, call_fields, decode_arguments, field, invalid_call

__all__ = ["EXTRA_KEY", "from_wire", "is_wire", "message_text", "message_to_openai", "to_wire"]

EXTRA_KEY = "langchain"
_ROLE_TYPES = {
    "system": "system",
    "developer": "system",
    "user": "human",
    "assistant": "ai",
    "tool": "tool",
}
_PLAIN = (SystemMessage, HumanMessage, AIMessage, ToolMessage)


message_text = content_text  # one reading of a content's text (agentloop._content)


def message_to_openai(message: BaseMessage) -> dict[str, Any]:
    """One LangChain message as an OpenAI chat-format dict.

    Unlike ``convert_to_openai_messages`` this keeps calls the provider reported
    as malformed (``invalid_tool_calls``), with their raw argument text, so that
    every tool message still answers a call in the assistant message.
    """
    if isinstance(message, AIMessage):
        calls = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["args"])},
            }
            for c in message.tool_calls
        ]
        calls += [
            {
                "id": c.get("id"),
                "type": "function",
                "function": {"name": c.get("name") or "", "arguments": c.get("args") or ""},
            }
            for c in message.invalid_tool_calls
        ]
        out: dict[str, Any] = {"role": "assistant", "content": message_text(message.content)}
        if calls:
            out["tool_calls"] = calls
        return out
    if isinstance(message, ToolMessage):
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id,
            "content": message_text(message.content),
        }
    role = {"human": "user", "system": "system", "ai": "assistant"}.get(message.type, message.type)
    return {"role": role, "content": message_text(message.content)}


def to_wire(message: BaseMessage) -> dict[str, Any]:
    """The stored form of one message: its OpenAI dict, plus the non-default rest."""
    out = message_to_openai(message)
    if type(message) not in _PLAIN:  # chunks, chat and function messages: rare
        out[EXTRA_KEY] = message.model_dump()
        return out
    extra: dict[str, Any] = {}
    if not isinstance(message.content, str):
        extra["content"] = message.content
    if message.id is not None:
        extra["id"] = message.id
    if message.name is not None:
        extra["name"] = message.name
    if message.additional_kwargs:
        extra["additional_kwargs"] = message.additional_kwargs
    if message.response_metadata:
        extra["response_metadata"] = message.response_metadata
    if isinstance(message, AIMessage):
        # Valid calls need nothing more: LangChain keeps exactly name, args, id, type.
        if message.usage_metadata is not None:
            extra["usage_metadata"] = message.usage_metadata
        if message.invalid_tool_calls:
            extra["invalid_tool_calls"] = message.invalid_tool_calls
    elif isinstance(message, ToolMessage):
        if message.status != "success":
            extra["status"] = message.status
        if message.artifact is not None:
            extra["artifact"] = message.artifact
    if extra:
        out[EXTRA_KEY] = extra
    return out


def is_wire(item: Any) -> bool:
    """True for a stored (OpenAI-form) message; LangChain dumps carry ``type`` instead."""
    return isinstance(item, dict) and "type" not in item and "role" in item


def from_wire(item: dict[str, Any]) -> dict[str, Any]:
    """The LangChain dump of a stored message, for pydantic to validate."""
    extra = item.get(EXTRA_KEY) or {}
    if "type" in extra:  # a whole dump (see to_wire)
        return dict(extra)
    role = item.get("role")
    if role not in _ROLE_TYPES:
        raise ValueError(f"unknown message role {role!r}")
    content = item.get("content")
    data: dict[str, Any] = {
        **extra,
        "type": _ROLE_TYPES[role],
        "content": extra.get("content", "" if content is None else content),
    }
    if role == "assistant":
        invalid = list(extra.get("invalid_tool_calls") or [])
        calls = list(item.get("tool_calls") or [])
        valid = calls[: len(calls) - len(invalid)]
        data["tool_calls"] = []
        for call in valid:
            # Read by the one reader; a stored call keeps its name as written (LangChain
            # allows ""), and one written elsewhere may be malformed.
            name, raw = call_fields(call) or (None, None)
            args, problem = decode_arguments(raw)
            if problem is None and not isinstance(name, str):
                problem = NO_NAME
            if problem is not None:
                invalid.append(invalid_call(call, problem))
                continue
            data["tool_calls"].append(
                {"name": name, "args": args, "id": field(call, "id"), "type": "tool_call"}
            )
        data["invalid_tool_calls"] = invalid
    elif role == "tool":
        data["tool_call_id"] = item.get("tool_call_id")
    return data
