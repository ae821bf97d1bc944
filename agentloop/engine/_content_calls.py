"""Recovering tool calls that a server left in the text of a reply.

Hermes-style models emit ``<tool_call>{...}</tool_call>`` blocks; an OpenAI-compatible
server without a matching parser passes them through as plain content. Given to
``run_agent(parse_content_tool_calls=...)``, :func:`parse_content_tool_calls` turns them
into real calls (the engine marks them ``recovered=True`` in the trajectory).

What a block is (code fences inside, an unterminated last block, a JSON list of calls in
one block) and how a call is read are decided by ``agentloop._tool_calls``, the one reader
of a call, so that a run, its dataset and its scoring read the same text the same way.
Only the treatment of a call differs: the engine runs usable calls only (a name and object
arguments); any other is skipped: recovery is best effort and never invents a call.
"""

from __future__ import annotations

import json
from typing import Any

from agentloop._tool_calls import block_items, read_call, tool_call_blocks

__all__ = ["format_content_tool_calls", "parse_content_tool_calls"]


def parse_content_tool_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The ``(name, arguments)`` of every usable call in ``<tool_call>`` blocks, in order.

    >>> parse_content_tool_calls('<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>')
    [('f', {'x': 1})]
    >>> parse_content_tool_calls("no calls here")
    []
    """
    calls: list[tuple[str, dict[str, Any]]] = []
    for body in tool_call_blocks(text):
        for item in block_items(body) or ():
            call = read_call(item)
            if call.problem is None:
                calls.append((call.name, call.args))
    return calls


def format_content_tool_calls(calls: list[tuple[str, dict[str, Any]]]) -> str:
    """The inverse: ``<tool_call>`` blocks for ``calls`` (replay rebuilds recovered replies)."""
    return "\n".join(
        "<tool_call>"
        + json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
        + "</tool_call>"
        for name, args in calls
    )
