"""Dataset rows: matchers in ground-truth arguments are checked line by line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentloop.harness.data._dataset import scan_dataset
from agentloop.harness.data._rows import parse_line
from tests.support.harness import write_jsonl

USER = {"role": "user", "content": "Weather?"}


def row(arguments: Any) -> dict[str, Any]:
    call = {"type": "function", "function": {"name": "weather", "arguments": arguments}}
    return {"messages": [USER], "ground_truth": {"tool_calls": [call]}}


@pytest.mark.parametrize(
    "arguments",
    [
        {"city": {"$any": ["Paris", "paris"]}, "unit": {"$optional": "C"}},
        json.dumps({"city": {"$regex": "Par.*"}}),  # arguments as a JSON string
        {"city": "Paris"},
        "not json at all",  # compared as the raw string, as before
    ],
)
def test_valid_matchers_pass(arguments: Any) -> None:
    assert parse_line(json.dumps(row(arguments)), 1).ground_truth is not None


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"city": {"$anyy": ["Paris"]}},
         "ground_truth.tool_calls[0].arguments.city: unknown matcher '$anyy'"),
        (json.dumps({"days": [{"$approx": "3"}]}),
         "ground_truth.tool_calls[0].arguments.days[0]: $approx needs a number"),
        ({"city": {"$normalized": "x", "normalizer": "nope"}},
         "ground_truth.tool_calls[0].arguments.city: unknown normalizer 'nope'"),
    ],
)  # fmt: skip
def test_bad_matchers_are_line_problems(arguments: Any, problem: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_line(json.dumps(row(arguments)), 1)
    assert str(info.value).startswith(problem)


def test_the_ground_truth_is_compiled_when_the_row_is_read() -> None:
    sample = parse_line(json.dumps(row({"city": {"$any": ["Paris", "paris"]}})), 1)
    [call] = sample.expected_calls or ()
    assert (call.name, call.args, call.matcher.kind) == (
        "weather", {"city": {"$any": ["Paris", "paris"]}}, "object"
    )
    # A $match function that cannot be imported is the line's problem, not every sample's.
    with pytest.raises(ValueError, match=r"^ground_truth: \$match 'no_such_module:f' cannot be"):
        parse_line(json.dumps(row({"city": {"$match": "no_such_module:f"}})), 1)


def test_scan_names_file_line_and_place(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "d.jsonl", [row({"city": "Paris"}), row({"city": {"$anyy": []}})])
    scan = scan_dataset(path)
    assert scan.valid == 1
    assert [str(p) for p in scan.problems] == [
        f"{path}:2: ground_truth.tool_calls[0].arguments.city: unknown matcher '$anyy'; "
        "valid: $any, $optional, $regex, $approx, $normalized, $match, $literal"
    ]
