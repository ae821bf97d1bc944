"""The trajectory record: lossless JSON, OpenAI-format export, derived totals."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from agentloop import Trajectory, run_agent_sync
from agentloop.testing import ScriptedChatModel


@tool
def lookup(key: str) -> dict[str, object]:
    """Look a key up."""
    return {"key": key, "values": [1, 2.5, None, True], "nested": {"é": "ü"}}


def sample_trajectory() -> Trajectory:
    reply = AIMessage(
        content="",
        tool_calls=[{"name": "lookup", "args": {"key": "k"}, "id": "c1"}],
        invalid_tool_calls=[{"name": "lookup", "args": "{oops", "id": "c2", "error": "bad"}],
        usage_metadata={"input_tokens": 5, "output_tokens": 3, "total_tokens": 8},
    )
    model = ScriptedChatModel([reply, "the answer"])
    messages = [SystemMessage(content="sys"), HumanMessage(content="q")]
    return run_agent_sync(model, [lookup], messages)


def test_json_round_trip_is_lossless() -> None:
    t = sample_trajectory()
    again = Trajectory.model_validate_json(t.model_dump_json())
    assert again == t
    assert again.model_dump_json() == t.model_dump_json()
    assert isinstance(again.messages[2], AIMessage) and isinstance(again.messages[3], ToolMessage)


def test_totals_are_derived_from_steps() -> None:
    t = sample_trajectory()
    assert t.rounds == 1
    assert t.tool_calls_by_status == {"ok": 1, "malformed": 1}
    assert t.usage.total_tokens == 8
    assert len(t.steps) == 2 and t.steps[1].tool_calls == []
    assert t.final_answer == "the answer"


def test_openai_export_has_json_string_arguments_and_tool_call_ids() -> None:
    msgs = sample_trajectory().to_openai_messages()
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    call = msgs[2]["tool_calls"][0]
    assert call["type"] == "function" and json.loads(call["function"]["arguments"]) == {"key": "k"}
    assert msgs[3]["tool_call_id"] == "c1"
    assert json.loads(msgs[3]["content"])["nested"] == {"é": "ü"}
    assert msgs[4]["tool_call_id"] == "c2"
    assert msgs[5] == {"role": "assistant", "content": "the answer"}
    json.dumps(msgs)  # plain JSON all the way down


def test_content_blocks_are_flattened_to_text() -> None:
    reply = AIMessage(content=[{"type": "text", "text": "hel"}, {"type": "text", "text": "lo"}])
    t = run_agent_sync(ScriptedChatModel([reply]), [], "q")
    assert t.final_answer == "hello"
    assert t.to_openai_messages()[-1]["content"] == "hello"


text = st.text(max_size=20)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=40, deadline=None)
@given(args=st.dictionaries(text, json_values, max_size=4), answer=text)
def test_round_trip_holds_for_arbitrary_arguments(args: dict[str, object], answer: str) -> None:
    reply = AIMessage(content="", tool_calls=[{"name": "nothing", "args": args, "id": "x"}])
    t = run_agent_sync(ScriptedChatModel([reply, answer]), [lookup], "q")
    assert Trajectory.model_validate_json(t.model_dump_json()) == t
    assert t.tool_calls()[0].status == "unknown_tool"
