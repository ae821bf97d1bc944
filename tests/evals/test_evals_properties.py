"""Invariants over generated inputs: self-match, permutation invariance, bounds, no crashes."""

from __future__ import annotations

import itertools
import json
from typing import Any

from agentloop.evals import (
    exact_tool_match_reward,
    match_function_call,
    normalize_answer,
    qa_f1_reward,
    qa_f1_reward_format,
    tool_call_match,
    values_equal,
)
from agentloop.evals._calls import call_fields, collect_calls, deserialize_args
from agentloop.evals._pairing import max_matching
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

# Modest budgets: the whole evals suite stays well under a minute.
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True) | st.text(max_size=5)
)
# A key starting with "$" makes a ground-truth object a matcher: plain data avoids them.
plain_keys = st.text(max_size=3).filter(lambda k: not k.startswith("$"))
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(plain_keys, inner, max_size=3),
    max_leaves=8,
)
arg_dicts = st.dictionaries(st.sampled_from("xyz"), json_values, max_size=3)
names = st.sampled_from(["A", "B", "C"])


@st.composite
def calls(draw: st.DrawFn) -> dict[str, Any]:
    """One call in a random accepted shape."""
    name, args = draw(names), draw(arg_dicts)
    shape = draw(st.sampled_from(["openai", "langchain", "arguments", "parameters"]))
    if shape == "openai":
        return {"id": "1", "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)}}  # fmt: skip
    key = {"langchain": "args", "arguments": "arguments", "parameters": "parameters"}[shape]
    return {"name": name, key: args}


call_lists = st.lists(calls(), max_size=5)
MODES = list(
    itertools.product(
        ["strict", "unordered", "subset", "superset"],
        ["exact", "ignore", "subset", "superset"],
        ["exact", "numeric"],
    )
)


@FAST
@given(call_lists)
def test_a_call_list_matches_itself_in_every_mode(generated: list[dict[str, Any]]) -> None:
    for order, args, numbers in MODES:
        result = tool_call_match(generated, generated, order=order, args=args, numbers=numbers)
        assert result.score == 1.0, (order, args, numbers, result.reason)
        assert type(result).model_validate(result.model_dump()) == result
    assert exact_tool_match_reward([{"role": "assistant", "tool_calls": generated}],
                                   {"tool_calls": generated}).score == 1.0  # fmt: skip


@FAST
@given(call_lists, call_lists, st.randoms(use_true_random=False), st.sampled_from(MODES))
def test_unordered_is_invariant_under_permutation(
    generated: list[Any], expected: list[Any], rnd: Any, modes: tuple[str, str, str]
) -> None:
    _, args, numbers = modes
    before = tool_call_match(generated, expected, order="unordered", args=args, numbers=numbers)
    shuffled_gen, shuffled_exp = generated[:], expected[:]
    rnd.shuffle(shuffled_gen)
    rnd.shuffle(shuffled_exp)
    after = tool_call_match(shuffled_gen, shuffled_exp, order="unordered", args=args,
                            numbers=numbers)  # fmt: skip
    assert after.score == before.score
    assert after.details.matched_count == before.details.matched_count
    assert after.details.call_f1 == before.details.call_f1
    # and a permutation of the same list always matches
    assert tool_call_match(shuffled_gen, generated, order="unordered").score == 1.0


@FAST
@given(call_lists, call_lists, st.sampled_from(MODES))
def test_scores_stay_in_bounds(generated: list[Any], expected: list[Any], modes: Any) -> None:
    order, args, numbers = modes
    result = tool_call_match(generated, expected, order=order, args=args, numbers=numbers)
    d = result.details
    for value in (result.score, d.call_precision, d.call_recall, d.call_f1, d.mean_arg_agreement):
        assert 0.0 <= value <= 1.0
    assert all(0.0 <= x.arg_agreement <= 1.0 for x in d.calls)
    assert d.matched_count <= min(d.generated_count, d.expected_count)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.integers(0, 4), max_size=5), max_size=5))
def test_matching_is_maximum(raw: list[list[int]]) -> None:
    adjacency = [sorted(set(row)) for row in raw]
    match = max_matching(adjacency, 5)
    used = [j for j in match if j >= 0]
    assert len(used) == len(set(used))
    assert all(j < 0 or j in adjacency[i] for i, j in enumerate(match))
    best = 0  # brute force over assignments
    for choice in itertools.product(*[[*row, -1] for row in adjacency]):
        picked = [j for j in choice if j >= 0]
        if len(picked) == len(set(picked)):
            best = max(best, len(picked))
    assert len(used) == best


@FAST
@given(json_values)
def test_values_equal_is_reflexive(value: Any) -> None:
    assert values_equal(value, value)
    assert values_equal(value, json.loads(json.dumps(value)), numeric=True) or _has_tuple(value)


def _has_tuple(value: Any) -> bool:
    return isinstance(value, tuple)


# Junk: anything a broken model or dataset could hand over.
junk_leaf = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20) | (
    st.sampled_from(["<tool_call>{}</tool_call>", "<tool_call>[1]</tool_call>",
                     '<tool_call>{"name": 1}</tool_call>', "<tool_call>{bad</tool_call>"])
)  # fmt: skip
keys = st.sampled_from(
    ["role", "content", "tool_calls", "function", "name", "arguments", "args", "parameters",
     "type", "invalid_tool_calls", "id"]
)  # fmt: skip
junk = st.recursive(
    junk_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=12,
)
lc_messages = st.sampled_from([
    AIMessage("x"), HumanMessage("y"), ToolMessage("z", tool_call_id="1"),
    AIMessage("", tool_calls=[{"name": "A", "args": {"x": 1}, "id": "1"}]),
    AIMessage([{"type": "text", "text": "<tool_call>{\"name\": \"A\"}</tool_call>"}]),
])  # fmt: skip
anything = junk | st.lists(junk | lc_messages, max_size=4)


@settings(max_examples=200, deadline=None)
@given(anything, anything, st.sampled_from(MODES))
def test_no_input_crashes(messages: Any, truth: Any, modes: Any) -> None:
    order, args, numbers = modes
    for result in (
        exact_tool_match_reward(messages, truth),
        tool_call_match(messages, truth, order=order, args=args, numbers=numbers),
        qa_f1_reward_format(messages, truth, messages),
        qa_f1_reward(truth, messages),
        match_function_call(messages, "A", messages, {"name": "A", "arguments": {"x": {}}}),
    ):
        assert 0.0 <= result.score <= 1.0
        assert isinstance(result.reason, str)
        # a result survives its own JSON unchanged
        assert type(result).model_validate_json(result.model_dump_json()) == result


@FAST
@given(st.text(max_size=30), st.text(max_size=30) | st.lists(st.text(max_size=10), max_size=3))
def test_qa_metrics_are_consistent(prediction: str, gold: Any) -> None:
    r = qa_f1_reward(prediction, gold)
    assert type(r).model_validate(r.model_dump()) == r
    for value in (r.score, r.f1, r.em, r.precision, r.recall):
        assert 0.0 <= value <= 1.0
    assert r.score == r.reward == r.f1
    assert r.em <= r.f1  # an exact match is a perfect F1
    if r.f1 > 0:
        assert r.f1 <= max(r.precision, r.recall)


@FAST
@given(st.text(max_size=30))
def test_a_non_blank_answer_matches_itself(text: str) -> None:
    r = qa_f1_reward(text, text)
    assert r.f1 == (1.0 if text.strip() else 0.0)
    assert normalize_answer(normalize_answer(text)) == normalize_answer(text)


call_keys = st.sampled_from(["name", "args", "arguments", "parameters", "function", "id"])
call_values = st.none() | st.integers(0, 2) | st.text(max_size=3) | arg_dicts
bare_items = st.dictionaries(call_keys, call_values, max_size=4) | st.builds(
    lambda n, a, extra: {"name": n, "arguments": a, **extra},
    names | st.integers(0, 2),
    arg_dicts | st.text(max_size=3),
    st.dictionaries(call_keys, call_values, max_size=2),
)


@FAST
@given(st.lists(bare_items, max_size=3))
def test_a_list_of_bare_calls_reads_as_each_call_says(items: list[dict[str, Any]]) -> None:
    # The oracle is the reading of one call (call_fields): a list of bare calls and
    # {"tool_calls": [...]} give each call as it says.
    want = []
    for item in items:
        fields = call_fields(item)
        if fields is not None:
            name, args = fields
            want.append((name if isinstance(name, str) else "", deserialize_args(args)))
    assert [(c.name, c.args) for c in collect_calls(items, [])] == want
    if items:
        assert [(c.name, c.args) for c in collect_calls({"tool_calls": items}, [])] == want
