"""The schema rules' quick readings against their general ones: ``schema_problems`` (reads
only the tools the calls need) against the whole index, and the one-loop check of scalar
array items against the check item by item."""

from __future__ import annotations

from typing import Any

from agentloop.evals._calls import Call
from agentloop.evals._schema_rules import (
    schema_index,
    schema_problem,
    schema_problems,
    type_problem,
)
from hypothesis import given, settings
from hypothesis import strategies as st

TYPES = ["string", "integer", "number", "boolean", "array", "object", "null", "any"]
scalars = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from([1.5, "a"])
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=8)
names = st.sampled_from(["f", "g", "h"])
params = st.sampled_from(["x", "y"])
param_schemas = st.recursive(
    st.builds(lambda t: {"type": t}, st.sampled_from(TYPES)) | st.just({}),
    lambda inner: st.builds(lambda items: {"type": "array", "items": items}, inner),
    max_leaves=3,
)


@st.composite
def tool_lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    tools = []
    for name in draw(st.lists(names, unique=True, max_size=3)):
        props = draw(st.dictionaries(params, param_schemas, max_size=2))
        required = draw(st.lists(st.sampled_from(sorted(props) or ["x"]), unique=True))
        function = {"name": name, "parameters": {"properties": props, "required": required}}
        tools.append(draw(st.sampled_from([function, {"type": "function", "function": function}])))
    return tools


calls = st.lists(st.builds(Call, names, st.dictionaries(params, values, max_size=2)), max_size=3)


@settings(max_examples=400, deadline=None)
@given(tool_lists(), calls, calls)
def test_schema_problems_read_as_the_whole_index_does(
    tools: list[dict[str, Any]], gen: list[Call], exp: list[Call]
) -> None:
    index = schema_index(tools)
    expected_names = {e.name for e in exp}
    want = [schema_problem(g, index) if g.name in expected_names else None for g in gen]
    assert schema_problems(tools, gen, exp) == want


def item_by_item(value: list[Any], items: dict[str, Any]) -> str | None:
    for i, item in enumerate(value):
        problem = type_problem(item, items)
        if problem is not None:
            return f"item {i}: {problem}"
    return None


@settings(max_examples=400, deadline=None)
@given(st.lists(values, max_size=5), param_schemas)
def test_scalar_items_are_checked_as_item_by_item(value: list[Any], items: dict[str, Any]) -> None:
    assert type_problem(value, {"type": "array", "items": items}) == item_by_item(value, items)


def test_required_names_that_are_not_strings_are_read_as_strings() -> None:
    tool = {"name": "f", "parameters": {"properties": {"5": {}, "x": {}}, "required": [5, "x"]}}
    assert schema_problems([tool], [Call("f", {"5": 1, "x": 2})], [Call("f", {})]) == [None]
    assert schema_problems([tool], [Call("f", {"x": 2})], [Call("f", {})]) == [
        "missing required parameter '5'"
    ]
