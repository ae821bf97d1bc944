"""Recovering tool calls that a server left in the text of a reply.

Hermes-style models emit ``<tool_call>{...}</tool_call>`` blocks; an OpenAI-compatible
server without a matching parser passes them through as plain content. Given to
``run_agent(parse_content_tool_calls=...)``, :func:`parse_content_tool_calls` turns them
into real calls (the engine marks them ``recovered=True`` in the trajectory).

What a block is (code fences inside, an unterminated last block, a JSON list of calls in
one block) is decided by ``agentloop.evals._calls``, the one home of the grammar, so that a run and
its scoring read the same text the same way. The call shapes are the rewards' too::

    {"name": "f", "arguments": {...}}            # arguments may be a JSON string
    {"name": "f", "parameters": {...}}           # or "args"
    {"type": "function", "function": {"name": "f", "arguments": "..."}}

Only the treatment of a call differs: the engine runs object arguments only, so a call
whose arguments are not an object (or not JSON) is skipped: recovery is best effort and
never invents a call.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["format_content_tool_calls", "parse_content_tool_calls"]


def _as_call(item: Any) -> tuple[str, dict[str, Any]] | None:
    from agentloop.evals._calls import call_fields

    fields = call_fields(item) if isinstance(item, dict) else None
    if fields is None:
        return None
    name, args = fields
    if not isinstance(name, str) or not name:
        return None
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except (ValueError, RecursionError):
            return None
    if args is None:
        args = {}
    return (name, args) if isinstance(args, dict) else None


def parse_content_tool_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The ``(name, arguments)`` of every well-formed call in ``<tool_call>`` blocks, in order.

    >>> parse_content_tool_calls('<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>')
    [('f', {'x': 1})]
    >>> parse_content_tool_calls("no calls here")
    []
    """
    # Imported on use: loading the evals package would add ~60 ms to `import agentloop`,
    # and most runs talk to servers that parse calls themselves.
    from agentloop.evals._tool_call_text import block_items, tool_call_blocks

    calls: list[tuple[str, dict[str, Any]]] = []
    for body in tool_call_blocks(text):
        for item in block_items(body) or ():
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
