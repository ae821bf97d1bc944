"""tool_call_match(schema=...): declared and required parameters, BFCL's Python types."""

from __future__ import annotations

from typing import Any

import pytest
from agentloop.evals import parse_reward_specs, score_sample, tool_call_match

TOOLS = [
    {"type": "function", "function": {"name": "book", "parameters": {
        "type": "object",
        "required": ["city", "nights"],
        "properties": {
            "city": {"type": "string"},
            "nights": {"type": "integer"},
            "budget": {"type": "number"},
            "breakfast": {"type": "boolean"},
            "guests": {"type": "array", "items": {"type": "string"}},
            "prefs": {"type": "object"},
            "note": {},
            "floor": {"type": ["integer", "null"]},
        },
    }}},
]  # fmt: skip


def c(name: str = "book", **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args}


OK = {"city": "Rome", "nights": 2}


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({**OK, "budget": 100}, None),  # an int is a number
        ({**OK, "budget": 99.5, "breakfast": False, "guests": ["a"], "prefs": {}}, None),
        ({**OK, "note": [1]}, None),  # no type declared: anything
        ({"city": "Rome"}, "missing required parameter 'nights'"),
        ({**OK, "pets": 1}, "undeclared parameter 'pets'"),
        ({**OK, "nights": 2.0}, "type of parameter 'nights': expected integer, got float"),
        ({**OK, "budget": True}, "type of parameter 'budget': expected number, got bool"),
        ({**OK, "breakfast": 1}, "type of parameter 'breakfast': expected boolean, got int"),
        ({**OK, "guests": ["a", 2]}, "type of parameter 'guests': item 1: expected string"),
        ({**OK, "prefs": []}, "type of parameter 'prefs': expected object, got list"),
        ({**OK, "floor": None}, None),  # a list of types: any of them
        ({**OK, "floor": "3"}, "type of parameter 'floor': expected integer/null, got str"),
    ],
)
def test_schema_rules(args: dict[str, Any], problem: str | None) -> None:
    # args="ignore": only the schema decides.
    result = tool_call_match([c(**args)], [c(**OK)], args="ignore", schema=TOOLS)
    if problem is None:
        assert result.score == 1.0, result.reason
    else:
        assert result.score == 0.0
        assert f"schema: {problem}" in result.reason, result.reason
        assert problem in result.details.calls[0].note


def test_an_undeclared_tool_breaks_the_schema() -> None:
    result = tool_call_match([c("fly")], [c("fly")], schema=TOOLS)
    assert result.score == 0.0 and "schema: tool 'fly' is not declared" in result.reason
    assert tool_call_match([c("fly")], [c("fly")]).score == 1.0  # no schema, no rule


def test_schema_row_takes_the_rows_tools() -> None:
    specs = parse_reward_specs([{"tool_call_match": {"schema": "row", "args": "ignore"}}])
    row = {"tools": TOOLS}
    good = score_sample([c(**OK)], {"tool_calls": [c(**OK)]}, specs, row=row)
    bad = score_sample([c(city="Rome")], {"tool_calls": [c(**OK)]}, specs, row=row)
    assert (good.passed, bad.passed) == ({"tool_call_match": True}, {"tool_call_match": False})
    with pytest.raises(ValueError, match="schema='row' but the row has no tools"):
        score_sample([c(**OK)], {"tool_calls": [c(**OK)]}, specs, row={"id": "x"})


def test_bad_schemas_are_refused_up_front() -> None:
    with pytest.raises(ValueError, match="schema must be a list of tool schemas"):
        parse_reward_specs([{"tool_call_match": {"schema": "rows"}}])
    with pytest.raises(ValueError, match=r"schema\[0\] is not a tool schema"):
        parse_reward_specs([{"tool_call_match": {"schema": [{"type": "function"}]}}])
    with pytest.raises(ValueError, match="needs the row's tools"):
        tool_call_match([], [], schema="row")


def test_parameters_that_are_not_an_object_are_a_schema_error() -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": ["x"]}}]
    with pytest.raises(ValueError, match=r"schema\[0\] \('f'\): parameters.properties"):
        tool_call_match([c("f")], [c("f")], schema=tools)
    # A config's schema is checked whole when it loads ...
    with pytest.raises(ValueError, match=r"schema\[0\] \('f'\): parameters.properties"):
        parse_reward_specs([{"tool_call_match": {"schema": tools}}])
    # ... while scoring reads only the called tools, as BFCL reads only the called doc.
    good = {"type": "function", "function": {"name": "g", "parameters": {"properties": {}}}}
    assert tool_call_match([c("g")], [c("g")], schema=[*tools, good]).score == 1.0


def test_required_names_that_are_not_strings_are_read_as_strings() -> None:
    tool = {"name": "f", "parameters": {"properties": {"5": {}, "x": {}}, "required": [5, "x"]}}
    made = [{"name": "f", "arguments": {"5": 1, "x": 2}}]
    assert tool_call_match(made, [c("f")], args="ignore", schema=[tool]).score == 1.0
    result = tool_call_match([c("f", x=2)], [c("f")], args="ignore", schema=[tool])
    assert "schema: missing required parameter '5'" in result.reason


def test_the_first_tool_of_a_name_is_the_one_read() -> None:
    first = {"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}}}
    second = {"name": "f", "parameters": {"properties": {"x": {"type": "string"}}}}
    assert tool_call_match([c("f", x=1)], [c("f", x=1)], schema=[first, second]).score == 1.0
    assert tool_call_match([c("f", x=1)], [c("f", x=1)], schema=[second, first]).score == 0.0
