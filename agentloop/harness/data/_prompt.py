"""The prompt a sample sends: a row's messages up to its recorded generation, as LangChain
can read them, with the config's ``system_prompt`` first.

A row's trailing assistant and tool messages are its recorded generation: generate mode
strips them (``prompt_messages``), score mode reads them as the model's replies
(``agentloop.harness.run._scoring``). Either way ``content: null`` becomes ``""`` and a call
without an id gets one (``wire_messages``).

The ``system_prompt`` (read by ``agentloop.harness.config._prompt_files``) goes to rows
whose messages have no ``system`` or ``developer`` message: a row that brings its own
instructions keeps them.
"""

from __future__ import annotations

import json
from typing import Any

from agentloop._tool_calls import call_fields, decode_arguments, field

__all__ = [
    "prompt_messages",
    "recorded_generation_start",
    "wire_messages",
    "with_system_prompt",
]

_INSTRUCTION_ROLES = frozenset({"system", "developer"})


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
    """Row messages as LangChain can read them: ``content: null`` becomes ``""``, and each
    tool call, read by the one reader of a call (any accepted shape; ``id`` and
    ``arguments`` are optional in a row), an OpenAI call with JSON arguments and an id
    (``call_<message>_<call>`` when it has none). Arguments that are not usable stay as
    written, for the reader of the reply to mark."""
    out = []
    for index, message in enumerate(messages):
        if message.get("content") is None:
            message = {**message, "content": ""}
        calls = message.get("tool_calls")
        if calls:
            message = {
                **message,
                "tool_calls": [_wire_call(c, index, i) for i, c in enumerate(calls)],
            }
        out.append(message)
    return out


def _wire_call(call: dict[str, Any], message: int, index: int) -> dict[str, Any]:
    name, raw = call_fields(call) or (None, None)
    args, problem = decode_arguments(raw)
    function = call.get("function") if isinstance(call.get("function"), dict) else None
    return {
        **(call if function is not None else {}),
        "type": "function",
        "id": field(call, "id") or f"call_{message}_{index}",
        "function": {
            **(function or {}),
            "name": name,
            "arguments": raw if problem is not None else json.dumps(args, ensure_ascii=False),
        },
    }


def with_system_prompt(messages: list[dict[str, Any]], prompt: str | None) -> list[dict[str, Any]]:
    """``messages`` with the prompt first, unless they carry a system or developer message."""
    if prompt is None or any(m.get("role") in _INSTRUCTION_ROLES for m in messages):
        return messages
    return [{"role": "system", "content": prompt}, *messages]
