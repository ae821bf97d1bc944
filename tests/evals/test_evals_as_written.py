"""``tool_call_match`` pairs calls on expected arguments as written and compiles them only
when some call does not pair (``agentloop.evals._as_written``): reading them as written must give
what the compiled reading gives, and no bad matcher may go unreported."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from agentloop.evals import tool_call_match
from agentloop.evals._as_written import NotPlain, arguments_match
from agentloop.evals._matchers import compile_arguments, object_matches
from hypothesis import given, settings
from hypothesis import strategies as st

scalars = st.sampled_from([0, 1, 1.0, True, False, None, "a", "A", "", float("nan")])
plain = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=2)
    | st.dictionaries(st.sampled_from("pq"), inner, max_size=2),
    max_leaves=4,
)
# Matchers that must be compiled, and malformed ones (compiling raises ValueError).
compiled_only = st.sampled_from([
    {"$regex": "a|1"}, {"$normalized": "A"}, {"$approx": 1, "abs": 0.5},
    {"$literal": {"$any": [1]}},
    {"$regx": "a"}, {"$any": "a"}, {"$approx": "1"}, {"$any": [1], "$optional": 1},
])  # fmt: skip
option = plain | compiled_only | st.lists(compiled_only, min_size=1, max_size=1)
member = (
    plain
    | compiled_only
    | st.builds(lambda o: {"$any": o}, st.lists(option, max_size=3))
    | st.builds(lambda o: {"$optional": o}, plain | compiled_only)
    | st.builds(lambda o: {"$optional": {"$any": o}}, st.lists(option, max_size=3))
)


def _acceptable(draw: st.DrawFn, want: Any) -> Any:
    """A value the member most likely accepts (None: leave the argument out)."""
    if isinstance(want, dict) and len(want) == 1:
        if "$optional" in want:
            return None if draw(st.booleans()) else _acceptable(draw, want["$optional"])
        if isinstance(want.get("$any"), list) and want["$any"]:
            return _acceptable(draw, draw(st.sampled_from(want["$any"])))
    return want


@st.composite
def cases(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    expected = draw(st.dictionaries(st.sampled_from("xyz"), member, max_size=3))
    value = {k: v for k, w in expected.items() if (v := _acceptable(draw, w)) is not None}
    if draw(st.booleans()):  # now and then a changed, missing or extra argument
        value.update(draw(st.dictionaries(st.sampled_from("xyw"), scalars, max_size=1)))
    return value, expected


@settings(max_examples=500, deadline=None)
@given(cases(), st.booleans())
def test_reading_as_written_gives_the_compiled_reading(
    case: tuple[Any, dict[str, Any]], numeric: bool
) -> None:
    value, expected = case
    try:
        compiled: Any = compile_arguments(expected)
    except ValueError:
        compiled = None  # a bad matcher: reading as written must not accept it
    try:
        answer = arguments_match(value, expected, numeric)
    except NotPlain:
        return  # the caller compiles
    if answer:  # every member was read and is plain: compiling changes nothing
        assert compiled is expected
    if compiled is not None:
        assert answer == object_matches(value, compiled, numeric)


def A(**kwargs: Any) -> dict[str, Any]:
    return {"name": "A", "arguments": kwargs}


BAD = {"$regx": 1}


@pytest.mark.parametrize(
    "expected",
    [
        [A(x={"$any": [1, BAD]})],  # after the option that fits
        [A(x={"$any": [1, [BAD]]})],  # deeper in a later option
        [A(x=1, y={"$optional": {"$any": [BAD]}})],  # an $optional left out
        [A(x=1, y={"$optional": [BAD]})],
        [A(x=1), {"name": "B", "arguments": {"x": BAD}}],  # a call nothing pairs with
        [A(x=BAD)],
    ],
)
@pytest.mark.parametrize("order", ["strict", "unordered", "subset", "superset"])
def test_a_bad_matcher_is_reported_wherever_it_is(expected: list[Any], order: str) -> None:
    with pytest.raises(ValueError, match=r"\$regx"):
        tool_call_match([A(x=1)], expected, order=order)


def test_a_malformed_common_shape_is_reported_even_when_it_would_fit() -> None:
    with pytest.raises(ValueError, match=r"\$any needs a list"):
        tool_call_match([A(x="a")], [A(x={"$any": "a"})])  # not read as the options a


def test_plain_ground_truth_is_not_compiled_when_every_call_pairs() -> None:
    truth = [A(x={"$any": [1, 2]}, y={"$optional": "a"}), A(x=[1, 2])]
    with mock.patch("agentloop.evals._tool_match.expected_calls") as compiling:
        assert tool_call_match([A(x=[1, 2]), A(x=2)], truth, order="unordered").score == 1.0
    assert not compiling.called
    result = tool_call_match([A(x=3)], truth, order="unordered")  # compiled to diagnose
    assert result.score == 0.0 and result.details.matched_count == 0


def test_matchers_that_need_compiling_still_pair_at_once() -> None:
    truth = [A(x={"$regex": "[a-z]+"}, n={"$approx": 1.0, "abs": 0.1})]
    with mock.patch("agentloop.evals._tool_match.paired_by_rules") as full:
        assert tool_call_match([A(x="abc", n=1.05)], truth).score == 1.0
    assert not full.called
    assert tool_call_match([A(x="ABC", n=1.05)], truth).score == 0.0
