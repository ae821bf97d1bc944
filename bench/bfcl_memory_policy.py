"""A deterministic stand-in model for BFCL's memory categories, shared by both sides of
``bfcl_memory_state_agreement``: BFCL's handler (in ``.venv-bfcl``) and agentloop's loop
play the same replies, so their memories and prompts must be equal.

On a user message it calls a memory tool (``memory_kv``: notes into core memory until it
is full, then archival memory, keys made from the text; ``memory_rec_sum``: the text
appended, until the memory refuses it; ``memory_vector``: a cycle of six replies, see
``vector_calls``, that adds, searches, updates, removes and clears, and feeds the vector
store what a careless model would: unknown ids, ids of the wrong type, over-long text,
``top_k`` larger than the store, zero, negative or not an integer); on a question (its
system prompt asks for BFCL's answer format) it reads the memory back; after tool results
it answers in text, quoting the first result. Plain data in, plain data out: it imports
neither side's code.
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
        if category == "memory_vector":
            return {
                "calls": [
                    ("core_memory_retrieve_all", {}),
                    ("core_memory_retrieve", {"query": last_text}),
                    ("archival_memory_retrieve", {"query": last_text, "top_k": 3}),
                ]
            }
        return {
            "calls": [
                ("core_memory_retrieve_all", {}),
                ("archival_memory_key_search", {"query": last_text, "k": 3}),
            ]
        }
    if category == "memory_rec_sum":
        return {"calls": [("memory_append", {"text": last_text[:400] + "\n"})]}
    if category == "memory_vector":
        return {"calls": vector_calls(last_text, users)}
    key = "note_" + hashlib.sha1(last_text.encode()).hexdigest()[:8]
    where = "core_memory_add" if users % 2 else "archival_memory_add"
    return {"calls": [(where, {"key": key, "value": last_text[:250]})]}


def vector_calls(text: str, users: int) -> list[tuple[str, dict[str, Any]]]:
    """``memory_vector``'s calls for the ``users``-th user message of a conversation: a
    cycle of six (core memory holds 7 entries of 300 characters, archival 50 of 2000)."""
    step = users % 6
    query = text[:120]
    if step == 1:
        return [
            ("core_memory_add", {"text": text[:250]}),
            ("core_memory_retrieve", {"query": query, "top_k": 3}),
        ]
    if step == 2:
        return [
            ("archival_memory_add", {"text": text[:1500]}),
            ("archival_memory_retrieve", {"query": query, "top_k": 100}),  # > the store
        ]
    if step == 3:
        return [
            ("core_memory_update", {"vec_id": 0, "new_text": text[:200][::-1]}),
            ("core_memory_update", {"vec_id": 9999, "new_text": "unknown id"}),
            ("core_memory_add", {"text": text[:250] + "." * 51}),  # 301 characters or more
            ("archival_memory_add", {"text": (text + " ") * (2001 // (len(text) + 1) + 1)}),
        ]
    if step == 4:
        return [
            ("core_memory_retrieve", {"query": query, "top_k": 0}),
            ("archival_memory_retrieve", {"query": query, "top_k": -2}),
            ("core_memory_retrieve", {"query": query, "top_k": "2"}),
            ("archival_memory_retrieve", {"query": query, "top_k": 1.5}),
            ("core_memory_remove", {"vec_id": "1"}),  # a string id: never in the store
            ("archival_memory_retrieve", {"query": query}),  # top_k's default
        ]
    if step == 5:
        return [
            ("archival_memory_update", {"vec_id": 1, "new_text": text[:500]}),
            ("archival_memory_remove", {"vec_id": 0}),
            ("core_memory_remove", {"vec_id": 2.0}),  # equal to 2 as a dict key
            ("core_memory_update", {"vec_id": True, "new_text": text[:100]}),  # True == 1
            ("archival_memory_remove", {"vec_id": -7}),
        ]
    calls: list[tuple[str, dict[str, Any]]] = [
        ("core_memory_retrieve_all", {}),
        ("archival_memory_retrieve_all", {}),
    ]
    if users % 12 == 0:
        calls.append(("core_memory_clear", {}))
    if hashlib.sha1(text.encode()).hexdigest()[0] == "0":  # one in sixteen, by the text
        calls.append(("archival_memory_clear", {}))
    return calls


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
