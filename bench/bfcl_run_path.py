"""A BFCL agreement case as a run records it: the model's replies read by agentloop's OpenAI
client (``CompatChatOpenAI``, as from a server: a call's text LangChain reads leniently, or
whose arguments are not an object, is handled as in a live run), then played through the
engine (``run_agent``), so the verdict judges the trajectory a run writes, not only the
message list.

``reply(calls)``: one completion's assistant message as the run reads it; ``calls`` are
``(name, arguments text)``. ``single_turn_trajectory`` and ``multi_turn_trajectory`` run
a case: the first as BFCL's single-turn configs run (one reply, calls recorded, not run),
the second as the multi-turn configs do (``max_rounds=21``, ``at_max_rounds="stop"``),
with schema-only tools (nothing executes: the verdicts execute the calls themselves).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from agentloop.engine import Trajectory, Turn, run_agent_sync
from agentloop.models._compat import CompatChatOpenAI
from agentloop.testing import ScriptedChatModel

__all__ = ["multi_turn_trajectory", "reply", "single_turn_trajectory"]

_CLIENT = CompatChatOpenAI(model="bench", api_key="not-used")  # never sends a request


def reply(calls: list[tuple[str, str]], prefix: str = "call") -> AIMessage:
    """The assistant message of a completion with these calls, as the run reads it."""
    tool_calls = [
        {"id": f"{prefix}_{k}", "type": "function", "function": {"name": n, "arguments": a}}
        for k, (n, a) in enumerate(calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    body = {
        "id": "bench", "object": "chat.completion", "created": 0, "model": "bench",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }  # fmt: skip
    ai = _CLIENT._create_chat_result(body).generations[0].message
    assert isinstance(ai, AIMessage)
    return ai


def _schemas(names: set[str]) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in sorted(names)
    ]


def single_turn_trajectory(
    messages: list[dict[str, Any]], calls: list[tuple[str, str]], tools: list[Any]
) -> Trajectory:
    """One reply with ``calls`` (or a text answer when there are none), single-turn."""
    answer: Any = reply(calls) if calls else "I cannot help with that."
    names = {n for n, _ in calls} - {t["function"]["name"] for t in tools}
    model = ScriptedChatModel([answer])
    return run_agent_sync(
        model, [*tools, *_schemas(names)], messages, single_turn=True, tool_timeout=None
    )


def multi_turn_trajectory(
    row: dict[str, Any], turns: list[list[list[tuple[str, str]]]]
) -> Trajectory:
    """The row's conversation with these steps per turn, each turn closed by an answer,
    run as the BFCL multi-turn configs run it (a 21st step ends the conversation)."""
    script: list[Any] = []
    for t, steps in enumerate(turns):
        script += [reply(step, f"call_{t}_{s}") for s, step in enumerate(steps)]
        script.append("Done.")
    names = {n for steps in turns for step in steps for n, _ in step}
    later = [Turn(messages=t["messages"]) for t in row["turns"]]
    return run_agent_sync(
        ScriptedChatModel(script), _schemas(names or {"none"}), row["messages"],
        turns=later[: max(len(turns) - 1, 0)], max_rounds=21, at_max_rounds="stop",
        tool_execution="sequential", tool_timeout=None,
    )  # fmt: skip
