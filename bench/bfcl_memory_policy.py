"""A deterministic stand-in model for BFCL's memory categories, shared by both sides of
``bfcl_memory_state_agreement``: BFCL's handler (in ``.venv-bfcl``) and agentloop's loop
play the same replies, so their memories and prompts must be equal.

On a user message it calls a memory tool (``memory_kv``: notes into core memory until it
is full, then archival memory, keys made from the text; ``memory_rec_sum``: the text
appended, until the memory refuses it); on a question (its system prompt asks for BFCL's
answer format) it reads the memory back; after tool results it answers in text, quoting
the first result. Plain data in, plain data out: it imports neither side's code.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

ANSWER_FORMAT_MARK = "For your final answer to the user"


def reply(category: str, system: str, last_role: str, last_text: str, users: int) -> dict:
    """``{"text": ...}`` or ``{"calls": [(name, arguments), ...]}``: the next reply, from the
    system prompt, the last message's role and text, and how many user messages so far."""
    question = ANSWER_FORMAT_MARK in system
    if last_role == "tool":
        return {"text": f"{{'answer': {last_text[:80]!r}, 'context': 'memory'}}"}
    if question:
        if category == "memory_rec_sum":
            return {"calls": [("memory_retrieve", {})]}
        return {
            "calls": [
                ("core_memory_retrieve_all", {}),
                ("archival_memory_key_search", {"query": last_text, "k": 3}),
            ]
        }
    if category == "memory_rec_sum":
        return {"calls": [("memory_append", {"text": last_text[:400] + "\n"})]}
    key = "note_" + hashlib.sha1(last_text.encode()).hexdigest()[:8]
    where = "core_memory_add" if users % 2 else "archival_memory_add"
    return {"calls": [(where, {"key": key, "value": last_text[:250]})]}


def as_openai(choice: dict, number: int) -> dict[str, Any]:
    """A reply as an OpenAI chat-completions assistant message."""
    if "text" in choice:
        return {"role": "assistant", "content": choice["text"]}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{number}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for i, (name, arguments) in enumerate(choice["calls"])
        ],
    }
