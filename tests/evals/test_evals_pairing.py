"""``tool_call_match`` pairs the common case at once (``paired_at_once``) and falls back to
full pairing otherwise: both ways must give the very same result, in every mode."""

from __future__ import annotations

import itertools
from typing import Any
from unittest import mock

from agentloop.evals import tool_call_match
from agentloop.evals._arg_rules import rules
from agentloop.evals._call_pairing import diagnostics, failure_reason, paired_by_rules
from agentloop.evals._calls import collect_calls
from agentloop.evals._report import make_result
from hypothesis import given, settings
from hypothesis import strategies as st

MODES = list(
    itertools.product(
        ["strict", "unordered", "subset", "superset"],
        ["exact", "ignore", "subset", "superset"],
        ["exact", "numeric"],
    )
)
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "required": ["x"],
        "properties": {"x": {"type": "integer"}, "y": {"type": "number"}}}}}
    for name in ("A", "B")
]  # fmt: skip
# A small space of calls, so that generated and expected calls often pair.
values = st.sampled_from([0, 1, 1.0, True, "1"])
expected_values = values | st.builds(lambda v: {"$any": v}, st.lists(values, max_size=2)) | (
    st.builds(lambda v: {"$optional": v}, values)
)
calls = st.builds(
    lambda name, args: {"name": name, "arguments": args},
    st.sampled_from(["A", "B", "C"]),
    st.dictionaries(st.sampled_from("xy"), values, max_size=2),
)


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[Any], list[Any]]:
    """Expected calls, and generated ones made from them: reordered, some dropped,
    changed or added, and the expected side given matchers now and then."""
    expected = draw(st.lists(calls, max_size=4))
    generated = draw(st.permutations(expected)) if draw(st.booleans()) else list(expected)
    if generated and draw(st.booleans()):
        del generated[draw(st.integers(0, len(generated) - 1))]
    generated += draw(st.lists(calls, max_size=1))
    truth = [
        {**c, "arguments": {k: draw(st.just(v) | expected_values) for k, v in args.items()}}
        for c in expected
        for args in [c["arguments"]]
    ]
    return generated, truth


@settings(max_examples=300, deadline=None)
@given(cases(), st.sampled_from(MODES), st.booleans())
def test_pairing_at_once_gives_what_full_pairing_gives(
    case: tuple[list[Any], list[Any]], modes: tuple[str, str, str], with_schema: bool
) -> None:
    generated, truth = case
    order, args, numbers = modes
    kwargs = {"order": order, "args": args, "numbers": numbers}
    if with_schema:
        kwargs["schema"] = TOOLS
    quick = tool_call_match(generated, truth, **kwargs)
    with mock.patch("agentloop.evals._tool_match.paired_at_once", return_value=None):
        full = tool_call_match(generated, truth, **kwargs)
    assert quick.model_dump() == full.model_dump()


def test_the_quick_path_is_taken_and_the_full_one_when_it_fails() -> None:
    a1, a2 = {"name": "A", "arguments": {"x": 1}}, {"name": "A", "arguments": {"x": 2}}
    with mock.patch("agentloop.evals._tool_match.paired_by_rules") as full:
        assert tool_call_match([a2, a1], [a1, a2], order="unordered").score == 1.0
    assert not full.called
    result = tool_call_match([a2, a1], [a1, a2])  # strict: only one of the two in order
    assert (result.score, result.details.matched_count) == (0.0, 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(calls, max_size=3), st.sampled_from(MODES), st.booleans())
def test_calls_when_none_are_expected_score_as_full_pairing_scores_them(
    generated: list[Any], modes: tuple[str, str, str], with_schema: bool
) -> None:
    """Nothing expected skips the pairing: the result is the general path's, built here
    from its parts."""
    order, args, numbers = modes
    schema = TOOLS if with_schema else None
    quick = tool_call_match(generated, {"tool_calls": []}, order=order, args=args,
                            numbers=numbers, schema=schema)  # fmt: skip
    numeric = numbers == "numeric"
    rule, per_tool, _values = rules(args, numeric, None)
    gen = collect_calls(generated, [], "generated")
    partners, ok = paired_by_rules(gen, [], None, rule, per_tool, order)
    calls = diagnostics(gen, [], partners, ok, args == "exact", per_tool, numeric)
    passed = order == "superset" or not gen
    reason = f"{order}: 0 of 0 expected and 0 of {len(gen)} generated calls paired"
    if not passed:
        reason = failure_reason(reason, order, calls, [], gen)
    full = make_result(float(passed), reason, gen, [], 0, calls, [], modes)
    assert quick.model_dump() == full.model_dump()
