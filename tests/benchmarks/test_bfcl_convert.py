"""BFCL entries as rows: tool schemas as BFCL sends them, expected calls as matchers."""

from __future__ import annotations

from typing import Any

from agentloop.benchmarks.bfcl._convert import (
    bfcl_row,
    checker_functions,
    expected_calls,
    openai_name,
    openai_tools,
)
from agentloop.benchmarks.bfcl._data import bfcl_rows

HINT = " Note that the provided function is in Python 3 syntax."


def doc(name: str, properties: dict[str, Any], required: list[str] | None = None) -> dict:
    parameters = {"type": "dict", "properties": properties, "required": required or []}
    return {"name": name, "description": "D.", "parameters": parameters}


def rows(category: str) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in bfcl_rows(category)}


def test_names_lose_their_dots() -> None:
    assert openai_name("math.factorial") == "math_factorial"
    assert openai_name("a.b.c_d") == "a_b_c_d"
    row = rows("simple_python")["simple_python_1"]
    assert row["tools"][0]["function"]["name"] == "math_factorial"
    assert row["ground_truth"]["tool_calls"][0]["function"]["name"] == "math_factorial"
    assert row["metadata"]["bfcl_functions"][0]["name"] == "math_factorial"


def test_types_follow_bfcls_openapi_mapping() -> None:
    properties = {
        "d": {"type": "dict", "description": "x", "properties": {"f": {"type": "float"}}},
        "f": {"type": "float", "description": "A float."},
        "t": {"type": "tuple", "description": "x", "items": {"type": "integer"}},
        "a": {"type": "any", "description": "x"},
        "b": {"type": "boolean", "description": "x"},
        "u": {"type": "mystery", "description": "x"},
        "n": {"description": "no type"},
        "l": {"type": "array", "items": {"type": "array", "items": {"type": "float"}}},
        "o": {"type": "array", "items": {"type": "dict", "properties": {"k": {"type": "tuple"}}}},
    }
    (tool,) = openai_tools([doc("pkg.f", properties, ["f"])])
    function = tool["function"]
    assert tool["type"] == "function" and function["name"] == "pkg_f"
    assert function["description"] == "D." + HINT
    assert function["parameters"]["type"] == "object"
    assert function["parameters"]["required"] == ["f"]
    got = function["parameters"]["properties"]
    assert got["d"]["type"] == "object"
    assert got["d"]["properties"]["f"] == {
        "type": "number",
        "format": "float",
        "description": " This is a float type value.",
    }
    assert got["f"] == {
        "type": "number",
        "format": "float",
        "description": "A float. This is a float type value.",
    }
    assert got["t"]["type"] == "array" and got["t"]["items"] == {"type": "integer"}
    assert [got[k]["type"] for k in "abun"] == ["string", "boolean", "string", "string"]
    assert got["l"]["items"] == {"type": "array", "items": {"type": "number"}}
    assert got["o"]["items"]["type"] == "object"
    assert got["o"]["items"]["properties"]["k"]["type"] == "array"


def test_the_checker_keeps_bfcls_own_types_and_descriptions() -> None:
    original = [doc("pkg.f", {"x": {"type": "float", "description": "X."}})]
    (kept,) = checker_functions(original)
    assert kept["name"] == "pkg_f" and kept["parameters"]["type"] == "dict"
    assert kept["parameters"]["properties"]["x"] == {"type": "float", "description": "X."}
    assert original[0]["name"] == "pkg.f"  # inputs are not changed
    openai_tools(original)
    assert original[0]["parameters"]["properties"]["x"]["type"] == "float"


def test_acceptable_values_and_optional_parameters() -> None:
    row = rows("simple_python")["simple_python_2"]  # math.hypot: z ["", 0]
    (call,) = row["ground_truth"]["tool_calls"]
    assert call == {
        "type": "function",
        "function": {
            "name": "math_hypot",
            "arguments": {
                "x": {"$any": [4]},
                "y": {"$any": [5]},
                "z": {"$optional": {"$any": [0]}},
            },
        },
    }
    # falsy values are values; only "" marks a parameter as optional
    calls = expected_calls([{"f": {"a": [0, False, None], "b": [""], "c": []}}], [doc("f", {})])
    assert calls[0]["function"]["arguments"] == {
        "a": {"$any": [0, False, None]},
        "b": {"$optional": ""},  # only "": may be omitted, or be "" (BFCL accepts both)
        "c": {"$any": []},  # BFCL accepts no value at all (live_simple_106-63-0)
    }


def test_dict_answers_become_patterns_per_key() -> None:
    row = rows("live_parallel_multiple")["live_parallel_multiple_0-0-0"]
    chafod, drink = row["ground_truth"]["tool_calls"]
    assert chafod["function"]["arguments"]["newIngredients"] == {"$optional": ""}
    prefs = drink["function"]["arguments"]["new_preferences"]
    assert prefs == {
        "$any": [
            {
                "size": {"$any": ["large"]},
                "temperature": {"$any": ["hot"]},
                "sweetness_level": {"$optional": {"$any": ["regular"]}},
                "milk_type": {"$any": ["almond"]},
                "special_instructions": {"$optional": ""},
            }
        ]
    }


def test_list_of_dict_answers_and_deeper_literals() -> None:
    lm = rows("live_multiple")
    items = lm["live_multiple_63-25-0"]["ground_truth"]["tool_calls"][0]["function"]
    assert items["arguments"]["items"] == {
        "$any": [
            [
                {"item": {"$any": ["burgers"]}, "quantity": {"$any": [5]}},
                {"item": {"$any": ["chicken wings"]}, "quantity": {"$any": [6]}},
            ]
        ]
    }
    # BFCL compares values inside a dict answer literally: no pattern below that level
    headway = lm["live_multiple_121-46-0"]["ground_truth"]["tool_calls"][0]["function"]
    ego = headway["arguments"]["ego_info"]["$any"][0]
    assert ego["position"] == {"$any": [{"lateral": 10.5, "longitudinal": 50}]}
    # a list parameter of plain values stays a literal list
    calls = expected_calls(
        [{"f": {"xs": [[3, 5]], "d": ["", {"k": ["v"]}]}}],
        [doc("f", {"xs": {"type": "array", "items": {"type": "integer"}}, "d": {"type": "dict"}})],
    )
    assert calls[0]["function"]["arguments"] == {
        "xs": {"$any": [[3, 5]]},
        "d": {"$optional": {"$any": [{"k": {"$any": ["v"]}}]}},
    }


def test_an_empty_dict_answer_stays_empty() -> None:
    row = rows("live_simple")["live_simple_132-85-0"]
    arguments = row["ground_truth"]["tool_calls"][0]["function"]["arguments"]
    assert arguments["params"] == {"$optional": {"$any": [{}]}}  # BFCL: ["", {}]


def test_no_call_categories_expect_no_calls() -> None:
    for category in ("irrelevance", "live_irrelevance", "live_relevance"):
        for row in bfcl_rows(category):
            assert row["ground_truth"] == {"tool_calls": []}
            assert row["metadata"]["bfcl_category"] == category
            assert row["tools"]


def test_a_row_is_the_first_turn_with_tools_and_metadata() -> None:
    entry = {
        "id": "simple_python_9",
        "question": [[{"role": "system", "content": "S"}, {"role": "user", "content": "Q"}]],
        "function": [doc("f.g", {"x": {"type": "integer", "description": "X"}}, ["x"])],
    }
    row = bfcl_row(entry, "simple_python", [{"f.g": {"x": [1]}}])
    assert list(row) == ["id", "messages", "tools", "ground_truth", "metadata"]
    assert row["messages"] == entry["question"][0]
    assert row["metadata"]["bfcl_category"] == "simple_python"
    assert row["metadata"]["bfcl_functions"][0]["parameters"]["type"] == "dict"
