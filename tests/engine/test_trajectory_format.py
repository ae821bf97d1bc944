"""How a trajectory is stored: OpenAI chat messages, plus only what an exact round trip
needs; LangChain message dumps (the format before) are still read."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from agentloop import Trajectory
from tests.engine.test_trajectory import sample_trajectory

RUN_V1 = Path(__file__).resolve().parents[1] / "data" / "run_v1" / "results.jsonl"
LANGCHAIN_KEYS = {"type", "additional_kwargs", "response_metadata", "usage_metadata"}


def stored(t: Trajectory) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = json.loads(t.model_dump_json())["messages"]
    return messages


def without_extra(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in m.items() if k != "langchain"} for m in messages]


def assert_exact(t: Trajectory) -> None:
    again = Trajectory.model_validate_json(t.model_dump_json())
    assert again == t
    assert [type(m) for m in again.messages] == [type(m) for m in t.messages]
    assert Trajectory.model_validate(t.model_dump()) == t
    assert without_extra(stored(t)) == t.to_openai_messages()


def test_messages_are_stored_as_openai_chat_messages() -> None:
    messages = stored(sample_trajectory())
    assert without_extra(messages) == sample_trajectory().to_openai_messages()
    assert messages[:2] == [{"role": "system", "content": "sys"}, {"role": "user", "content": "q"}]
    ask = messages[2]
    assert ask["role"] == "assistant" and ask["content"] == ""
    assert ask["tool_calls"] == [
        {"id": "c1", "type": "function",
         "function": {"name": "lookup", "arguments": '{"key": "k"}'}},
        {"id": "c2", "type": "function", "function": {"name": "lookup", "arguments": "{oops"}},
    ]  # fmt: skip
    extra = ask["langchain"]
    assert extra["usage_metadata"] == {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8}
    assert extra["invalid_tool_calls"][0]["error"] == "bad"
    assert set(extra) == {"id", "usage_metadata", "invalid_tool_calls"}
    ok, failed = messages[3], messages[4]
    assert ok["tool_call_id"] == "c1" and ok["langchain"] == {"name": "lookup"}
    assert failed["tool_call_id"] == "c2"
    assert failed["langchain"] == {"name": "lookup", "status": "error"}
    assert not any(LANGCHAIN_KEYS & m.keys() for m in messages)


def test_the_stored_form_is_smaller_than_langchains_dump() -> None:
    t = sample_trajectory()
    new = len(json.dumps(stored(t)))
    old = len(json.dumps([m.model_dump() for m in t.messages]))
    assert new < 0.8 * old


def test_unusual_messages_round_trip_exactly() -> None:
    blocks = [{"type": "text", "text": "hel"}, {"type": "image_url", "image_url": {"url": "x"}}]
    messages: list[BaseMessage] = [
        SystemMessage(content="s", id="m0", additional_kwargs={"k": [1, None]}),
        HumanMessage(content=blocks, name="alice"),
        AIMessage(
            content=[{"type": "text", "text": "calling"}],
            tool_calls=[{"name": "f", "args": {"x": math.inf, "y": [-math.inf, 1e300]}, "id": "a"}],
            invalid_tool_calls=[
                {"name": None, "args": None, "id": None, "error": None, "type": "invalid_tool_call"}
            ],
            response_metadata={"finish_reason": "length", "score": -math.inf},
        ),
        ToolMessage(
            content=[{"type": "text", "text": "r"}],
            tool_call_id="a",
            status="error",
            artifact={"rows": [1, math.inf]},
        ),
        ToolMessage(content="x", tool_call_id=""),
        AIMessageChunk(content="chunk", id="k1"),
        ChatMessage(content="c", role="critic"),
        FunctionMessage(content="f", name="fn"),
        AIMessage(content=""),
    ]
    t = Trajectory.build(messages, [], "final")
    assert_exact(t)
    out = stored(t)
    assert out[1] == {"role": "user", "content": "hel",
                      "langchain": {"content": blocks, "name": "alice"}}  # fmt: skip
    assert json.loads(out[2]["tool_calls"][0]["function"]["arguments"])["x"] == math.inf
    assert out[2]["tool_calls"][1] == {
        "id": None,
        "type": "function",
        "function": {"name": "", "arguments": ""},
    }
    assert out[8] == {"role": "assistant", "content": ""}
    assert out[5]["langchain"]["type"] == "AIMessageChunk"  # kept whole: rare


def test_the_old_format_is_read() -> None:
    for raw in RUN_V1.read_text().splitlines():
        old = json.loads(raw)["trajectory"]
        t = Trajectory.model_validate(old)
        assert isinstance(t.messages[0], HumanMessage) and isinstance(t.messages[1], AIMessage)
        assert [m.model_dump() for m in t.messages] == old["messages"]
        assert_exact(t)
        assert all("type" not in m for m in stored(t))
    calls = Trajectory.model_validate(json.loads(RUN_V1.read_text().splitlines()[1])["trajectory"])
    assert [c.status for c in calls.tool_calls()] == ["ok", "malformed"]


def test_openai_messages_written_elsewhere_are_read() -> None:
    data = {
        "stop_reason": "final",
        "messages": [
            {"role": "developer", "content": "be brief"},
            {"role": "user", "content": "2+3?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "a", "type": "function",
                 "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}},
                {"id": "b", "type": "function", "function": {"name": "add", "arguments": "{"}},
            ]},
            {"role": "tool", "tool_call_id": "a", "content": "5"},
            {"role": "tool", "tool_call_id": "b", "content": "error"},
            {"role": "assistant", "content": "5"},
        ],
    }  # fmt: skip
    t = Trajectory.model_validate(data)
    ask = t.messages[2]
    assert isinstance(t.messages[0], SystemMessage) and isinstance(ask, AIMessage)
    assert ask.content == "" and ask.tool_calls[0]["args"] == {"a": 2, "b": 3}
    assert [c["id"] for c in ask.invalid_tool_calls] == ["b"]
    assert isinstance(t.messages[3], ToolMessage) and t.messages[3].tool_call_id == "a"
    assert_exact(t)



def test_calls_written_elsewhere_are_read_by_the_one_reader() -> None:
    # Object arguments (not a JSON string) used to crash the read; a call without a name
    # failed validation; "null" arguments are malformed, never {}.
    calls = [
        {"id": "a", "type": "function", "function": {"name": "add", "arguments": {"a": 1}}},
        {"id": "b", "type": "function", "function": {"arguments": "{}"}},
        {"id": "c", "type": "function", "function": {"name": "add", "arguments": "null"}},
    ]
    ask = {"role": "assistant", "content": None, "tool_calls": calls}
    t = Trajectory.model_validate({"stop_reason": "final", "messages": [ask]})
    (message,) = t.messages
    assert isinstance(message, AIMessage)
    assert [(c["id"], c["args"]) for c in message.tool_calls] == [("a", {"a": 1})]
    assert [(c["id"], c["error"]) for c in message.invalid_tool_calls] == [
        ("b", "no function name"),
        ("c", "arguments are not a JSON object"),
    ]

text = st.text(max_size=8)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=6,
)
contents = text | st.lists(
    st.builds(lambda s: {"type": "text", "text": s}, text) | text, max_size=2
)
ids = st.none() | text
call = st.fixed_dictionaries(
    {"name": text, "args": st.dictionaries(text, json_values, max_size=3), "id": text}
)
invalid = st.fixed_dictionaries(
    {"name": st.none() | text, "args": st.none() | text, "id": ids, "error": st.none() | text,
     "type": st.just("invalid_tool_call")}
)  # fmt: skip
usage = st.none() | st.builds(
    lambda i, o: {"input_tokens": i, "output_tokens": o, "total_tokens": i + o},
    st.integers(0, 99), st.integers(0, 99),
)  # fmt: skip
metadata = st.dictionaries(text, json_values, max_size=2)
messages = st.one_of(
    st.builds(SystemMessage, content=contents, id=ids, name=st.none() | text),
    st.builds(HumanMessage, content=contents, id=ids, additional_kwargs=metadata),
    st.builds(AIMessage, content=contents, id=ids, tool_calls=st.lists(call, max_size=2),
              invalid_tool_calls=st.lists(invalid, max_size=2), usage_metadata=usage,
              response_metadata=metadata, additional_kwargs=metadata),
    st.builds(ToolMessage, content=contents, tool_call_id=text, name=st.none() | text,
              status=st.sampled_from(["success", "error"]), artifact=json_values),
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(conversation=st.lists(messages, max_size=5))
def test_any_conversation_round_trips_exactly(conversation: list[BaseMessage]) -> None:
    assert_exact(Trajectory.build(conversation, [], "final"))
