"""Reading messages in whatever shape the caller hands them over.

OpenAI chat dicts, LangChain message objects (duck typed: a string ``type`` plus
``content``) and anything with ``to_openai_messages()`` (an agentloop ``Trajectory``;
evals imports no more of agentloop than the reader of a call, ``agentloop._tool_calls``).
Nothing here raises on odd input.
"""

from __future__ import annotations

from typing import Any

from agentloop._content import content_text
from agentloop._tool_calls import field as get

__all__ = [
    "count_tool_uses",
    "final_answer_of",
    "get",
    "is_message",
    "is_trajectory",
    "role_of",
    "text_of",
]

# LangChain message ``type`` values mapped to OpenAI roles.
_ROLES = {"ai": "assistant", "human": "user", "tool": "tool", "system": "system"}
_ROLES |= {
    "AIMessageChunk": "assistant",
    "HumanMessageChunk": "user",
    "ToolMessageChunk": "tool",
    "SystemMessageChunk": "system",
}


def is_trajectory(obj: Any) -> bool:
    """True for an agentloop ``Trajectory`` (or anything shaped like one).

    >>> is_trajectory([{"role": "user", "content": "hi"}])
    False
    """
    return not isinstance(obj, (dict, list, str)) and callable(
        getattr(obj, "to_openai_messages", None)
    )


def is_message(obj: Any) -> bool:
    """True for a chat message (dict with a role/content/tool_calls, or LangChain).

    >>> is_message({"role": "tool", "content": "x"}), is_message({"name": "f", "args": {}})
    (True, False)
    """
    if isinstance(obj, dict):
        return (
            "role" in obj
            or "tool_calls" in obj
            or ("content" in obj and "name" not in obj and "function" not in obj)
        )
    return isinstance(getattr(obj, "type", None), str) and hasattr(obj, "content")


def role_of(msg: Any) -> str | None:
    """The OpenAI role of a message dict or LangChain message, if it has one.

    >>> from langchain_core.messages import AIMessage
    >>> role_of(AIMessage("hi")), role_of({"role": "tool"}), role_of({"type": "human"})
    ('assistant', 'tool', 'user')
    """
    if isinstance(msg, dict):
        role = msg.get("role")
        if role is None:
            kind = msg.get("type")
            role = _ROLES.get(kind) if isinstance(kind, str) else None
        return role if isinstance(role, str) else None
    kind = getattr(msg, "type", None)
    return _ROLES.get(kind, kind) if isinstance(kind, str) else None


text_of = content_text  # one reading of a content's text (agentloop._content)


def _messages_of(obj: Any) -> list[Any]:
    if is_trajectory(obj):
        return list(obj.to_openai_messages())
    if isinstance(obj, (list, tuple)):
        return list(obj)
    return []


def count_tool_uses(obj: Any) -> int:
    """The agent's own tool calls that succeeded (what the QA format gate counts).

    A Trajectory: its tool-call records with status ``ok``, so calls in the prompt
    history and unknown, malformed, failed or never-run calls do not count. A message
    list: tool messages after the last user message, except those whose ``status``
    is ``error`` (a LangChain ToolMessage's, or a dict's ``"status"`` key when present).

    >>> from langchain_core.messages import HumanMessage, ToolMessage
    >>> history = [{"role": "tool", "content": "old"}, HumanMessage("q")]
    >>> count_tool_uses(history + [ToolMessage("r", tool_call_id="1"), {"role": "tool"}])
    2
    >>> count_tool_uses(history + [ToolMessage("Error: x", tool_call_id="1", status="error")])
    0
    """
    if is_trajectory(obj):
        records = getattr(obj, "tool_calls", None)
        if callable(records):
            return sum(1 for record in records() if get(record, "status") == "ok")
    messages = _messages_of(obj)
    start = 0
    for i in range(len(messages) - 1, -1, -1):
        if role_of(messages[i]) == "user":
            start = i + 1
            break
    return sum(1 for m in messages[start:] if role_of(m) == "tool" and get(m, "status") != "error")


def final_answer_of(obj: Any) -> str | None:
    """A trajectory's ``final_answer``, or the text of a list's last assistant message.

    >>> final_answer_of([{"role": "assistant", "content": "Paris"}, {"role": "user"}])
    'Paris'
    """
    if is_trajectory(obj) and hasattr(obj, "final_answer"):
        answer = obj.final_answer
        return answer if isinstance(answer, str) else None
    for msg in reversed(_messages_of(obj)):
        if role_of(msg) == "assistant":
            return text_of(get(msg, "content"))
    return None
