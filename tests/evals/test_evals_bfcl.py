"""bfcl_verdict: BFCL's own verdicts on real BFCL rows, categories, rules and reasons.

``tests/data/bfcl/ast_cases.jsonl`` holds BFCL rows (function docs, possible answers)
with a model output each and the verdict BFCL's ``ast_checker`` gave it (bfcl-eval
2026.3.23, Python language).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agentloop.evals import bfcl_answer, bfcl_verdict, registered_rewards, score_sample

_DATA = Path(__file__).parents[1] / "data" / "bfcl" / "ast_cases.jsonl"
CASES = [json.loads(line) for line in _DATA.read_text().splitlines()]


def options(values: list[Any], top: bool = True) -> dict[str, Any]:
    """BFCL's list of acceptable values as the ground-truth form the converter writes."""
    kept = [inner(v) if top else v for v in values if v != ""]
    return {"$optional": {"$any": kept}} if "" in values else {"$any": kept}


def inner(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: options(v, top=False) for k, v in value.items()}
    if isinstance(value, list):
        return [inner(v) if isinstance(v, dict) else v for v in value]
    return value


def row_of(case: dict[str, Any]) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """(generated calls, ground truth, metadata) with names renamed dots -> underscores."""
    truth = {
        "tool_calls": [
            {"type": "function", "function": {
                "name": name.replace(".", "_"),
                "arguments": {p: options(v) for p, v in answer.items()}}}
            for call in case["ground_truth"] for name, answer in call.items()
        ]
    }  # fmt: skip
    docs = [{**doc, "name": doc["name"].replace(".", "_")} for doc in case["function"]]
    made = [
        {"type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for call in case["output"]
        for name, args in call.items()
    ]
    return made, truth, {"bfcl_category": case["category"], "bfcl_functions": docs}


@pytest.mark.parametrize("case", CASES, ids=[f"{c['id']}-{c['bfcl_error_type']}" for c in CASES])
def test_agrees_with_bfcls_checker(case: dict[str, Any]) -> None:
    made, truth, metadata = row_of(case)
    result = bfcl_verdict(made, truth, metadata)
    assert type(result).model_validate(result.model_dump()) == result  # built unvalidated
    if case.get("known_difference"):  # BFCL's greedy pairing rejects a correct reordering
        assert (case["bfcl_valid"], result.score) == (False, 1.0)
        return
    assert result.score == (1.0 if case["bfcl_valid"] else 0.0), result.reason
    if not case["bfcl_valid"]:
        assert result.details.error_type == case["bfcl_error_type"]


DOC = {
    "name": "area",
    "parameters": {
        "type": "dict",
        "required": ["base"],
        "properties": {
            "base": {"type": "integer"},
            "scale": {"type": "float"},
            "unit": {"type": "string"},
            "sides": {"type": "array", "items": {"type": "integer"}},
            "pair": {"type": "tuple", "items": {"type": "string"}},
        },
    },
}
TRUTH = {
    "tool_calls": [
        {
            "name": "area",
            "arguments": {
                "base": {"$any": [10]},
                "scale": {"$optional": {"$any": [2.0]}},
                "unit": {"$optional": {"$any": ["square meters", "m2"]}},
                "sides": {"$optional": {"$any": [[1, 2]]}},
                "pair": {"$optional": {"$any": [["a", "b"]]}},
            },
        }
    ]
}
META = {"bfcl_category": "simple_python", "bfcl_functions": [DOC]}


def call(name: str = "area", **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args}


@pytest.mark.parametrize(
    ("made", "score", "reason"),
    [
        ([call(base=10)], 1.0, "the call passes"),
        ([call(base=10, scale=2)], 1.0, ""),  # an int is fine for a float
        ([call(base=10, unit="Square-Meters")], 1.0, ""),  # BFCL's string normalisation
        ([call(base=10, pair=["A", "b"])], 1.0, ""),  # a tuple takes a list
        ([call(base=10.0)], 0.0, "type of 'base': expected integer, got float"),
        ([call(base=True)], 0.0, "type of 'base': expected integer, got bool"),
        ([call(scale=2.0)], 0.0, "missing required parameter 'base'"),
        ([call(base=10, depth=1)], 0.0, "unexpected parameter 'depth'"),
        ([call(base=11)], 0.0, "value of 'base': 11 is not among the acceptable ones [10]"),
        # "" among the answers skips BFCL's nested type check; the value check fails it.
        ([call(base=10, sides=[1, "2"])], 0.0, "value of 'sides': [1, '2'] is not among"),
        ([call("volume", base=10)], 0.0, "wrong name: expected 'area', got 'volume'"),
        ([call(base=10), call(base=10)], 0.0, "wrong count: expected 1 call(s), got 2"),
        ([], 0.0, "wrong count"),
    ],
)
def test_simple_rules_and_reasons(made: list[Any], score: float, reason: str) -> None:
    result = bfcl_verdict(made, TRUTH, META)
    assert result.score == score
    assert reason in result.reason


def test_nested_types_are_checked_one_level_deep() -> None:
    truth = {"tool_calls": [call(base={"$any": [1]}, sides={"$any": [[1, 2]]})]}
    result = bfcl_verdict([call(base=1, sides=[1, "2"])], truth, META)
    assert (result.score, result.details.error_type) == (0.0, "type_error:nested")
    assert "nested type of 'sides': expected array of int" in result.reason


def test_a_parameter_bfcl_does_not_list_as_optional_is_required() -> None:
    truth = {"tool_calls": [call(base={"$any": [10]}, unit={"$any": ["m2"]})]}
    result = bfcl_verdict([call(base=10)], truth, META)
    assert (result.score, result.details.error_type) == (
        0.0,
        "simple_function_checker:missing_optional",
    )


def test_relevance_categories_only_ask_whether_a_call_was_made() -> None:
    made = [call(base=10)]
    for category, with_call, without in [("irrelevance", 0.0, 1.0), ("live_irrelevance", 0.0, 1.0),
                                         ("live_relevance", 1.0, 0.0)]:  # fmt: skip
        assert bfcl_verdict(made, None, {"bfcl_category": category}).score == with_call
        assert bfcl_verdict([], None, {"bfcl_category": category}).score == without
    # A call BFCL cannot decode is no call.
    broken = [{"name": "area", "arguments": "{oops"}]
    assert bfcl_verdict(broken, None, {"bfcl_category": "irrelevance"}).score == 1.0


def test_parallel_pairs_without_order_and_multiple_checks_the_expected_function() -> None:
    truth = {"tool_calls": [call(base={"$any": [1]}), call(base={"$any": [2]})]}
    meta = {"bfcl_category": "parallel", "bfcl_functions": [DOC]}
    assert bfcl_verdict([call(base=2), call(base=1)], truth, meta).score == 1.0
    r = bfcl_verdict([call(base=2), call(base=3)], truth, meta)
    assert r.score == 0.0 and "expected call 0 ('area') matches no generated call" in r.reason
    other = {"name": "volume", "parameters": {"type": "dict", "properties": {}, "required": []}}
    meta = {"bfcl_category": "multiple", "bfcl_functions": [other, DOC]}
    assert bfcl_verdict([call(base=1)], {"tool_calls": truth["tool_calls"][:1]}, meta).score == 1.0


def test_openai_tools_stand_in_for_bfcl_docs() -> None:
    tool = {
        "type": "function",
        "function": {
            "name": "area",
            "parameters": {
                "type": "object",
                "required": ["base"],
                "properties": {"base": {"type": "number"}},
            },
        },
    }
    truth = {"tool_calls": [call(base={"$any": [10.0]})]}
    row = {"tools": [tool]}
    assert bfcl_verdict([call(base=10)], truth, {"bfcl_category": "simple"}, row).score == 1.0


def test_answers_convert_back_to_bfcls_lists() -> None:
    args = {"p": {"$any": [{"k": {"$optional": {"$any": [1]}}, "raw": [2, 3]}]}, "q": 5}
    assert bfcl_answer(args) == {"p": [{"k": [1, ""], "raw": [2, 3]}], "q": [5]}


def test_unsupported_inputs_are_said() -> None:
    with pytest.raises(ValueError, match="no category"):
        bfcl_verdict([], None, {})
    with pytest.raises(ValueError, match="not supported"):
        bfcl_verdict([], None, {"bfcl_category": "memory_kv"})
    truth = {"tool_calls": [call(base={"$regex": "1.*"})]}
    r = bfcl_verdict([call(base=10)], truth, META)
    assert (r.score, r.details.error_type) == (0.0, "bfcl:ground_truth")


def test_registered_with_its_inputs() -> None:
    entry = registered_rewards()["bfcl_verdict"]
    assert (entry.inputs, entry.params, entry.pass_threshold) == (
        ("trajectory", "ground_truth", "metadata", "row"),
        frozenset({"category"}),
        1.0,
    )
    made, truth, metadata = row_of(CASES[0])
    scored = score_sample(made, truth, ["bfcl_verdict"], metadata=metadata)
    assert scored.passed["bfcl_verdict"] is CASES[0]["bfcl_valid"]


def test_a_parameter_with_no_acceptable_value_never_passes() -> None:
    # BFCL lists [] for a few parameters (live_simple_106-63-0): given or not, it fails.
    truth = {"tool_calls": [call(base={"$any": [10]}, unit={"$any": []})]}
    given = bfcl_verdict([call(base=10, unit="m")], truth, META)
    left_out = bfcl_verdict([call(base=10)], truth, META)
    assert (given.score, given.details.error_type) == (0.0, "value_error:string")
    assert (left_out.score, left_out.details.error_type) == (
        0.0,
        "simple_function_checker:missing_optional",
    )


def test_a_ground_truth_changed_in_place_is_read_again() -> None:
    truth = {"tool_calls": [call(base={"$any": [10]})]}
    assert bfcl_verdict([call(base=12)], truth, META).score == 0.0
    truth["tool_calls"][0]["arguments"]["base"]["$any"].append(12)
    assert bfcl_verdict([call(base=12)], truth, META).score == 1.0


def test_a_function_doc_changed_in_place_is_read_again() -> None:
    doc = json.loads(json.dumps(DOC))
    meta = {"bfcl_category": "simple_python", "bfcl_functions": [doc]}
    truth = {"tool_calls": [call(base={"$any": [10]})]}
    assert bfcl_verdict([call(base=10)], truth, meta).score == 1.0
    doc["parameters"]["required"].append("unit")
    assert "missing required parameter 'unit'" in bfcl_verdict([call(base=10)], truth, meta).reason
    del doc["parameters"]["properties"]["base"]
    doc["parameters"]["required"] = []
    result = bfcl_verdict([call(base=10)], truth, meta)
    assert result.details.error_type == "simple_function_checker:unexpected_param"


def test_an_unsupported_matcher_fails_the_ground_truth_where_it_is_read() -> None:
    regex = {"$regex": "m.*"}
    nested = {"$any": [{"k": {"$regex": "a.*"}}]}
    doc = {**DOC, "parameters": {**DOC["parameters"], "properties": {
        **DOC["parameters"]["properties"], "opts": {"type": "dict"}}}}  # fmt: skip
    meta = {**META, "bfcl_functions": [doc]}
    for args, made in [
        ({"base": {"$any": [10]}, "unit": regex}, call(base=10)),  # left out
        ({"base": {"$any": [10]}, "unit": {"$optional": regex}}, call(base=10)),
        ({"base": regex}, call(base=10)),
        ({"base": {"$any": [10]}, "opts": nested}, call(base=10, opts={"k": "abc"})),
    ]:
        result = bfcl_verdict([made], {"tool_calls": [call(**args)]}, meta)
        assert (result.score, result.details.error_type) == (0.0, "bfcl:ground_truth"), args


def test_the_first_acceptable_value_that_is_not_blank_sets_the_answer_type() -> None:
    # BFCL reads a variable's type from the first option that is not "": here int, so a
    # string argument for a string parameter is compared as a value, not normalised.
    truth = {"tool_calls": [call(base={"$any": [10]}, unit={"$any": ["", 5]})]}
    assert bfcl_verdict([call(base=10, unit="5")], truth, META).score == 0.0
    truth = {"tool_calls": [call(base={"$any": [10]}, unit={"$any": ["", "M2"]})]}
    assert bfcl_verdict([call(base=10, unit="m-2")], truth, META).score == 1.0


def test_relevance_error_types_are_bfcls_own() -> None:
    # BFCL's eval_runner writes these with their suffix; the suffix was missing.
    made = [call(base=10)]
    irrelevant = bfcl_verdict(made, None, {"bfcl_category": "irrelevance"})
    assert irrelevant.details.error_type == "irrelevance_error:decoder_success"
    relevant = bfcl_verdict([], None, {"bfcl_category": "live_relevance"})
    assert relevant.details.error_type == "relevance_error:decoder_failed"


def test_a_missing_dict_key_wins_over_a_wrong_value_as_in_bfcl() -> None:
    # BFCL's dict_checker looks for missing keys even after a value failed, and the
    # missing key's error type is the one it reports.
    case = {
        "id": "dict_both", "category": "simple_python",
        "function": [{"name": "lookup", "description": "Look up.", "parameters": {
            "type": "dict", "required": ["where"], "properties": {"where": {
                "type": "dict", "properties": {"city": {"type": "string"},
                                               "zip": {"type": "string"}}}}}}],
        "ground_truth": [{"lookup": {"where": [{"city": ["Paris"], "zip": ["75001"]}]}}],
        "output": [{"lookup": {"where": {"city": "Lyon"}}}],
    }  # fmt: skip
    made, truth, metadata = row_of(case)
    result = bfcl_verdict(made, truth, metadata)
    assert (result.score, result.details.error_type) == (0.0, "value_error:dict_key")
    # a wrong value alone is still a value error
    case["output"] = [{"lookup": {"where": {"city": "Lyon", "zip": "75001"}}}]
    made, truth, metadata = row_of(case)
    assert bfcl_verdict(made, truth, metadata).details.error_type == "value_error:dict_value"
