"""The matchers' meaning, held by one reference reading of the JSON (slow and obvious):
compiled matchers, ``values_equal``, every ``args`` mode of ``tool_call_match`` and
``exact_tool_match_reward`` must accept exactly what it accepts."""

from __future__ import annotations

import math
import re
from typing import Any

from agentloop.evals import (
    bfcl_normalize,
    compile_matchers,
    exact_tool_match_reward,
    expected_calls,
    matches,
    tool_call_match,
    values_equal,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.custom_matcher import PATH as HERE
from tests.support.custom_matcher import starts_with


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def same(a: Any, b: Any, numeric: bool = False) -> bool:
    """JSON identity: types and values equal; numeric: ints and floats by value."""
    if _number(a) and _number(b):
        if not numeric and type(a) is not type(b):
            return False
        return a == b or (a != a and b != b)  # NaN is itself
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], numeric) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, numeric) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _key(value: Any) -> str | None:
    if isinstance(value, dict):
        return next((k for k in value if k.startswith("$")), None)
    return None


def optional(expected: Any) -> bool:
    key = _key(expected)
    return key == "$optional" or (key == "$any" and any(map(optional, expected["$any"])))


def reference(value: Any, expected: Any, numeric: bool = False) -> bool:
    """Whether ``value`` is acceptable for the ground truth ``expected``, as documented."""
    key = _key(expected)
    if key == "$any":
        return any(reference(value, option, numeric) for option in expected["$any"])
    if key == "$optional":
        return reference(value, expected["$optional"], numeric)
    if key == "$regex":
        return isinstance(value, str) and re.fullmatch(expected["$regex"], value) is not None
    if key == "$approx":
        if not _number(value) or abs(value) > 1e308:
            return False
        rel, abs_ = expected.get("rel", 1e-9), expected.get("abs", 0.0)
        return math.isclose(value, expected["$approx"], rel_tol=rel, abs_tol=abs_)
    if key == "$normalized":
        want = bfcl_normalize(expected["$normalized"])
        return isinstance(value, str) and bfcl_normalize(value) == want
    if key == "$match":
        return starts_with(value, **{k: v for k, v in expected.items() if k != "$match"})
    if key == "$literal":
        return same(value, expected["$literal"], numeric)
    if isinstance(expected, dict):
        return (
            isinstance(value, dict)
            and all(k in expected for k in value)
            and all(
                reference(value[k], e, numeric) if k in value else optional(e)
                for k, e in expected.items()
            )
        )
    if isinstance(expected, list):
        return (
            isinstance(value, list)
            and len(value) == len(expected)
            and all(reference(v, e, numeric) for v, e in zip(value, expected, strict=True))
        )
    return same(value, expected, numeric)


def reference_args(mode: str, value: Any, expected: Any, numeric: bool) -> bool:
    """An ``args`` mode of ``tool_call_match`` on a call's arguments."""
    plain_object = isinstance(expected, dict) and _key(expected) is None
    if mode == "ignore":
        return True
    if mode == "exact" or not (plain_object and isinstance(value, dict)):
        return reference(value, expected, numeric)
    if mode == "subset":
        return all(k in expected and reference(v, expected[k], numeric) for k, v in value.items())
    return all(  # superset
        reference(value[k], e, numeric) if k in value else optional(e) for k, e in expected.items()
    )


numbers = (
    st.integers(-3, 3)
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0.0, -0.0, 1.0, 2.5, 1e300])
)
scalars = (
    st.none()
    | st.booleans()
    | numbers
    | st.text(max_size=6)
    | st.sampled_from(["a", "abc", "Ça va", "ß", "New York", "new-york", "日本", ""])
)
keys = st.sampled_from(["x", "y", "é", "名"]) | st.text(max_size=3).filter(
    lambda k: not k.startswith("$")
)
plain = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)
leaf_matchers = st.one_of(
    st.builds(lambda p: {"$regex": p}, st.sampled_from(["a.*", "[0-9]+", "日.", "(?i)abc"])),
    st.builds(lambda n, tol: {"$approx": n, **tol}, st.sampled_from([0, 1, 2.5, -1e-3]),
              st.sampled_from([{}, {"abs": 0.5}, {"rel": 0.1}, {"abs": 0, "rel": 0}])),
    st.builds(lambda s: {"$normalized": s}, st.sampled_from(["New York", "it's", "Ça va"])),
    st.builds(lambda extra: {"$match": HERE, **extra}, st.sampled_from([{}, {"prefix": "x"}])),
    st.builds(lambda v: {"$literal": v}, plain | st.just({"$any": [1]})),
)  # fmt: skip
expected_values = st.recursive(
    scalars | leaf_matchers,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(keys, inner, max_size=3)
        | st.builds(lambda options: {"$any": options}, st.lists(inner, max_size=3))
        | st.builds(lambda value: {"$optional": value}, inner)
    ),
    max_leaves=10,
)
SAMPLES = {"$regex": ["a", "abc", "7", "日本", "ABC"], "$normalized": ["new-york", "ITS", "ça va"],
           "$approx": [0, 1.0, 2.6, 3, True, "1"], "$match": ["abc", "xyz", 1]}  # fmt: skip


@st.composite
def instance(draw: st.DrawFn, expected: Any) -> Any:
    """A value the expected one should accept, unless a random mutation spoils it."""
    if draw(st.integers(0, 9)) == 0:
        return draw(scalars)
    key = _key(expected)
    if key == "$any":
        options = expected["$any"]
        return draw(instance(draw(st.sampled_from(options)))) if options else None
    if key == "$optional":
        return draw(instance(expected["$optional"]))
    if key == "$literal":
        return expected["$literal"]
    if key is not None:
        return draw(st.sampled_from(SAMPLES[key]))
    if isinstance(expected, dict):
        return {
            k: draw(instance(e))
            for k, e in expected.items()
            if not (optional(e) and draw(st.booleans()))
        }
    if isinstance(expected, list):
        return [draw(instance(e)) for e in expected]
    if _number(expected) and draw(st.booleans()):  # the same number, another JSON type
        return float(expected) if isinstance(expected, int) and abs(expected) < 2**53 else expected
    return expected


CHECK = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@CHECK
@given(st.data(), st.booleans())
def test_compiled_matchers_accept_what_the_reference_accepts(
    data: st.DataObject, numeric: bool
) -> None:
    expected = data.draw(expected_values)
    value = data.draw(instance(expected))
    assert matches(value, compile_matchers(expected), numeric) is reference(
        value, expected, numeric
    )


@CHECK
@given(st.data(), st.sampled_from(["exact", "ignore", "subset", "superset"]), st.booleans())
def test_tool_call_match_applies_each_args_mode_as_the_reference(
    data: st.DataObject, mode: str, numeric: bool
) -> None:
    expected = data.draw(st.dictionaries(keys, expected_values, max_size=3))
    objects = instance(expected).filter(lambda v: isinstance(v, dict))  # arguments are objects
    value = data.draw(objects | st.dictionaries(keys, plain, max_size=2))
    want = reference_args(mode, value, expected, numeric)
    made, truth = {"name": "f", "arguments": value}, {"name": "f", "arguments": expected}
    numbers = "numeric" if numeric else "exact"
    result = tool_call_match([made], [truth], args=mode, numbers=numbers)
    assert result.score == (1.0 if want else 0.0), result.reason
    # The expected side compiled ahead (as the harness does when it reads a row): the same.
    compiled = expected_calls([truth])
    assert tool_call_match([made], compiled, args=mode, numbers=numbers) == result
    overrides = {"f": {k: {"$any": [{"$literal": v}, "other"]} for k, v in value.items()}}
    assert tool_call_match(
        [made], compiled, args=mode, numbers=numbers, arg_overrides=overrides
    ) == tool_call_match([made], [truth], args=mode, numbers=numbers, arg_overrides=overrides)


@CHECK
@given(plain, st.data(), st.booleans())
def test_plain_values_compare_by_json_identity(
    expected: Any, data: st.DataObject, numeric: bool
) -> None:
    value = data.draw(instance(expected) | plain)
    want = same(value, expected, numeric)
    assert values_equal(value, expected, numeric) is want
    assert matches(value, expected, numeric) is want
    assert matches(value, {"$literal": expected}, numeric) is want
    assert matches(value, {"$any": [expected]}, numeric) is want


@CHECK
@given(st.dictionaries(keys, expected_values, max_size=3), st.data())
def test_exact_match_reads_no_matchers(expected: dict[str, Any], data: st.DataObject) -> None:
    value = data.draw(instance(expected).filter(lambda v: isinstance(v, dict)))
    made = {"role": "assistant", "tool_calls": [{"name": "f", "arguments": value}]}
    truth = {"tool_calls": [{"name": "f", "arguments": expected}]}
    assert exact_tool_match_reward([made], truth).score == (1.0 if same(value, expected) else 0.0)
