"""A row's messages as they are sent: the recorded generation found and stripped, and
what LangChain cannot read (``content: null``, calls without an id) filled in."""

from __future__ import annotations

from typing import Any

__all__ = ["prompt_messages", "recorded_generation_start", "wire_messages"]


def recorded_generation_start(messages: list[dict[str, Any]]) -> int:
    """Index where the recorded generation (trailing assistant/tool messages) begins."""
    start = len(messages)
    while start > 0 and messages[start - 1].get("role") in ("assistant", "tool"):
        start -= 1
    return start


def prompt_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages to send in generate mode (recorded generation stripped).

    ``content: null`` becomes ``""``: some OpenAI-compatible servers reject null.
    """
    return wire_messages(messages[: recorded_generation_start(messages)])


def wire_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Row messages as LangChain can read them: ``content: null`` becomes ``""``, and a
    tool call without an ``id`` or ``arguments`` (both optional in a row) gets a
    deterministic ``call_<message>_<call>`` id and ``"{}"``."""
    out = []
    for index, message in enumerate(messages):
        if message.get("content") is None:
            message = {**message, "content": ""}
        calls = message.get("tool_calls")
        if calls and any(not c.get("id") or "arguments" not in c["function"] for c in calls):
            message = {
                **message,
                "tool_calls": [_wire_call(c, index, i) for i, c in enumerate(calls)],
            }
        out.append(message)
    return out


def _wire_call(call: dict[str, Any], message: int, index: int) -> dict[str, Any]:
    function = call["function"]
    if "arguments" not in function:
        function = {**function, "arguments": "{}"}
    return {**call, "id": call.get("id") or f"call_{message}_{index}", "function": function}
