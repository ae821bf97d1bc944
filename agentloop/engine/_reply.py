"""Reply normalisation: every call of a model reply gets a unique id and a pending entry.

Missing or repeated call ids are replaced deterministically (replay needs the same ids
again), calls the provider could not parse stay as malformed entries (never run,
never ``{}``), and calls a server left in the text are recovered when a parser is given.
A call whose text the provider kept (``additional_kwargs["tool_calls"]``) and that only a
lenient reader accepts runs as parsed and keeps that text (``raw_args``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.tool import InvalidToolCall, ToolCall

from agentloop._tool_calls import lenient_texts
from agentloop.engine._dispatch import PendingCall

__all__ = ["CallIds", "ContentCallParser", "pending_calls"]

# Recovers tool calls a server left in the text: returns (name, args) pairs, or [] for none.
ContentCallParser = Callable[[str], list[tuple[str, dict[str, Any]]]]


class CallIds:
    """Keeps tool-call ids unique within a run, replacing missing or repeated ones."""

    def __init__(self, history: Sequence[BaseMessage]) -> None:
        self.seen: set[str] = set()
        for message in history:
            if isinstance(message, AIMessage):
                self.seen.update(c["id"] for c in message.tool_calls if c["id"])

    def claim(self, wanted: str | None, step: int, index: int) -> str:
        if wanted and wanted not in self.seen:
            self.seen.add(wanted)
            return wanted
        # Deterministic replacements keep replayed requests identical to recorded ones.
        candidate, bump = f"call_al_{step}_{index}", 0
        while candidate in self.seen:
            bump += 1
            candidate = f"call_al_{step}_{index}_{bump}"
        self.seen.add(candidate)
        return candidate


def _recover_from_content(ai: AIMessage, parse: ContentCallParser | None) -> list[ToolCall]:
    """Tool calls a server left in the reply's text, when a parser is configured."""
    if parse is None or ai.tool_calls or ai.invalid_tool_calls or not isinstance(ai.content, str):
        return []
    found = parse(ai.content) if ai.content else []
    return [ToolCall(name=name, args=args, id=None) for name, args in found]


def pending_calls(
    ai: AIMessage,
    ids: CallIds,
    step: int,
    parse_content: ContentCallParser | None,
) -> tuple[AIMessage, list[PendingCall]]:
    """The calls of one reply, with ids made unique; the reply rewritten to match."""
    recovered_calls = _recover_from_content(ai, parse_content)
    recovered = bool(recovered_calls)
    pending: list[PendingCall] = []

    def claim(original: str | None) -> tuple[str, str | None]:
        new = ids.claim(original, step, len(pending))
        return new, (original if new != original else None)

    # The text a call was sent with, kept where a strict reader would read it otherwise.
    texts = {} if recovered else lenient_texts(ai)
    valid: list[ToolCall] = []
    for call in recovered_calls or ai.tool_calls:
        raw = texts.get(call["id"] or "")
        call_id, replaced = claim(call["id"])
        pending.append(
            PendingCall(
                call_id,
                call["name"],
                call["args"],
                original_id=replaced,
                raw_args=raw,
                recovered=recovered,
            )
        )
        valid.append({**call, "id": call_id})
    invalid: list[InvalidToolCall] = []
    for bad in ai.invalid_tool_calls:
        call_id, replaced = claim(bad.get("id"))
        pending.append(
            PendingCall(
                call_id,
                bad.get("name") or "",
                None,
                original_id=replaced,
                raw_args=bad.get("args"),
                malformed_error=bad.get("error") or "unparseable arguments",
            )
        )
        invalid.append({**bad, "id": call_id})
    if recovered or valid != ai.tool_calls or invalid != ai.invalid_tool_calls:
        update: dict[str, Any] = {"tool_calls": valid, "invalid_tool_calls": invalid}
        if recovered:
            update["content"] = ""  # the calls now travel natively, not as text
        ai = ai.model_copy(update=update)
    return ai, pending
