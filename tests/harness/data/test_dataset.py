"""Datasets: validation messages, ids, recorded generations, streaming."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentloop.errors import DatasetError
from agentloop.harness.data._dataset import iter_samples, scan_dataset
from agentloop.harness.data._prompt import prompt_messages, recorded_generation_start
from agentloop.harness.data._rows import parse_line
from tests.support.harness import ROOT, write_jsonl

USER = {"role": "user", "content": "hi"}
SCHEMA = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


def problem_of(row: object, mode: str = "generate") -> str:
    text = row if isinstance(row, str) else json.dumps(row)
    with pytest.raises(ValueError) as info:
        parse_line(text, 1, mode)  # type: ignore[arg-type]
    return str(info.value)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("{not json", "invalid JSON (Expecting property name enclosed in double quotes, column 2)"),
        ("[1, 2]", "a line must be a JSON object, got list"),
        ({"id": "a"}, "missing 'messages'"),
        ({"messages": []}, "'messages' must be a non-empty list"),
        ({"messages": "hi"}, "'messages' must be a non-empty list"),
        ({"messages": [{"role": "robot", "content": "x"}]}, "messages[0]: role must be one of"),
        ({"messages": ["hi"]}, "messages[0]: a message must be an object"),
        (
            {"messages": [USER, {"role": "tool", "content": "x"}]},
            "messages[1]: a tool message needs a string tool_call_id",
        ),
        (
            {"messages": [USER, {"role": "user", "content": 3}]},
            "messages[1]: content must be a string, a list of parts or null",
        ),
        (
            {"messages": [USER, {"role": "assistant", "tool_calls": [{"function": {}}]}]},
            "messages[1].tool_calls[0]: no function name",
        ),
        (
            {
                "messages": [
                    USER,
                    {
                        "role": "assistant",
                        "tool_calls": [{"function": {"name": "f", "arguments": "{oops"}}],
                    },
                ]
            },
            "messages[1].tool_calls[0]: arguments are not valid JSON",
        ),
        ({"messages": [USER], "ground_truth": [1]}, "'ground_truth' must be an object"),
        (
            {"messages": [USER], "ground_truth": {"tool_calls": [{"nme": "f", "arguments": {}}]}},
            "ground_truth.tool_calls[0]: not a tool call (no 'function' object or 'name')",
        ),
        (
            {"messages": [USER], "ground_truth": {"tool_calls": [{"function": {"arguments": {}}}]}},
            "ground_truth.tool_calls[0]: no function name",
        ),
        (
            {"messages": [USER], "ground_truth": {"tool_calls": [{"name": "", "arguments": {}}]}},
            "ground_truth.tool_calls[0]: no function name",
        ),
        (
            {"messages": [USER], "ground_truth": {"turns": [{"tool_calls": [7]}]}},
            "ground_truth.turns[0].tool_calls[0]: not a tool call",
        ),
        (
            {
                "messages": [
                    USER,
                    {
                        "role": "assistant",
                        "tool_calls": [{"function": {"name": "f", "arguments": "null"}}],
                    },
                ]
            },
            "messages[1].tool_calls[0]: arguments are not a JSON object",
        ),
        (
            {"messages": [USER], "ground_truth": {"tool_calls": 1}},
            "ground_truth.tool_calls must be a list",
        ),
        (
            {"messages": [USER], "tools": [{"type": "function", "function": {"description": "x"}}]},
            "tools[0]: the schema has no function name",
        ),
        ({"messages": [USER], "tools": [SCHEMA, SCHEMA]}, "tools[1]: duplicate tool name 'f'"),
        ({"messages": [USER], "tools": {"f": 1}}, "'tools' must be a list of function schemas"),
        ({"messages": [USER], "tools": [{"name": "f"}]}, "tools[0]: 'function' must be an object"),
        ({"messages": [USER], "answer": 42}, "'answer' must be a string or a list of strings"),
        ({"messages": [USER], "answer": ["a", 1]}, "'answer' must be a string or a list"),
        ({"messages": [USER], "metadata": "x"}, "'metadata' must be an object"),
        ({"messages": [USER], "id": ""}, "'id' must be a non-empty string or an integer"),
        (
            {"messages": [{"role": "assistant", "content": "recorded"}]},
            "messages: no user or system message to send (only a recorded reply)",
        ),
    ],
)
def test_each_problem_has_a_message(row: object, expected: str) -> None:
    assert expected in problem_of(row)


def test_all_problems_of_a_line_are_listed() -> None:
    text = problem_of({"messages": [USER], "ground_truth": 1, "answer": 2})
    assert "ground_truth" in text and "answer" in text and "; " in text


def test_a_recorded_reply_alone_is_fine_in_score_mode() -> None:
    sample = parse_line(
        json.dumps({"messages": [{"role": "assistant", "content": "x"}]}), 4, "score"
    )
    assert sample.id == "line-4"


def test_defaults_and_ids() -> None:
    sample = parse_line(json.dumps({"messages": [USER], "id": 7, "answer": ["a", "b"]}), 3)
    assert (sample.id, sample.line, sample.answer, sample.tools, sample.metadata) == (
        "7",
        3,
        ["a", "b"],
        [],
        {},
    )
    assert parse_line(json.dumps({"messages": [USER]}), 12).id == "line-12"


def test_scan_lists_every_bad_line_with_file_and_line(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "d.jsonl",
        [
            {"id": "a", "messages": [USER]},
            "{bad",
            "",
            {"id": "a", "messages": [USER]},
            {"messages": [USER], "ground_truth": "yes"},
        ],
    )
    scan = scan_dataset(path)
    assert scan.valid == 1
    assert [str(p) for p in scan.problems] == [
        f"{path}:2: invalid JSON (Expecting property name enclosed in double quotes, column 2)",
        f"{path}:4: duplicate id 'a' (first on line 1)",
        f"{path}:5: 'ground_truth' must be an object, e.g. {{\"tool_calls\": [...]}}",
    ]
    with pytest.raises(DatasetError) as info:
        scan.raise_if_invalid()
    lines = str(info.value).splitlines()
    assert (
        lines[0]
        == f"{path}: 3 invalid line(s) (fix them, or set skip_invalid: true to run the rest)"
    )
    assert lines[1:] == [str(p) for p in scan.problems]


def test_a_ground_truth_call_without_a_name_is_an_invalid_line(tmp_path: Path) -> None:
    # A typo'd key used to pass validation and be dropped silently at scoring.
    typo = {"nme": "get_weather", "arguments": {"city": "Paris"}}
    nameless = {"type": "function", "function": {"arguments": "{}"}}
    path = write_jsonl(
        tmp_path / "d.jsonl",
        [
            {"messages": [USER], "ground_truth": {"tool_calls": [nameless]}},
            {"messages": [USER], "ground_truth": {"tool_calls": [{"name": "f"}, typo]}},
        ],
    )
    assert [str(p) for p in scan_dataset(path).problems] == [
        f"{path}:1: ground_truth.tool_calls[0]: no function name",
        f"{path}:2: ground_truth.tool_calls[1]: not a tool call (no 'function' object or 'name')",
    ]


def test_generated_ids_can_collide_with_explicit_ones(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "d.jsonl", [{"messages": [USER]}, {"id": "line-1", "messages": [USER]}]
    )
    assert [p.what for p in scan_dataset(path).problems] == [
        "duplicate id 'line-1' (first on line 1)"
    ]


def test_invalid_utf8_and_missing_and_empty_files(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"messages": [{"role": "user", "content": "\xff"}]}\n')
    assert [p.what for p in scan_dataset(path).problems] == ["not valid UTF-8"]
    with pytest.raises(DatasetError, match=r"dataset not found: .*nope\.jsonl"):
        scan_dataset(tmp_path / "nope.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n\n")
    empty = scan_dataset(tmp_path / "empty.jsonl")
    assert (empty.valid, empty.problems) == (0, [])  # no line is bad: there are none
    with pytest.raises(DatasetError) as info:
        empty.raise_if_invalid()
    assert str(info.value) == f"{tmp_path / 'empty.jsonl'}: the dataset has no rows"


def test_sha256_and_stream_skip_invalid(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "d.jsonl",
        [{"id": "a", "messages": [USER]}, "{", {"id": "b", "messages": [USER]}],
    )
    import hashlib

    assert scan_dataset(path).sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert [s.id for s in iter_samples(path)] == ["a", "b"]


def test_recorded_generation_is_the_trailing_assistant_and_tool_messages() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "s"},
        USER,
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "tool", "tool_call_id": "1", "content": "r"},
        {"role": "assistant", "content": "done"},
    ]
    assert recorded_generation_start(messages) == 2
    assert prompt_messages(messages) == messages[:2]
    assert prompt_messages([{"role": "user", "content": None}]) == [{"role": "user", "content": ""}]


def test_bundled_datasets_are_valid() -> None:
    for name in ("quickstart", "search_qa", "tool_calls"):
        scan = scan_dataset(ROOT / "configs" / "data" / f"{name}.jsonl")
        assert scan.problems == [] and scan.valid > 0


def test_recorded_calls_without_id_or_arguments_are_scored_not_crashed() -> None:
    # Both are optional in a valid row; LangChain's converter needs them (KeyError).
    from agentloop.harness.run._scoring import recorded_trajectory

    call = {"type": "function", "function": {"name": "f"}}
    earlier = {"role": "assistant", "content": None, "tool_calls": [call]}
    reply = {"role": "assistant", "content": None, "tool_calls": [{**call, "id": ""}]}
    sample = parse_line(json.dumps({"messages": [USER, earlier, USER, reply]}), 1, "score")
    trajectory = recorded_trajectory(sample)
    assert [(c.id, c.name, c.args) for c in trajectory.tool_calls()] == [("call_3_0", "f", {})]
    prompt = prompt_messages(sample.messages)
    assert prompt[1]["tool_calls"][0]["id"] == "call_1_0"
    assert prompt[1]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert sample.messages[1] == earlier  # the row itself is not modified
