"""The reward registry: spec parsing, registration and score_sample."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from agentloop.evals import (
    QAResult,
    RewardResult,
    SampleScore,
    expected_calls,
    parse_reward_specs,
    register_reward,
    registered_rewards,
    reward_keys,
    score_sample,
)
from agentloop.evals._registry import _REGISTRY
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agentloop.engine._trajectory import StepRecord, ToolCallRecord, Trajectory


def trajectory(final: str = "It is Paris") -> Trajectory:
    msgs = [
        HumanMessage("Capital of France?"),
        AIMessage("", tool_calls=[{"name": "search", "args": {"q": "France"}, "id": "1"}]),
        ToolMessage("Paris", tool_call_id="1"),
        AIMessage("", tool_calls=[{"name": "lookup", "args": {"id": 7}, "id": "2"}]),
        ToolMessage("ok", tool_call_id="2"),
        AIMessage(final),
    ]
    steps = [
        StepRecord(latency_s=0, tool_calls=[
            ToolCallRecord(id="1", name="search", args={"q": "France"}, status="ok")]),
        StepRecord(latency_s=0, tool_calls=[
            ToolCallRecord(id="2", name="lookup", args={"id": 7}, status="ok")]),
        StepRecord(latency_s=0),
    ]  # fmt: skip
    return Trajectory.build(msgs, steps, "final")


TRUTH = {
    "tool_calls": [
        {"name": "lookup", "arguments": {"id": 7}},
        {"name": "search", "arguments": {"q": "France"}},
    ]
}


@pytest.fixture
def clean_registry() -> Iterator[None]:
    saved = dict(_REGISTRY)
    yield
    _REGISTRY.clear()
    _REGISTRY.update(saved)


def test_parse_reward_specs() -> None:
    specs = parse_reward_specs(
        [
            "qa_f1_reward",
            {"qa_f1_reward_format": {"min_tool_messages": 2}},
            {"tool_call_match": {"order": "unordered", "numbers": "numeric"}},
            {"tool_call_match": None},
            "exact_tool_match_reward",
        ]
    )
    assert [s.key for s in specs] == [
        "qa_f1_reward", "qa_f1_reward_format", "tool_call_match", "tool_call_match#2",
        "exact_tool_match_reward",
    ]  # fmt: skip
    assert specs[2].params == {"order": "unordered", "numbers": "numeric"}
    assert specs[3].params == {}


@pytest.mark.parametrize(
    ("specs", "message"),
    [
        (
            ["nope"],
            "unknown reward 'nope'; known: answer_match, bfcl_verdict, env_response_match, "
            "env_state_match, exact_tool_match_reward",
        ),
        ("qa_f1_reward", "must be a list"),
        ({"qa_f1_reward": {}}, "must be a list"),
        ([{"a": {}, "b": {}}], "reward spec 0: expected a name or a one-key dict"),
        ([3], "reward spec 0"),
        ([{"tool_call_match": [1]}], r"expected \{name: \{params\}\}"),
        ([{"tool_call_match": {"orderr": "strict"}}], r"unknown parameter\(s\) \['orderr'\]"),
        ([{"qa_f1_reward": {"x": 1}}], "accepted: none"),
        ([{"tool_call_match": {"args": "fuzzy"}}], "unknown args mode 'fuzzy'"),
        ([{"tool_call_match": {"arg_overrides": {"f": "?"}}}], "unknown args mode '\\?'"),
        ([{"tool_call_match": {"arg_overrides": [1]}}], "arg_overrides must map"),
        ([{"qa_f1_reward_format": {"min_tool_messages": -1}}], "int >= 0"),
        ([{"qa_f1_reward_tool": {"min_tool_messages": "2"}}], "int >= 0"),
    ],
)
def test_parse_reward_specs_rejects(specs: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        parse_reward_specs(specs)
    assert "\n" not in str(info.value)


def test_score_sample_on_a_trajectory() -> None:
    score = score_sample(
        trajectory(),
        TRUTH,
        [
            "qa_f1_reward",
            {"qa_f1_reward_format": {"min_tool_messages": 3}},
            "exact_tool_match_reward",
            {"tool_call_match": {"order": "unordered"}},
        ],
        answer=["Paris", "Paris, France"],
    )
    assert isinstance(score, SampleScore)
    qa = score.results["qa_f1_reward"]
    assert isinstance(qa, QAResult) and qa.f1 == pytest.approx(0.5)
    assert score.results["qa_f1_reward_format"].score == 0.0  # only 2 tool messages
    assert score.results["exact_tool_match_reward"].score == 0.0  # order differs
    assert score.results["tool_call_match"].score == 1.0
    assert score.passed == {"exact_tool_match_reward": False, "tool_call_match": True}
    # subclass fields survive serialization
    dumped = json.loads(score.model_dump_json())
    assert dumped["results"]["qa_f1_reward"]["f1"] == pytest.approx(0.5)
    assert dumped["results"]["tool_call_match"]["details"]["matched_count"] == 2


def test_score_sample_accepts_message_lists_and_parsed_specs() -> None:
    specs = parse_reward_specs(["qa_f1_reward", "tool_call_match"])
    msgs = trajectory("Paris").to_openai_messages()
    truth = {"tool_calls": list(reversed(TRUTH["tool_calls"]))}
    score = score_sample(msgs, truth, specs, answer="Paris")
    assert score.results["qa_f1_reward"].score == 1.0
    assert score.results["tool_call_match"].score == 1.0  # all calls of the list, in order
    assert score_sample(msgs, truth, ["qa_f1_reward"]).results["qa_f1_reward"].score == 0.0


def test_pass_thresholds_are_exposed() -> None:
    rewards = registered_rewards()
    assert rewards["exact_tool_match_reward"].pass_threshold == 1.0
    assert rewards["tool_call_match"].pass_threshold == 1.0
    assert rewards["qa_f1_reward"].pass_threshold is None
    with pytest.raises(TypeError):
        rewards["x"] = rewards["qa_f1_reward"]  # type: ignore[index]


def test_register_reward(clean_registry: None) -> None:
    def length_ok(
        trajectory: Any, ground_truth: Any, *, answer: Any = None, limit: int = 10
    ) -> RewardResult[Any]:
        n = len(trajectory.final_answer or "")
        return QAResult.model_validate(
            {"score": float(n <= limit), "reason": f"{n} chars", "reward": 0.0, "f1": 0.0,
             "em": 0.0, "precision": 0.0, "recall": 0.0, "details": {"prediction": ""}}
        )  # fmt: skip

    register_reward("length_ok", length_ok, pass_threshold=1.0)
    with pytest.raises(ValueError, match="already registered"):
        register_reward("length_ok", length_ok)
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['max'\]; accepted: limit"):
        parse_reward_specs([{"length_ok": {"max": 3}}])
    score = score_sample(
        trajectory(), None, [{"length_ok": {"limit": 5}}, {"length_ok": {"limit": 50}}]
    )
    assert score.passed == {"length_ok": False, "length_ok#2": True}
    assert "length_ok" in registered_rewards()


def test_a_reward_returns_a_result_or_a_number(clean_registry: None) -> None:
    register_reward("bare", lambda trajectory, ground_truth, answer=None: 1.0)
    register_reward("flag", lambda final_answer: final_answer == "Paris")
    register_reward("text", lambda trajectory: "good")
    register_reward("big", lambda trajectory: 2)
    score = score_sample(trajectory("Paris"), None, ["bare", "flag"])
    bare = {"score": 1.0, "reason": "bare returned 1.0", "details": None}
    assert score.results["bare"].model_dump() == bare
    assert score.results["flag"].score == 1.0
    with pytest.raises(TypeError, match="reward 'text' returned str, not a RewardResult or a"):
        score_sample([], None, ["text"])
    with pytest.raises(ValueError, match=r"reward 'big' returned 2, outside \[0, 1\]"):
        score_sample([], None, ["big"])


def test_on_error_record_keeps_the_other_rewards(clean_registry: None) -> None:
    def broken(final_answer: Any) -> float:
        raise KeyError("x")

    register_reward("broken", broken)
    register_reward("big", lambda trajectory: 2)
    specs = ["broken", "qa_f1_reward", "big", "broken"]
    score = score_sample(trajectory("Paris"), None, specs, answer="Paris", on_error="record")
    assert list(score.results) == ["qa_f1_reward"] and score.results["qa_f1_reward"].score == 1.0
    assert score.errors == {
        "broken": "KeyError: 'x'",
        "big": "ValueError: reward 'big' returned 2, outside [0, 1]",
        "broken#2": "KeyError: 'x'",
    }
    with pytest.raises(KeyError):  # the default: the exception propagates
        score_sample(trajectory("Paris"), None, specs, answer="Paris")
    with pytest.raises(ValueError, match="on_error must be 'raise' or 'record', not 'skip'"):
        score_sample([], None, ["qa_f1_reward"], on_error="skip")  # type: ignore[arg-type]


def test_reward_keys_read_specs_without_resolving_them() -> None:
    specs = ["./mine.py:judge", {"./mine.py:judge": {"t": 1}}, {"no_such": {}}, 3, "no_such"]
    assert reward_keys(specs) == ["./mine.py:judge", "./mine.py:judge#2", "no_such", "no_such#2"]
    assert reward_keys("qa_f1_reward") == []  # not a list of specs


def test_rewards_ask_for_their_inputs_by_name(clean_registry: None) -> None:
    seen: dict[str, Any] = {}

    def spy(messages: Any, final_answer: Any, metadata: Any, row: Any, *, weight: float) -> float:
        seen.update(messages=messages, final=final_answer, metadata=metadata, row=row)
        return weight

    register_reward("spy", spy)
    with pytest.raises(ValueError, match=r"missing parameter\(s\) \['weight'\], neither an input"):
        parse_reward_specs(["spy"])
    msgs = trajectory("Paris").to_openai_messages()
    score = score_sample(msgs, None, [{"spy": {"weight": 0.5}}], metadata={"k": 1})
    assert score.results["spy"].score == 0.5
    assert seen == {"messages": msgs, "final": "Paris", "metadata": {"k": 1}, "row": None}
    # LangChain messages become OpenAI dicts; no metadata is an empty mapping.
    score_sample(list(trajectory("Paris").messages), None, [{"spy": {"weight": 1}}])
    assert seen["messages"] == msgs and seen["metadata"] == {}
    with pytest.raises(ValueError, match="has a ':'"):
        register_reward("pkg:spy", spy)
    with pytest.raises(ValueError, match="positional-only"):
        register_reward("po", lambda final_answer, /: 1.0)


def test_a_reward_may_ask_for_the_expected_calls_compiled(clean_registry: None) -> None:
    seen: list[Any] = []
    register_reward("spy", lambda expected_calls: seen.append(expected_calls) or 1.0)
    truth = {"tool_calls": [{"name": "f", "arguments": {"x": {"$any": [1, 2]}}}]}
    score_sample([], truth, ["spy"])
    [[call]] = seen
    assert (call.name, call.args, call.matcher.kind) == ("f", {"x": {"$any": [1, 2]}}, "object")
    # Compiled by the caller (the harness, when it reads the row): handed on as it is, and
    # tool_call_match reads it as it would the ground truth.
    compiled = expected_calls(truth)
    made = [{"role": "assistant", "tool_calls": [{"name": "f", "arguments": {"x": 2}}]}]
    score = score_sample(made, truth, ["spy", "tool_call_match"], expected=compiled)
    assert seen[1] is compiled and score.results["tool_call_match"].score == 1.0
    # A ground truth that cannot be read whole: None, and tool_call_match says why.
    score = score_sample(made, {"tool_calls": [{"nme": "f"}]}, ["spy", "tool_call_match"])
    assert seen[2] is None
    assert score.results["tool_call_match"].reason.startswith("unusable ground truth: tool call 0")


def test_registered_rewards_that_take_kwargs(clean_registry: None) -> None:
    register_reward("kw", lambda answer, **params: float(params["x"] == answer))
    assert score_sample([], None, [{"kw": {"x": "a"}}], answer="a").results["kw"].score == 1.0


def test_register_reward_with_kwargs_accepts_any_params(clean_registry: None) -> None:
    def anything(trajectory: Any, ground_truth: Any, **kwargs: Any) -> RewardResult[Any]:
        raise AssertionError("not called")

    register_reward("anything", anything)
    assert parse_reward_specs([{"anything": {"whatever": 1}}])[0].params == {"whatever": 1}


@pytest.mark.parametrize(
    "details",
    [{"a": 1, "nested": {"b": [1, 2.5, None]}}, [1, "x"], "text", 3, 0.5, True, None],
)
def test_custom_reward_with_plain_details_serialises(clean_registry: None, details: Any) -> None:
    def custom(trajectory: Any, ground_truth: Any, *, answer: Any = None) -> RewardResult[Any]:
        return RewardResult(score=0.5, reason="custom", details=details)

    register_reward("custom", custom)
    result = score_sample(trajectory(), None, ["custom"]).results["custom"]
    assert result.details == details
    expected = {"score": 0.5, "reason": "custom", "details": details}
    assert result.model_dump(mode="json") == expected
    assert json.loads(result.model_dump_json()) == expected
    assert repr(result)  # a half-built bare BaseModel used to break even repr


def test_custom_reward_details_may_be_any_model(clean_registry: None) -> None:
    from pydantic import BaseModel

    class Mine(BaseModel):
        hits: list[int]

    result = RewardResult(score=1.0, reason="ok", details=Mine(hits=[1, 2]))
    assert result.model_dump(mode="json")["details"] == {"hits": [1, 2]}
    register_reward("mine", lambda trajectory, ground_truth, answer=None: result)
    dumped = json.loads(score_sample([], None, ["mine"]).model_dump_json())
    assert dumped["results"]["mine"]["details"] == {"hits": [1, 2]}


def test_details_that_cannot_become_json_are_rejected_by_the_reward() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="JSON"):
        RewardResult(score=1.0, reason="x", details={"f": object()})


def test_score_sample_inside_a_running_loop_says_what_to_await() -> None:
    import anyio

    async def inside() -> None:
        with pytest.raises(RuntimeError, match=r"^score_sample was called inside a running "
                           r"event loop; await ascore_sample instead$"):  # fmt: skip
            score_sample([], None, ["qa_f1_reward"])

    anyio.run(inside)
