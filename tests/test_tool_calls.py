"""One reader of a tool call: the engine, dataset validation and the rewards agree on
which calls are usable and on what they say."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agentloop.evals import exact_tool_match_reward
from agentloop.evals._calls import collect_calls

from agentloop._tool_calls import read_call
from agentloop.engine import parse_content_tool_calls
from agentloop.harness.data._rows import parse_line

USER = {"role": "user", "content": "hi"}

CALLS: dict[str, tuple[Any, tuple[str, Any] | None]] = {
    # item -> (name, args) when usable, None when not
    "OpenAI": (
        {"type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
        ("f", {"x": 1}),
    ),
    "OpenAI, object arguments": (
        {"function": {"name": "f", "arguments": {"x": 1}}},
        ("f", {"x": 1}),
    ),
    "LangChain": ({"name": "f", "args": {"x": 1}, "id": "1"}, ("f", {"x": 1})),
    "parameters": ({"name": "f", "parameters": {"x": 1}}, ("f", {"x": 1})),
    "no arguments": ({"name": "f"}, ("f", {})),
    "blank arguments": ({"name": "f", "arguments": "  "}, ("f", {})),
    "unicode": (
        {"name": "météo", "arguments": '{"ville": "Zürich"}'},
        ("météo", {"ville": "Zürich"}),
    ),
    "typo'd key": ({"nme": "f", "arguments": {}}, None),
    "no name": ({"function": {"arguments": "{}"}}, None),
    "empty name": ({"name": "", "arguments": {}}, None),
    "name not a string": ({"name": 5, "arguments": {}}, None),
    "arguments not JSON": ({"name": "f", "arguments": "{oops"}, None),
    "arguments null": ({"name": "f", "arguments": "null"}, None),
    "arguments a list": ({"name": "f", "arguments": "[1, 2]"}, None),
    "arguments a string": ({"name": "f", "arguments": '"hi"'}, None),
    "not an object": (42, None),
}


def _validation_accepts(item: Any, where: str) -> bool:
    reply = {"role": "assistant", "content": "", "tool_calls": [item]}
    row = {"messages": [USER, reply]}  # prompt history
    if where == "ground_truth":
        row = {"messages": [USER], "ground_truth": {"tool_calls": [item]}}
    try:
        parse_line(json.dumps(row), 1)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("case", CALLS)
def test_every_reader_takes_the_same_calls(case: str) -> None:
    item, usable = CALLS[case]
    read = read_call(item)
    assert (read.problem is None) == (usable is not None)
    # the engine runs exactly the usable calls it finds in text
    text = f"<tool_call>{json.dumps(item)}</tool_call>"
    assert parse_content_tool_calls(text) == ([usable] if usable else [])
    # dataset validation: prompt history must be sendable as it is; ground truth needs a
    # name (arguments that are not an object are compared as written)
    assert _validation_accepts(item, "messages") is (usable is not None)
    assert _validation_accepts(item, "ground_truth") is (read.name != "")
    # the rewards read the same name and arguments
    if usable is not None:
        assert [(c.name, c.args) for c in collect_calls([item], [])] == [usable]
    else:
        assert read.problem  # and it says why


def test_the_rewards_score_a_call_compared_as_the_reader_reads_it() -> None:
    generated = [{"role": "assistant", "tool_calls": [CALLS["OpenAI"][0]]}]
    expected = {"tool_calls": [CALLS["LangChain"][0]]}
    assert exact_tool_match_reward(generated, expected).score == 1.0


@pytest.mark.parametrize("case", [c for c, (_, usable) in CALLS.items() if usable])
def test_prompt_history_in_any_accepted_shape_is_sent_as_openai_calls(case: str) -> None:
    from langchain_core.messages import AIMessage, convert_to_messages

    from agentloop.harness.data._prompt import prompt_messages

    item, usable = CALLS[case]
    history = [USER, {"role": "assistant", "content": None, "tool_calls": [item]}]
    history += [{"role": "tool", "tool_call_id": "x", "content": "ok"}, USER]
    parse_line(json.dumps({"messages": history}), 1)  # valid
    wired = prompt_messages(history)
    (call,) = wired[1]["tool_calls"]
    assert call["type"] == "function" and call["function"]["name"] == usable[0]
    ai = convert_to_messages(wired)[1]
    assert isinstance(ai, AIMessage) and [(c["name"], c["args"]) for c in ai.tool_calls] == [usable]


def test_the_readers_documented_examples_hold() -> None:
    import doctest

    import agentloop._tool_calls

    result = doctest.testmod(agentloop._tool_calls)
    assert result.attempted >= 10 and result.failed == 0
