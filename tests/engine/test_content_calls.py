"""``<tool_call>`` text recovery: one grammar for the engine and the rewards."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agentloop.evals._calls import parse_content_calls

from agentloop.engine import format_content_tool_calls, parse_content_tool_calls


def block(obj: object) -> str:
    return f"<tool_call>{json.dumps(obj)}</tool_call>"


F = {"name": "f", "arguments": {"x": 1}}
G = {"name": "g", "parameters": {"y": "z"}}

# The same text, both parsers: every input here holds only calls both can take.
SAME = {
    "plain": (block(F), [("f", {"x": 1})]),
    "fenced": (
        '<tool_call>\n```json\n{"name": "f", "arguments": {"x": 1}}\n```\n</tool_call>',
        [("f", {"x": 1})],
    ),
    "fenced without language": (
        "<tool_call>```" + json.dumps(F) + "```</tool_call>",
        [("f", {"x": 1})],
    ),
    "unterminated last block": (
        "Let me check.\n<tool_call>" + json.dumps(F) + "\n",
        [("f", {"x": 1})],
    ),
    "unterminated before the next block": (
        "<tool_call>" + json.dumps(F) + "\n" + block(G),
        [("f", {"x": 1}), ("g", {"y": "z"})],
    ),
    "list in one block": (block([F, G]), [("f", {"x": 1}), ("g", {"y": "z"})]),
    "two blocks": (block(F) + "\n" + block(G), [("f", {"x": 1}), ("g", {"y": "z"})]),
    "garbage between": (
        "I'll call. " + block(F) + " {not json} <tool_call>{oops</tool_call> ok " + block(G),
        [("f", {"x": 1}), ("g", {"y": "z"})],
    ),
    "nested braces in strings": (
        block({"name": "f", "arguments": {"code": "if (a) { b({}); }", "s": "}{"}}),
        [("f", {"code": "if (a) { b({}); }", "s": "}{"})],
    ),
    "OpenAI shape, JSON-string arguments": (
        block({"type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}),
        [("f", {"x": 1})],
    ),
    "LangChain args key": (block({"name": "f", "args": {"x": 1}}), [("f", {"x": 1})]),
    "blank or missing arguments": (
        block({"name": "f", "arguments": " "}) + block({"name": "g"}),
        [("f", {}), ("g", {})],
    ),
    "cut off inside the JSON": ('<tool_call>{"name": "f", "argum', []),
    "no blocks": ("The answer is 4.", []),
}


@pytest.mark.parametrize("case", SAME)
def test_engine_and_rewards_find_the_same_calls(case: str) -> None:
    text, expected = SAME[case]
    engine = parse_content_tool_calls(text)
    rewards = [(c.name, c.args) for c in parse_content_calls(text, [])]
    assert engine == rewards == expected


@pytest.mark.parametrize(
    ("item", "reward_args"),
    [
        ({"name": "f", "arguments": "{not json"}, "{not json"),  # compared as the raw string
        ({"name": "f", "arguments": [1, 2]}, [1, 2]),  # compared as given
        ({"name": "f", "arguments": "null"}, None),  # never run as {}
    ],
)
def test_arguments_only_the_rewards_keep(item: object, reward_args: object) -> None:
    # The engine runs only object arguments; the rewards keep what was written to compare it.
    text = block(item)
    assert parse_content_tool_calls(text) == []
    assert [(c.name, c.args) for c in parse_content_calls(text, [])] == [("f", reward_args)]


def test_skipped_blocks_are_noted_once_each() -> None:
    notes: list[str] = []
    text = "<tool_call>{oops</tool_call>" + block([1, 2]) + block(F) + block([F, "x"])
    calls = parse_content_calls(text, notes)
    assert [c.name for c in calls] == ["f", "f"]
    assert len(notes) == 3 and "block 0 is not valid JSON" in notes[0]


def test_format_round_trips() -> None:
    calls: list[tuple[str, dict[str, Any]]] = [("f", {"x": 1}), ("g", {"s": "ünïcode"})]
    assert parse_content_tool_calls(format_content_tool_calls(calls)) == calls
