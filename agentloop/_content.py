"""The text of a message's content: one reading for everything that reads a message (the loop
and its wire format, the simulated user, the rewards, τ²-bench's verdict, the local model's
prompt), so that none of them sees a different text in the same reply.

A string is the text. A list of content blocks gives the text of its strings and of its text
blocks (``{"type": "text", "text": ...}``, or a block with a string ``text`` and no type), in
order; reasoning, thinking, images and tool-use blocks are not text. ``None`` is empty; any
other value is its ``str``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["content_text"]


def content_text(content: Any) -> str:
    """The text of a message's content (see the module doc).

    >>> content_text([{"type": "reasoning", "text": "hm"}, {"type": "text", "text": "Paris"}])
    'Paris'
    >>> content_text(["a", {"text": "b"}, {"type": "image_url"}]), content_text(None)
    ('ab', '')
    """
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if not isinstance(content, list | tuple):
        return str(content)
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif (
            isinstance(block, Mapping)
            and block.get("type", "text") == "text"
            and isinstance(block.get("text"), str)
        ):
            parts.append(block["text"])
    return "".join(parts)
