"""BFCL's verdict on a memory question (``_evaluate_single_agentic_entry``): the model's
last message that is not a function call, checked by BFCL's own ``agentic_checker``
(one accepted answer found in it, as a whole word, ignoring case, whitespace and
``,./-_*^()``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

__all__ = ["MemoryVerdict", "bfcl_memory_verdict", "last_answer"]


class MemoryVerdict(BaseModel):
    """BFCL's verdict on one memory question."""

    valid: bool
    """BFCL counts the question as answered correctly."""
    error_type: str | None = None
    """BFCL's error type when not valid (``agentic:answer_not_found``,
    ``agentic:no_last_message``)."""
    answer: str | None = None
    """The message that was checked: the last assistant message without tool calls."""


def last_answer(messages: Sequence[Any]) -> str | None:
    """The content of the last assistant message without tool calls (OpenAI-style dicts
    or LangChain messages), or None if every reply called a tool."""
    for message in reversed(messages):
        role = message.get("role") if isinstance(message, dict) else getattr(message, "type", "")
        if role not in ("assistant", "ai"):
            continue
        calls = (
            message.get("tool_calls") if isinstance(message, dict) else message.tool_calls  # type: ignore[union-attr]
        )
        if calls:
            continue
        content = message.get("content") if isinstance(message, dict) else message.content  # type: ignore[union-attr]
        return content if isinstance(content, str) else str(content or "")
    return None


def bfcl_memory_verdict(messages: Sequence[Any], possible_answers: Sequence[str]) -> MemoryVerdict:
    """BFCL's verdict on a memory question's conversation."""
    from agentloop.benchmarks.bfcl._package import bfcl_package

    bfcl_package()  # importable wherever it was installed
    from bfcl_eval.eval_checker.agentic_eval.agentic_checker import agentic_checker

    answer = last_answer(messages)
    if not answer:  # BFCL: an empty last message is no message
        return MemoryVerdict(valid=False, error_type="agentic:no_last_message", answer=answer)
    result = agentic_checker(answer, list(possible_answers))
    if result["valid"]:
        return MemoryVerdict(valid=True, answer=answer)
    return MemoryVerdict(valid=False, error_type=result.get("error_type"), answer=answer)
