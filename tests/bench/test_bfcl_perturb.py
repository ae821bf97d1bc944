"""The BFCL perturbation generator (bench/bfcl_perturb.py), offline: no BFCL data needed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.harness import bench_module

bfcl_perturb = bench_module("bfcl_perturb")

DOC = {
    "name": "geo.area",
    "parameters": {
        "type": "dict",
        "required": ["base", "city"],
        "properties": {
            "base": {"type": "integer"},
            "city": {"type": "string"},
            "scale": {"type": "float"},
            "exact": {"type": "boolean"},
            "filters": {"type": "dict", "properties": {}},
            "unused": {"type": "string"},
        },
    },
}
ANSWER = {
    "geo.area": {
        "base": [10],
        "city": ["New York", "NYC"],
        "scale": [1.5, ""],
        "exact": ["", True],
        "filters": [{"kind": ["park"], "size": ["", "big"]}],
    }
}
OTHER = {"name": "geo.volume", "parameters": {"type": "dict", "required": [], "properties": {}}}


def _cases(answers: Any, category: str, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return bfcl_perturb.cases_for_entry({"id": "e_0", "function": docs}, answers, category)


def _by_kind(cases: list[dict[str, Any]]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for case in cases:
        out.setdefault(case["perturbation"], []).append(case["output"])
    return out


def test_canonical_takes_first_acceptable_values_and_keeps_dotted_names() -> None:
    kinds = _by_kind(_cases([ANSWER], "simple_python", [DOC]))
    assert kinds["canonical"] == [
        [
            {
                "geo.area": {
                    "base": 10,
                    "city": "New York",
                    "scale": 1.5,
                    "exact": True,
                    "filters": {"kind": "park", "size": "big"},
                }
            }
        ]
    ]


def test_systematic_perturbations_are_there() -> None:
    kinds = _by_kind(_cases([ANSWER], "multiple", [DOC, OTHER]))
    for kind in (
        "alt_value",
        "omit_optional",
        "omit_required",
        "omit_all_optional",
        "extra_param_in_schema",
        "extra_param_unknown",
        "int_as_float",
        "float_as_int",
        "bool_as_int",
        "str_upper",
        "str_dot_suffix",
        "wrong_name",
        "other_function",
        "extra_call_duplicate",
        "missing_call",
        "no_call",
        "dict_dropped_key",
    ):
        assert kind in kinds, kind
    assert [
        {
            "geo.area": {
                "base": 10,
                "city": "NYC",
                "scale": 1.5,
                "exact": True,
                "filters": {"kind": "park", "size": "big"},
            }
        }
    ] in kinds["alt_value"]
    omitted = {
        next(iter(o[0]["geo.area"].keys() ^ {"base", "city", "scale", "exact", "filters"}))
        for o in kinds["omit_optional"]
    }
    assert omitted == {"scale", "exact"}
    assert kinds["no_call"] == [[]]
    assert kinds["other_function"][0][0].keys() == {"geo.volume"}
    assert kinds["extra_param_in_schema"][0][0]["geo.area"]["unused"] == "test"


def test_parallel_calls_are_reordered_and_dropped() -> None:
    second = {"geo.area": {"base": [20], "city": ["Paris"]}}
    kinds = _by_kind(_cases([ANSWER, second], "parallel", [DOC]))
    canon = kinds["canonical"][0]
    assert kinds["calls_reversed"] == [list(reversed(canon))]
    assert kinds["missing_call"] == [canon[:1]]
    assert kinds["extra_call_duplicate"] == [[*canon, canon[0]]]
    assert "alt_value_calls_reversed" in kinds


def test_relevance_categories_get_call_and_no_call_cases() -> None:
    kinds = _by_kind(_cases(None, "irrelevance", [DOC]))
    assert kinds["no_call"] == [[]]
    assert kinds["call_required_args"] == [[{"geo.area": {"base": 1, "city": "test"}}]]
    assert kinds["call_no_args"] == [[{"geo.area": {}}]]


def test_cases_are_deterministic_distinct_and_json_stable() -> None:
    first = _cases([ANSWER], "simple_python", [DOC])
    assert first == _cases([ANSWER], "simple_python", [DOC])
    ids = [c["case_id"] for c in first]
    assert len(ids) == len(set(ids))
    for case in first:
        output = case["output"]
        assert isinstance(output, list)
        assert all(isinstance(call, dict) and len(call) == 1 for call in output)
        assert all(isinstance(args, dict) for call in output for args in call.values())
        assert json.loads(json.dumps(case)) == case
    assert ANSWER["geo.area"]["scale"] == [1.5, ""]  # the input is not modified


def test_some_cases_carry_argument_text_some_of_it_malformed() -> None:
    raw = {c["perturbation"]: c for c in _cases([ANSWER], "simple_python", [DOC]) if "raw" in c}
    assert set(raw) == {
        "args_json_reformatted", "args_malformed_json", "args_not_an_object", "args_raw_tab",
        "args_raw_newline", "args_blank", "args_null", "args_number", "args_string",
    }  # fmt: skip
    name, text = raw["args_json_reformatted"]["raw"][0]
    assert name == "geo.area"
    assert json.loads(text) == raw["args_json_reformatted"]["output"][0]["geo.area"]
    bad = raw["args_malformed_json"]["raw"][0][1]
    try:
        json.loads(bad)
    except ValueError:
        pass
    else:
        raise AssertionError(f"decodes: {bad}")
    assert isinstance(json.loads(raw["args_not_an_object"]["raw"][0][1]), list)
    # text a lenient reader takes and strict json.loads refuses: a raw control character
    for kind, char in (("args_raw_tab", "\t"), ("args_raw_newline", "\n")):
        text = raw[kind]["raw"][0][1]
        assert char in text and json.loads(text, strict=False)
        with pytest.raises(ValueError):
            json.loads(text)
    assert [raw[k]["raw"][0][1] for k in ("args_blank", "args_null", "args_number")] == [
        "", "null", "5",
    ]  # fmt: skip
    assert all(raw[k]["output"] == [] for k in raw if k != "args_json_reformatted")
