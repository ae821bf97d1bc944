"""Recovering tool calls that a server left in the text of a reply.

Hermes-style models emit ``<tool_call>{...}</tool_call>`` blocks; an OpenAI-compatible
server without a matching parser passes them through as plain content. Given to
``run_agent(parse_content_tool_calls=...)``, :func:`parse_content_tool_calls` turns them
into real calls (the engine marks them ``recovered=True`` in the trajectory).

Accepted block bodies (one object, or a JSON list of them)::

    {"name": "f", "arguments": {...}}            # arguments may be a JSON string
    {"name": "f", "parameters": {...}}
    {"type": "function", "function": {"name": "f", "arguments": "..."}}

A block that does not parse is skipped: recovery is best effort and never invents a call.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["format_content_tool_calls", "parse_content_tool_calls"]

# Non-greedy body; an unterminated last block (the server stopped at max_tokens) is
# still tried, since a complete JSON object inside it is as good as a closed block.
_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|(?=<tool_call>)|\Z)", re.DOTALL)


def _as_call(item: Any) -> tuple[str, dict[str, Any]] | None:
    if not isinstance(item, dict):
        return None
    if item.get("type") == "function" and isinstance(item.get("function"), dict):
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or not name:
        return None
    args: Any = item.get("arguments", item.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return None
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return None
    return name, args


def parse_content_tool_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The ``(name, arguments)`` of every well-formed ``<tool_call>`` block, in order.

    >>> parse_content_tool_calls('<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>')
    [('f', {'x': 1})]
    >>> parse_content_tool_calls("no calls here")
    []
    """
    calls: list[tuple[str, dict[str, Any]]] = []
    for match in _BLOCK.finditer(text):
        body = match.group(1).strip()
        # Some models wrap the JSON in a code fence inside the block.
        body = re.sub(r"^```(?:json)?\s*|\s*```$", "", body)
        try:
            data = json.loads(body)
        except ValueError:
            continue
        items = data if isinstance(data, list) else [data]
        for item in items:
            call = _as_call(item)
            if call is not None:
                calls.append(call)
    return calls


def format_content_tool_calls(calls: list[tuple[str, dict[str, Any]]]) -> str:
    """The inverse: ``<tool_call>`` blocks for ``calls`` (replay rebuilds recovered replies)."""
    return "\n".join(
        "<tool_call>"
        + json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
        + "</tool_call>"
        for name, args in calls
    )
