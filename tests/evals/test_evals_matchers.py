"""Acceptable values in ground truth: each matcher, nesting, checks, and tool_call_match."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agentloop.evals import (
    check_matchers,
    compile_matchers,
    matches,
    parse_reward_specs,
    tool_call_match,
)

from tests.support.custom_matcher import PATH as HERE


@pytest.mark.parametrize(
    ("expected", "good", "bad"),
    [
        ({"$any": ["Paris", "paris"]}, ["paris"], ["PARIS", None]),
        ({"$any": []}, [], ["", None, []]),  # nothing is acceptable
        ({"$any": [1, {"$regex": "[0-9]+"}]}, [1, "42"], [2, "4x"]),
        ({"$regex": "a.c"}, ["abc"], ["abcd", "xabc", 3]),  # the whole string
        ({"$approx": 3.0, "abs": 0.01}, [3, 3.005], [3.02, True, "3"]),
        ({"$approx": 100.0, "rel": 0.1, "abs": 0}, [110.0], [112.0]),  # math.isclose
        ({"$normalized": "New York", "normalizer": "bfcl"}, ["new-york", "NEW_YORK"], ["NY"]),
        ({"$normalized": "it's"}, ['IT"S'], ["its"]),  # bfcl is the default normaliser
        ({"$match": HERE}, ["abc"], ["xyz", 1]),
        ({"$match": HERE, "prefix": "x"}, ["xyz"], ["abc"]),
        ({"$literal": {"$any": [1]}}, [{"$any": [1]}], [1]),
        ({"$optional": 1}, [1], [2]),
        ([{"$any": [1, 2]}, "x"], [[2, "x"], (1, "x")], [[2], [3, "x"]]),
        ({"a": {"b": [{"$regex": "z+"}]}}, [{"a": {"b": ["zz"]}}], [{"a": {"b": ["y"]}}]),
        ({"n": 1}, [{"n": 1}], [{"n": 1.0}, {"n": 1, "m": 2}]),  # plain: exactly this
    ],
)
def test_each_matcher(expected: Any, good: list[Any], bad: list[Any]) -> None:
    assert check_matchers(expected) == []
    compiled = compile_matchers(json.loads(json.dumps(expected)))  # it is JSON
    assert all(matches(v, compiled) for v in good)
    assert not any(matches(v, compiled) for v in bad)


def test_optional_members_may_be_left_out_anywhere() -> None:
    expected = compile_matchers({"a": 1, "b": {"$optional": {"$any": [2, 3]}},
                                 "c": {"d": {"$optional": "x"}}})  # fmt: skip
    assert matches({"a": 1, "c": {}}, expected)
    assert matches({"a": 1, "b": 3, "c": {"d": "x"}}, expected)
    assert not matches({"a": 1, "b": 4, "c": {}}, expected)
    assert not matches({"a": 1}, expected)  # c itself is not optional


def test_numeric_mode_reaches_inside_matchers() -> None:
    expected = compile_matchers({"$any": [1, [2]]})
    assert not matches(1.0, expected)
    assert matches(1.0, expected, numeric=True) and matches([2.0], expected, numeric=True)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"city": {"$anyy": ["Paris"]}}, "x.city: unknown matcher '$anyy'"),
        ({"c": {"$any": "Paris"}}, "x.c: $any needs a list"),
        ({"c": [{"$regex": "("}]}, "x.c[0]: $regex '(' is not a valid pattern"),
        ({"c": {"$regex": 3}}, "x.c: $regex needs a pattern string"),
        ({"c": {"$approx": True}}, "x.c: $approx needs a number"),
        ({"c": {"$approx": 1, "abs": -1}}, "x.c: $approx abs must be a number >= 0"),
        ({"c": {"$approx": 1, "tol": 1}}, "x.c: $approx takes no parameter(s) ['tol']"),
        ({"c": {"$normalized": "a", "normalizer": "nfc"}}, "x.c: unknown normalizer 'nfc'"),
        ({"c": {"$normalized": 1}}, "x.c: $normalized needs a string"),
        ({"c": {"$match": "no path"}}, "x.c: $match needs an import path"),
        ({"c": {"$any": [1], "$regex": "a"}}, "x.c: more than one matcher key"),
        ({"c": {"$any": [{"$optional": {"$oops": 1}}]}}, "x.c.$any[0].$optional: unknown"),
    ],
)
def test_check_matchers_names_the_place_and_the_problem(value: Any, problem: str) -> None:
    problems = check_matchers(value, "x")
    assert len(problems) == 1 and problems[0].startswith(problem), problems
    with pytest.raises(ValueError, match=r"^x?\.?c"):
        compile_matchers(value)


def test_a_custom_matcher_that_cannot_be_imported_is_one_line() -> None:
    with pytest.raises(ValueError, match=r"^\$match 'nowhere_at_all:fn' cannot be imported"):
        compile_matchers({"$match": "nowhere_at_all:fn"})


def c(name: str, **args: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": args}}


def test_tool_call_match_reads_matchers_in_every_args_mode() -> None:
    expected = [c("search", q={"$normalized": "New York"}, limit={"$optional": 10})]
    assert tool_call_match([c("search", q="new york")], expected).score == 1.0
    assert tool_call_match([c("search", q="NY")], expected).score == 0.0
    assert tool_call_match([c("search", q="new york", limit=10)], expected).score == 1.0
    assert tool_call_match([c("search", q="new york", limit=5)], expected).score == 0.0
    assert tool_call_match([c("search", q="newyork", x=1)], expected, args="superset").score == 1
    assert tool_call_match([c("search", limit=10)], expected, args="subset").score == 1.0
    assert tool_call_match([c("search", limit=9)], expected, args="subset").score == 0.0
    # A JSON-string ground truth works the same.
    as_text = json.dumps({"tool_calls": expected})
    assert tool_call_match([c("search", q="New-York")], as_text).score == 1.0


def test_unmatched_matchers_are_diagnosed() -> None:
    result = tool_call_match([c("f", city="Rome")], [c("f", city={"$any": ["Paris", "Lyon"]})])
    assert result.details.calls[0].mismatched_args == ["city"]
    assert "argument 'city' expected {'$any': ['Paris', 'Lyon']}, got 'Rome'" in result.reason
    optional = tool_call_match([c("f")], [c("f", city={"$optional": "Paris"})])
    assert (optional.score, optional.details.calls[0].missing_args) == (1.0, [])


def test_a_bad_matcher_in_the_ground_truth_raises() -> None:
    with pytest.raises(ValueError, match="unknown matcher '\\$anyy'"):
        tool_call_match([c("f", x=1)], [c("f", x={"$anyy": [1]})])


def test_arg_overrides_set_acceptable_values_per_tool_and_argument() -> None:
    overrides = {"search": {"q": {"$regex": "(?i).*paris.*"}, "page": {"$optional": 1}}}
    expected = [c("search", q="Paris", page=1), c("calc", x=1)]
    made = [c("search", q="hotels in paris"), c("calc", x=1)]
    assert tool_call_match(made, expected, arg_overrides=overrides).score == 1.0
    assert tool_call_match(made, expected).score == 0.0
    # From a config (YAML gives the same dicts), validated up front.
    spec = parse_reward_specs([{"tool_call_match": {"arg_overrides": overrides}}])
    assert spec[0].params["arg_overrides"] == overrides
    with pytest.raises(ValueError, match=r"arg_overrides\.search\.q: unknown matcher '\$re'"):
        parse_reward_specs([{"tool_call_match": {"arg_overrides": {"search": {"q": {"$re": 1}}}}}])


def test_nested_matchers_are_diagnosed_at_their_argument() -> None:
    expected = [c("f", a={"b": {"$any": ["x", "X"]}})]
    assert tool_call_match([c("f", a={"b": "X"})], expected).score == 1.0
    result = tool_call_match([c("f", a={"b": "Y"})], expected)
    assert (result.score, result.details.calls[0].mismatched_args) == (0.0, ["a"])
