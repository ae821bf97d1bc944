"""exact_tool_match_reward (reference semantics), match_function_call, deprecated wrappers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agentloop.evals import (
    composite_function_call_reward,
    exact_tool_match_reward,
    llm_judge_reward,
    match_function_call,
    schema_jaccard_reward,
)
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agentloop.engine._trajectory import StepRecord, ToolCallRecord, Trajectory


def oa(name: str, args: Any, call_id: str = "c") -> dict[str, Any]:
    """An OpenAI wire-format call; dict args are serialized like a provider would."""
    text = args if isinstance(args, str) else json.dumps(args)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def gen(*calls: dict[str, Any], content: Any = None) -> list[dict[str, Any]]:
    last: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        last["tool_calls"] = list(calls)
    return [{"role": "user", "content": "q"}, last]


def gt(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": list(calls)}


W = {"city": "Boston", "unit": "f"}

CASES = [
    # (id, messages, ground_truth, score)
    ("same", gen(oa("w", W)), gt(oa("w", W)), 1.0),
    ("key order irrelevant", gen(oa("w", '{"unit": "f", "city": "Boston"}')), gt(oa("w", W)), 1.0),
    ("fewer calls", gen(oa("w", W)), gt(oa("w", W), oa("w", W)), 0.0),
    ("more calls", gen(oa("w", W), oa("t", {})), gt(oa("w", W)), 0.0),
    ("order matters", gen(oa("a", {}), oa("b", {})), gt(oa("b", {}), oa("a", {})), 0.0),
    ("name differs", gen(oa("w", W)), gt(oa("weather", W)), 0.0),
    ("value differs", gen(oa("w", W)), gt(oa("w", {**W, "unit": "c"})), 0.0),
    ("extra key", gen(oa("w", {**W, "days": 3})), gt(oa("w", W)), 0.0),
    ("1 is not 1.0", gen(oa("f", {"n": 1})), gt(oa("f", {"n": 1.0})), 0.0),
    ("True is not 1", gen(oa("f", {"n": True})), gt(oa("f", {"n": 1})), 0.0),
    ("nested 1 vs 1.0", gen(oa("f", {"n": [{"x": 1}]})), gt(oa("f", {"n": [{"x": 1.0}]})), 0.0),
    ("empty string is {}", gen(oa("f", "")), gt(oa("f", {})), 1.0),
    ("invalid JSON: raw equal", gen(oa("f", "{oops")), gt(oa("f", "{oops")), 1.0),
    ("invalid JSON: raw differs", gen(oa("f", "{oops")), gt(oa("f", "{oops}")), 0.0),
    ("invalid JSON vs object", gen(oa("f", "{oops")), gt(oa("f", {})), 0.0),
    ("dict arguments in gt", gen(oa("w", W)), gt({"name": "w", "arguments": W}), 1.0),
    # reward-kit drops a call without "arguments"; it is a call with no arguments here
    ("gt call without arguments", gen(oa("f", {})), gt({"function": {"name": "f"}}), 1.0),
    (
        "extra function keys ignored",
        gen(oa("f", {})),
        gt({"function": {"name": "f", "arguments": "{}", "strict": True}}),
        1.0,
    ),
    ("no gt, no calls", gen(), None, 1.0),
    ("no gt, calls", gen(oa("w", W)), None, 0.0),
    ("gt without tool_calls", gen(), {"answer": "x"}, 1.0),
    ("gt without tool_calls, calls", gen(oa("w", W)), {}, 0.0),
    ("gt tool_calls null", gen(), {"tool_calls": None}, 1.0),
    ("gt as JSON string", gen(oa("w", W)), json.dumps(gt(oa("w", W))), 1.0),
    ("gt invalid JSON string", gen(oa("w", W)), "{not json", 0.0),
    ("gt not a dict", gen(), [oa("w", W)], 0.0),
    ("content null, no calls, no gt", gen(), None, 1.0),
    ("content missing", [{"role": "assistant"}], None, 1.0),
    ("content null vs expected call", gen(), gt(oa("w", W)), 0.0),
    ("content is a list", gen(content=[{"type": "text", "text": "hi"}]), None, 1.0),
    ("content is a number", gen(content=42), None, 1.0),
    ("no messages", [], gt(oa("w", W)), 0.0),
    ("not messages", 42, None, 0.0),
    ("single message dict", gen(oa("w", W))[-1], gt(oa("w", W)), 1.0),
]


@pytest.mark.parametrize(("messages", "truth", "score"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_exact_tool_match_reward(messages: Any, truth: Any, score: float) -> None:
    result = exact_tool_match_reward(messages, truth)
    assert result.score == score
    assert result.reason


def block(obj: Any) -> str:
    return f"<tool_call>{json.dumps(obj)}</tool_call>"


@pytest.mark.parametrize(
    ("content", "score", "skipped"),
    [
        (block({"type": "function", "function": {"name": "w", "arguments": json.dumps(W)}}), 1, 0),
        (block({"name": "w", "arguments": W}), 1.0, 0),
        (block({"name": "w", "parameters": W}), 1.0, 0),
        ("thinking... " + block({"name": "w", "arguments": W}) + " done", 1.0, 0),
        ("<tool_call>{broken</tool_call>" + block({"name": "w", "arguments": W}), 1.0, 1),
        (block([1, 2]) + block({"name": "w", "arguments": W}), 1.0, 1),
        (block({"name": "w", "arguments": {**W, "unit": "c"}}), 0.0, 0),
        ("<tool_call>{broken</tool_call>", 0.0, 1),
    ],
)
def test_tool_calls_parsed_from_content(content: str, score: float, skipped: int) -> None:
    result = exact_tool_match_reward(gen(content=content), gt(oa("w", W)))
    assert result.score == score
    assert len(result.details.notes) == skipped


def test_native_calls_win_over_content() -> None:
    content = block({"name": "other", "arguments": {}})
    assert exact_tool_match_reward(gen(oa("w", W), content=content), gt(oa("w", W))).score == 1.0


def test_langchain_messages() -> None:
    msgs = [
        HumanMessage("q"),
        AIMessage("", tool_calls=[{"name": "w", "args": W, "id": "1"}]),
    ]
    assert exact_tool_match_reward(msgs, gt(oa("w", W))).score == 1.0
    assert exact_tool_match_reward(msgs, gt({"name": "w", "args": W, "id": "x"})).score == 1.0
    assert exact_tool_match_reward([AIMessage("final")], None).score == 1.0
    # LangChain-form call dicts on a plain dict message work as well
    as_dict = {"role": "assistant", "content": None, "tool_calls": [{"name": "w", "args": W}]}
    assert exact_tool_match_reward([as_dict], gt(oa("w", W))).score == 1.0


def two_round_trajectory() -> Trajectory:
    msgs = [
        HumanMessage("q"),
        AIMessage("", tool_calls=[{"name": "a", "args": {"x": 1}, "id": "1"}]),
        ToolMessage("r", tool_call_id="1"),
        AIMessage("", tool_calls=[{"name": "b", "args": {}, "id": "2"}]),
        ToolMessage("r", tool_call_id="2"),
        AIMessage("done"),
    ]
    steps = [
        StepRecord(latency_s=0, tool_calls=[ToolCallRecord(id="1", name="a", args={"x": 1},
                                                           status="ok")]),
        StepRecord(latency_s=0, tool_calls=[ToolCallRecord(id="2", name="b", args={},
                                                           status="ok")]),
        StepRecord(latency_s=0),
    ]  # fmt: skip
    return Trajectory.build(msgs, steps, "final")


def test_trajectory_generation_is_all_rounds() -> None:
    traj = two_round_trajectory()
    assert exact_tool_match_reward(traj, gt(oa("a", {"x": 1}), oa("b", {}))).score == 1.0
    assert exact_tool_match_reward(traj, gt(oa("b", {}))).score == 0.0
    # the same conversation as a plain list is scored on its last message only
    assert exact_tool_match_reward(traj.to_openai_messages(), None).score == 1.0


def test_malformed_trajectory_call_compares_raw_text() -> None:
    traj = Trajectory.build(
        [HumanMessage("q"), AIMessage("x")],
        [StepRecord(latency_s=0, tool_calls=[
            ToolCallRecord(id="1", name="f", raw_args="{oops", status="malformed")
        ])],
        "final",
    )  # fmt: skip
    assert exact_tool_match_reward(traj, gt(oa("f", "{oops"))).score == 1.0
    assert exact_tool_match_reward(traj, gt(oa("f", {}))).score == 0.0


def test_diagnostics_name_the_call_and_argument() -> None:
    result = exact_tool_match_reward(
        gen(oa("a", {}), oa("w", W)), gt(oa("a", {}), oa("w", {"city": "Boston", "unit": "c"}))
    )
    first, second = result.details.calls
    assert first.matched and not second.matched
    assert second.expected_index == 1 and second.mismatched_args == ["unit"]
    assert second.arg_agreement == 0.5
    assert "expected call 1 ('w')" in result.reason and "'unit'" in result.reason
    assert result.details.matched_count == 1
    assert result.details.call_precision == 0.5

    result = exact_tool_match_reward(gen(oa("w", W), oa("x", {})), gt(oa("w", W)))
    assert result.details.calls[1].expected_index is None
    assert result.details.calls[1].note == "generated call was not expected"
    assert "expected 1 tool call(s), got 2" in result.reason


SCHEMA = {"name": "w", "arguments": {"city": {"type": "string"}, "days": {"type": "number"}}}
JSON_SCHEMA = {
    "type": "function",
    "function": {
        "name": "w",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
            "required": ["city"],
        },
    },
}


@pytest.mark.parametrize(
    ("name", "args", "schema", "mode", "score"),
    [
        ("w", {"city": "B", "days": 2}, SCHEMA, "exact", 1.0),
        ("x", {"city": "B", "days": 2}, SCHEMA, "exact", 0.5),
        ("w", {"city": "B"}, SCHEMA, "exact", 0.5),  # missing
        ("w", {"city": "B", "days": 2, "x": 1}, SCHEMA, "exact", 0.5),  # extra
        ("w", {"city": "B", "days": "2"}, SCHEMA, "exact", 0.5),  # mistyped
        ("w", {"city": "B", "days": True}, SCHEMA, "exact", 0.5),  # True is not a number
        ("w", {"city": "B", "days": 2, "x": 1}, SCHEMA, "flexible", 1.0),
        ("w", {"city": "B", "days": 2, "x": 1}, SCHEMA, "permissive", 1.0),
        ("w", {"city": "B"}, SCHEMA, "flexible", 0.5),
        ("w", {"city": 1, "days": 2}, SCHEMA, "permissive", 0.5),
        ("w", {"city": "B"}, SCHEMA, "partial", 1.0),  # missing ignored
        ("w", {"city": "B", "x": 1}, SCHEMA, "partial", 0.75),  # half of provided is right
        ("w", {"city": 1, "days": "x"}, SCHEMA, "partial", 0.5),
        ("w", {}, SCHEMA, "partial", 0.5),
        ("w", {}, {"name": "w"}, "partial", 1.0),
        ("w", '{"city": "B", "days": 2}', SCHEMA, "exact", 1.0),  # JSON text
        ("w", "not json", SCHEMA, "exact", 0.5),
        ("w", {"city": "B"}, JSON_SCHEMA, "exact", 1.0),  # only `required` is required
        ("w", {"city": "B", "days": None}, JSON_SCHEMA, "exact", 1.0),
        ("w", {"city": "B", "days": 1.5}, JSON_SCHEMA, "exact", 0.5),
        ("w", {"days": 1}, JSON_SCHEMA, "flexible", 0.5),
        ("w", {"city": "B"}, json.dumps(JSON_SCHEMA), "exact", 1.0),
        ("w", {"x": [1]}, {"name": "w", "arguments": {"x": {}}}, "exact", 1.0),  # untyped
    ],
)
def test_match_function_call(name: str, args: Any, schema: Any, mode: str, score: float) -> None:
    result = match_function_call([], name, args, schema, argument_match_strictness=mode)
    assert result.score == score
    assert result.details.strictness == mode


def test_match_function_call_diagnostics_and_errors() -> None:
    r = match_function_call([], "w", {"days": "2", "x": 0}, SCHEMA)
    assert (r.details.missing_args, r.details.extra_args, r.details.type_mismatches) == (
        ["city"], ["x"], ["days"],
    )  # fmt: skip
    assert "missing" in r.reason and "mistyped" in r.reason
    with pytest.raises(ValueError, match="exact, partial, flexible, permissive"):
        match_function_call([], "w", {}, SCHEMA, argument_match_strictness="lenient")
    with pytest.raises(ValueError, match="not valid JSON"):
        match_function_call([], "w", {}, "{nope")


@pytest.mark.parametrize(
    "fn", [schema_jaccard_reward, llm_judge_reward, composite_function_call_reward]
)
def test_deprecated_wrappers_warn_and_delegate(fn: Any) -> None:
    with pytest.warns(DeprecationWarning, match="exact_tool_match_reward"):
        result = fn(gen(oa("w", W)), gt(oa("w", W)), expected_schema={}, weights={"a": 1})
    assert result == exact_tool_match_reward(gen(oa("w", W)), gt(oa("w", W)))
    with pytest.warns(DeprecationWarning):
        assert fn(gen(oa("w", W)), gt(oa("w", {}))).score == 0.0
