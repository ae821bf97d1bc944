"""tool_call_match: order/args/number modes, overrides, input shapes, partial credit."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agentloop.evals import exact_tool_match_reward, tool_call_match
from agentloop.evals._call_diagnostics import diagnose, fits
from agentloop.evals._calls import Call
from agentloop.evals._expected_calls import expected_calls
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agentloop.engine._trajectory import StepRecord, ToolCallRecord, Trajectory


def c(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args}


A1, A2, B, C = c("A", x=1), c("A", x=2), c("B"), c("C")

ORDER_CASES = [
    # (generated, expected, {order: score})
    ([A1, B], [A1, B], {"strict": 1, "unordered": 1, "subset": 1, "superset": 1}),
    ([B, A1], [A1, B], {"strict": 0, "unordered": 1, "subset": 1, "superset": 1}),
    ([A1], [A1, B], {"strict": 0, "unordered": 0, "subset": 1, "superset": 0}),
    ([A1, B, C], [A1, B], {"strict": 0, "unordered": 0, "subset": 0, "superset": 1}),
    ([A1, A1], [A1], {"strict": 0, "unordered": 0, "subset": 0, "superset": 1}),  # multiset
    ([A1], [A1, A1], {"strict": 0, "unordered": 0, "subset": 1, "superset": 0}),
    ([A2, B], [A1, B], {"strict": 0, "unordered": 0, "subset": 0, "superset": 0}),
    ([], [], {"strict": 1, "unordered": 1, "subset": 1, "superset": 1}),
    ([], [A1], {"strict": 0, "unordered": 0, "subset": 1, "superset": 0}),
    ([A1], [], {"strict": 0, "unordered": 0, "subset": 0, "superset": 1}),
]


@pytest.mark.parametrize(("generated", "expected", "scores"), ORDER_CASES)
@pytest.mark.parametrize("order", ["strict", "unordered", "subset", "superset"])
def test_order_modes(generated: Any, expected: Any, scores: dict[str, int], order: str) -> None:
    assert tool_call_match(generated, expected, order=order).score == scores[order]


@pytest.mark.parametrize(
    ("generated", "expected", "mode", "score"),
    [
        (c("f", x=1), c("f", x=1), "exact", 1),
        (c("f", x=1), c("f", x=1, y=2), "exact", 0),
        (c("f", x=1), c("f", x=2), "ignore", 1),
        (c("g", x=1), c("f", x=1), "ignore", 0),  # names always count
        (c("f", x=1), c("f", x=1, y=2), "subset", 1),
        (c("f", x=1, y=2), c("f", x=1), "subset", 0),
        (c("f", x=2), c("f", x=1, y=2), "subset", 0),
        (c("f", x=1, y=2), c("f", x=1), "superset", 1),
        (c("f", x=1), c("f", x=1, y=2), "superset", 0),
        (c("f"), c("f"), "subset", 1),
        ({"name": "f", "arguments": "raw"}, {"name": "f", "arguments": "raw"}, "subset", 1),
        ({"name": "f", "arguments": "raw"}, c("f"), "superset", 0),
    ],
)
def test_args_modes(generated: Any, expected: Any, mode: str, score: int) -> None:
    assert tool_call_match([generated], [expected], args=mode).score == score


@pytest.mark.parametrize(
    ("generated", "expected", "exact", "numeric"),
    [
        (1, 1.0, 0, 1),
        (True, 1, 0, 0),  # booleans are never numbers
        (False, 0.0, 0, 0),
        ([1, {"y": 2}], [1.0, {"y": 2.0}], 0, 1),  # recursively
        ({"deep": [[3]]}, {"deep": [[3.0]]}, 0, 1),
        (1.5, 1.5, 1, 1),
        (1, 2.0, 0, 0),
        ("1", 1, 0, 0),
        (None, 0, 0, 0),
    ],
)
def test_number_modes(generated: Any, expected: Any, exact: int, numeric: int) -> None:
    g, e = [c("f", v=generated)], [c("f", v=expected)]
    assert tool_call_match(g, e, numbers="exact").score == exact
    assert tool_call_match(g, e, numbers="numeric").score == numeric


def greedy_pairing(ok: list[list[bool]]) -> int:
    """First-fit pairing: what a naive implementation would do."""
    taken: set[int] = set()
    for row in ok:
        for j, fit in enumerate(row):
            if fit and j not in taken:
                taken.add(j)
                break
    return len(taken)


def test_bipartite_matching_beats_greedy() -> None:
    generated = [c("A", x=1), c("A", x=1, y=2)]
    expected = [c("A", x=1, y=2), c("A", x=1)]
    calls = [Call(g["name"], g["arguments"]) for g in generated]
    ok = [[fits("subset", diagnose(0, e, 0, g, False, False)) for e in expected_calls(expected)]
          for g in calls]  # fmt: skip
    assert greedy_pairing(ok) == 1  # greedy takes expected 0 for generated 0 and is stuck
    result = tool_call_match(generated, expected, order="unordered", args="subset")
    assert result.score == 1.0 and result.details.matched_count == 2
    assert tool_call_match(generated, expected, order="unordered", args="exact").score == 1.0
    assert tool_call_match(generated, expected, order="subset", args="subset").score == 1.0


def test_arg_overrides() -> None:
    gen = [c("search", q="Paris weather", page=1), c("calc", x=1)]
    exp = [c("search", q="paris"), c("calc", x=1)]
    assert tool_call_match(gen, exp).score == 0.0
    loose = {"search": lambda g, e: e["q"].lower() in g["q"].lower()}
    assert tool_call_match(gen, exp, arg_overrides=loose).score == 1.0
    assert tool_call_match(gen, exp, arg_overrides={"search": "ignore"}).score == 1.0
    # overrides apply per tool: calc is still exact
    assert tool_call_match(gen, [c("search"), c("calc", x=2)], arg_overrides={"search": "ignore"}
                           ).score == 0.0  # fmt: skip


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"order": "any"}, "order mode 'any'; valid: strict, unordered, subset, superset"),
        ({"args": "loose"}, "args mode 'loose'; valid: exact, ignore, subset, superset"),
        ({"args": ["exact"]}, r"args mode \['exact'\]; valid"),  # (modes are looked up)
        ({"order": ["strict"]}, r"order mode \['strict'\]; valid"),
        ({"numbers": "fuzzy"}, "numbers mode 'fuzzy'; valid: exact, numeric"),
        ({"arg_overrides": {"f": "fuzzy"}}, "override for 'f'.*valid: exact, ignore"),
        ({"arg_overrides": {"f": 3}}, "must be one of exact, ignore, subset, superset"),
    ],
)
def test_unknown_modes_raise(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        tool_call_match([], [], **kwargs)


def oa(name: str, args: dict[str, Any], call_id: str = "1") -> dict[str, Any]:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}  # fmt: skip


def trajectory() -> Trajectory:
    msgs = [
        HumanMessage("q"),
        AIMessage("", tool_calls=[{"name": "A", "args": {"x": 1}, "id": "1"}]),
        ToolMessage("r", tool_call_id="1"),
        AIMessage("", tool_calls=[{"name": "B", "args": {}, "id": "2"}]),
        ToolMessage("r", tool_call_id="2"),
        AIMessage("done"),
    ]
    steps = [
        StepRecord(latency_s=0, tool_calls=[ToolCallRecord(id="1", name="A", args={"x": 1},
                                                           status="ok")]),
        StepRecord(latency_s=0, tool_calls=[ToolCallRecord(id="2", name="B", args={},
                                                           status="ok")]),
    ]  # fmt: skip
    return Trajectory.build(msgs, steps, "final")


EXPECTED = [c("A", x=1), c("B")]
SHAPES = {
    "trajectory": trajectory(),
    "openai messages": trajectory().to_openai_messages(),
    "langchain messages": trajectory().messages,
    "ground truth dict": {"tool_calls": [oa("A", {"x": 1}), oa("B", {})]},
    "openai calls": [oa("A", {"x": 1}), oa("B", {})],
    "langchain calls": [{"name": "A", "args": {"x": 1}, "id": "1"}, {"name": "B", "args": {}}],
    "name/arguments calls": EXPECTED,
    "name/parameters calls": [{"name": "A", "parameters": {"x": 1}}, {"name": "B"}],
    "json string": json.dumps({"tool_calls": EXPECTED}),
    "content blocks": [{"role": "assistant", "content": "<tool_call>"
                        + json.dumps(c("A", x=1)) + "</tool_call><tool_call>"
                        + json.dumps(c("B")) + "</tool_call>"}],
}  # fmt: skip


@pytest.mark.parametrize("shape", SHAPES)
def test_input_shapes(shape: str) -> None:
    result = tool_call_match(SHAPES[shape], EXPECTED)
    assert result.score == 1.0, result.reason
    assert tool_call_match(EXPECTED, SHAPES[shape]).score == 1.0


def test_message_lists_ignore_content_of_non_assistant_messages() -> None:
    text = "<tool_call>" + json.dumps(c("A", x=1)) + "</tool_call>"
    msgs = [{"role": "user", "content": text}, {"role": "tool", "content": text}]
    assert tool_call_match(msgs, []).score == 1.0


def test_partial_credit() -> None:
    gen = [c("A", x=1, y=2), c("B"), c("D")]
    exp = [c("A", x=1, y=3), c("B"), c("C")]
    result = tool_call_match(gen, exp, order="unordered")
    d = result.details
    assert result.score == 0.0
    assert d.matched_count == 1
    assert (d.call_precision, d.call_recall) == (1 / 3, 1 / 3)
    assert d.call_f1 == pytest.approx(1 / 3)
    by_expected = {x.expected_index: x for x in d.calls}
    assert by_expected[0].generated_index == 0 and by_expected[0].arg_agreement == 0.5
    assert by_expected[0].mismatched_args == ["y"]
    assert by_expected[1].matched and by_expected[1].arg_agreement == 1.0
    assert by_expected[2].generated_index is None and by_expected[2].arg_agreement == 0.0
    assert by_expected[None].generated_name == "D"
    assert d.mean_arg_agreement == pytest.approx(0.5)
    assert "expected call 0 ('A')" in result.reason


def test_strict_partial_credit_uses_order_preserving_alignment() -> None:
    result = tool_call_match([B, A1, C], [A1, C])
    assert result.score == 0.0
    assert result.details.matched_count == 2  # A1 and C align in order; B is extra
    assert result.details.call_recall == 1.0
    swapped = tool_call_match([B, A1], [A1, B])
    assert swapped.details.matched_count == 1
    unpaired = [d for d in swapped.details.calls if not d.matched and d.expected_index is not None]
    assert unpaired[0].note == "fits the rules but could not be paired (order or count)"


def test_failure_reason_points_at_the_failing_side() -> None:
    assert "was not expected" in tool_call_match([A1, B], [A1], order="subset").reason
    assert "was not made" in tool_call_match([A1], [A1, B], order="superset").reason


def test_a_ground_truth_changed_in_place_is_read_again() -> None:
    # Compiled on each call: nothing is remembered per ground-truth object.
    truth = {"tool_calls": [{"name": "A", "arguments": {"x": {"$any": [1, 2]}}}]}
    made = [{"name": "A", "arguments": {"x": 3}}]
    assert tool_call_match(made, truth).score == 0.0
    truth["tool_calls"][0]["arguments"]["x"]["$any"].append(3)
    assert tool_call_match(made, truth).score == 1.0
    truth["tool_calls"].append({"name": "B", "arguments": {}})
    assert tool_call_match(made, truth).details.expected_count == 2


def test_paired_calls_report_full_agreement() -> None:
    exp = [{"name": "A", "arguments": {"x": {"$any": [1, 2]}, "y": {"$optional": 5}}}]
    result = tool_call_match([{"name": "A", "arguments": {"x": 2}}], exp, order="unordered")
    (d,) = result.details.calls
    assert (d.matched, d.arg_agreement, d.missing_args, d.mismatched_args) == (True, 1.0, [], [])
    # under a looser rule, the pair's differences are still spelled out
    loose = tool_call_match([{"name": "A", "arguments": {"x": 2, "z": 1}}], exp, args="ignore")
    assert loose.details.calls[0].extra_args == ["z"]


W = {"name": "get_weather", "arguments": {"city": "Paris"}}


@pytest.mark.parametrize(
    ("truth", "problem"),
    [
        (
            {"tool_calls": [{"nme": "get_weather", "arguments": {}}]},
            "ground truth: tool call 0 has no name or function",
        ),
        (
            {"tool_calls": [{"type": "function", "function": {"arguments": {}}}]},
            "ground truth: tool call 0 has no function name",
        ),
        (
            {"tool_calls": [W, {"name": "", "arguments": {}}]},
            "ground truth: tool call 1 has no function name",
        ),
        ({"tool_calls": [W, 42]}, "ground truth: tool call 1 has no name or function"),
        ({"tool_calls": "get_weather"}, "ground truth: tool_calls is a str, not a list"),
    ],
)
@pytest.mark.parametrize("made", [[], [W]])
def test_an_unusable_ground_truth_is_an_error_with_a_reason_in_both_rewards(
    truth: Any, problem: str, made: list[Any]
) -> None:
    reply = [{"role": "assistant", "content": "", "tool_calls": made}]
    for result in (exact_tool_match_reward(reply, truth), tool_call_match(reply, truth)):
        assert result.score == 0.0
        assert result.reason == f"unusable {problem}"
        assert result.details.expected_count == 0


@pytest.mark.parametrize("truth", [None, {}, {"answer": "Paris"}, "{}", {"tool_calls": []}])
def test_a_ground_truth_without_calls_expects_none(truth: Any) -> None:
    reply = [{"role": "assistant", "content": "Paris"}]
    for result in (exact_tool_match_reward(reply, truth), tool_call_match(reply, truth)):
        assert (result.score, result.details.expected_count) == (1.0, 0), result.reason
    assert tool_call_match([W], truth).score == 0.0


def test_a_ground_truth_string_that_is_not_json_is_unusable() -> None:
    reply = [{"role": "assistant", "content": "Paris"}]
    for result in (exact_tool_match_reward(reply, "{oops"), tool_call_match(reply, "{oops")):
        assert result.score == 0.0 and "not JSON" in result.reason
