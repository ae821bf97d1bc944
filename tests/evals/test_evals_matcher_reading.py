"""``$any`` and ``$optional`` are read in place when they hold plain values (BFCL's common
shapes): at every depth, compiled ground truth must accept exactly what a direct reading
of the two matchers accepts, whether the matcher was kept as written or built."""

from __future__ import annotations

from typing import Any

from agentloop.evals import compile_matchers, matches, tool_call_match, values_equal
from agentloop.evals._matchers import compile_arguments, object_matches
from hypothesis import given, settings
from hypothesis import strategies as st

scalars = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from([1.0, "a", "b"])
keys = st.sampled_from(["x", "y", "z"])
# Plain containers, $any over options and $optional around a value, nested at random;
# $regex now and then, so that some $any are not plain and get built as matchers.
expected_values = st.recursive(
    scalars | st.builds(lambda p: {"$regex": p}, st.sampled_from(["a|b", "[0-9]"])),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(keys, inner, max_size=3)
        | st.builds(lambda options: {"$any": options}, st.lists(inner, max_size=3))
        | st.builds(lambda value: {"$optional": value}, inner)
    ),
    max_leaves=10,
)


def _key(value: dict[str, Any]) -> str | None:
    return next((k for k in value if k.startswith("$")), None)


def _optional(expected: Any) -> bool:
    if not isinstance(expected, dict):
        return False
    key = _key(expected)
    return key == "$optional" or (key == "$any" and any(map(_optional, expected["$any"])))


def reference(value: Any, expected: Any) -> bool:
    """The matchers' meaning, read directly from the JSON (slow and obvious)."""
    if isinstance(expected, dict):
        key = _key(expected)
        if key == "$any":
            return any(reference(value, option) for option in expected["$any"])
        if key == "$optional":
            return reference(value, expected["$optional"])
        if key == "$regex":
            return isinstance(value, str) and matches(value, compile_matchers(expected))
        return (
            isinstance(value, dict)
            and all(k in expected for k in value)
            and all(
                reference(value[k], e) if k in value else _optional(e) for k, e in expected.items()
            )
        )
    if isinstance(expected, list):
        return (
            isinstance(value, list)
            and len(value) == len(expected)
            and all(reference(v, e) for v, e in zip(value, expected, strict=True))
        )
    return values_equal(value, expected)


@st.composite
def instance(draw: st.DrawFn, expected: Any) -> Any:
    """A value the expected one should accept, unless a random mutation spoils it."""
    if draw(st.integers(0, 9)) == 0:
        return draw(scalars)
    if isinstance(expected, dict):
        key = _key(expected)
        if key == "$any":
            options = expected["$any"]
            return draw(instance(draw(st.sampled_from(options)))) if options else None
        if key == "$optional":
            return draw(instance(expected["$optional"]))
        if key == "$regex":
            return draw(st.sampled_from(["a", "7", "c"]))
        return {
            k: draw(instance(e))
            for k, e in expected.items()
            if not (_optional(e) and draw(st.booleans()))
        }
    if isinstance(expected, list):
        return [draw(instance(e)) for e in expected]
    return expected


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_compiled_matchers_accept_what_a_direct_reading_accepts(data: st.DataObject) -> None:
    expected = data.draw(expected_values)
    value = data.draw(instance(expected))
    want = reference(value, expected)
    assert matches(value, compile_matchers(expected)) is want
    if isinstance(expected, dict) and _key(expected) is None:  # as a call's arguments
        assert object_matches(value, compile_arguments(expected), False) is want
        if isinstance(value, dict):  # (missing arguments read as {})
            made, truth = {"name": "f", "arguments": value}, {"name": "f", "arguments": expected}
            assert tool_call_match([made], [truth]).score == (1.0 if want else 0.0)
