"""BFCL multi-turn rows (bfcl:multi_turn_*) and the BFCL environment (its classes as tools)."""

from __future__ import annotations

import json

import pytest

from agentloop.benchmarks import bfcl_environment, check_bfcl_category
from agentloop.benchmarks.bfcl._convert import PYTHON_HINT
from agentloop.benchmarks.bfcl._data import bfcl_rows
from agentloop.benchmarks.bfcl._env import bfcl_class_docs, call_bfcl_method
from agentloop.benchmarks.bfcl._multi import (
    MISSED_FUNCTION_PROMPT,
    MULTI_TURN_CATEGORIES,
    parse_bfcl_call,
)
from agentloop.benchmarks.bfcl._package import BFCL_DATA_ENV
from agentloop.errors import DatasetError
from agentloop.harness.data._dataset import scan_dataset
from tests.benchmarks.conftest import FIXTURE


def _row(category: str, number: int) -> dict:
    return next(r for r in bfcl_rows(category) if r["id"] == f"{category}_{number}")


def _entry(category: str, number: int) -> dict:
    lines = (FIXTURE / f"BFCL_v4_{category}.json").read_text().splitlines()
    return next(e for e in map(json.loads, lines) if e["id"] == f"{category}_{number}")


@pytest.mark.parametrize("category", MULTI_TURN_CATEGORIES)
def test_a_row_holds_every_turn_and_its_ground_truth(category: str) -> None:
    check_bfcl_category(category)
    entry, row = _entry(category, 0), _row(category, 0)
    assert row["messages"] == entry["question"][0]
    assert len(row["turns"]) == len(entry["question"]) - 1
    assert len(row["ground_truth"]["turns"]) == len(entry["question"])
    assert row["environment"] == {
        "initial_config": entry["initial_config"],
        "involved_classes": entry["involved_classes"],
        "long_context": category == "multi_turn_long_context",
    }
    assert row["metadata"] == {"bfcl_category": category}
    assert "tools" not in row  # the environment provides them


def test_a_missed_function_comes_back_at_its_turn_with_bfcls_prompt() -> None:
    entry, row = _entry("multi_turn_miss_func", 15), _row("multi_turn_miss_func", 15)
    (turn, names), *_ = entry["missed_function"].items()
    assert entry["question"][int(turn)] == []
    held = row["turns"][int(turn) - 1]
    assert held == {
        "messages": [{"role": "user", "content": MISSED_FUNCTION_PROMPT}],
        "tools": names,
    }
    assert all("tools" not in t for i, t in enumerate(row["turns"]) if i != int(turn) - 1)


def test_ground_truth_calls_name_positional_arguments() -> None:
    parameters = {"sort": ["file_name"], "mv": ["source", "destination"]}
    assert parse_bfcl_call("sort('final_report.pdf')", parameters) == {
        "name": "sort",
        "arguments": {"file_name": "final_report.pdf"},
    }
    assert parse_bfcl_call("mv('a', destination = 'b')", parameters)["arguments"] == {
        "source": "a",
        "destination": "b",
    }
    for bad in ("sort(x=f(1))", "a.b(1)", "sort(", "sort('a', 'b')"):
        with pytest.raises(ValueError):
            parse_bfcl_call(bad, parameters)
    row = _row("multi_turn_base", 0)  # its possible answer has sort('final_report.pdf')
    calls = [c for t in row["ground_truth"]["turns"] for c in t["tool_calls"]]
    assert {"name": "sort", "arguments": {"file_name": "final_report.pdf"}} in calls


def _environment(number: int = 0, category: str = "multi_turn_base"):
    return bfcl_environment(_row(category, number))


def test_the_tools_share_one_instance_per_class() -> None:
    env = _environment()
    tools = {t.name: t for t in env.tools()}
    docs = bfcl_class_docs("GorillaFileSystem") + bfcl_class_docs("TwitterAPI")
    assert sorted(tools) == sorted(d["name"] for d in docs)
    assert json.loads(tools["ls"].invoke({}))["current_directory_content"] == [
        "document",
        "archive",
    ]
    tools["cd"].invoke({"folder": "document"})
    tools["mkdir"].invoke({"dir_name": "temp"})
    assert json.loads(tools["ls"].invoke({})) == {
        "current_directory_content": ["final_report.pdf", "previous_report.pdf", "temp"]
    }
    state = env.snapshot()
    json.dumps(state)  # JSON-able
    root = state["GorillaFileSystem"]["root"]
    assert root["name"] == "workspace" and "temp" in root["contents"]["document"]["contents"]
    assert state["TwitterAPI"]["username"] == "analyst_pro"


def test_each_environment_is_fresh() -> None:
    first, second = _environment(), _environment()
    {t.name: t for t in first.tools()}["cd"].invoke({"folder": "document"})
    {t.name: t for t in first.tools()}["touch"].invoke({"file_name": "new.txt"})
    assert first.snapshot() != second.snapshot()
    assert second.snapshot() == _environment().snapshot()


def test_tool_schemas_are_what_bfcl_sends() -> None:
    env = _environment(15, "multi_turn_miss_func")
    schemas = {t.name: t.tool_call_schema for t in env.tools()}
    cd = schemas["cd"]
    assert isinstance(cd, dict) and cd["type"] == "object" and cd["required"] == ["folder"]
    assert cd["description"].endswith(PYTHON_HINT)
    # held back until a later turn: BFCL adds its hint before holding them back
    assert not schemas["touch"]["description"].endswith(PYTHON_HINT)


def test_calls_run_and_read_as_bfcl_records_them() -> None:
    env = _environment()
    methods = env.methods
    assert call_bfcl_method(methods, "pwd", {}) == json.dumps(
        {"current_working_directory": "/workspace"}
    )
    assert call_bfcl_method(methods, "cd", {"nope": 1}).startswith(
        "Error during execution: GorillaFileSystem.cd() got an unexpected keyword argument"
    )
    assert call_bfcl_method(methods, "no_such", {}) == (
        "Error during execution: name 'no_such' is not defined"
    )
    assert call_bfcl_method(methods, "exit", {}) == (
        "Error during execution: Function call exit is not allowed."
    )
    mentions = ["@a"]
    call_bfcl_method(methods, "authenticate_twitter", {"username": "analyst_pro",
                                                       "password": "Kj8#mP9$vL2"})  # fmt: skip
    call_bfcl_method(methods, "post_tweet", {"content": "x", "mentions": mentions})
    call_bfcl_method(methods, "mention", {"tweet_id": 3, "mentioned_usernames": ["@b"]})
    assert mentions == ["@a"]  # each call gets its own values, as BFCL's eval gives


def test_a_row_without_a_scenario_is_a_one_line_error() -> None:
    with pytest.raises(DatasetError, match="row 'x': environment: expected a BFCL scenario"):
        bfcl_environment({"id": "x", "environment": {"initial_config": {}}})
    with pytest.raises(DatasetError, match="unknown BFCL class 'Nope'"):
        bfcl_environment({"id": "x", "environment": {"involved_classes": ["Nope"]}})


@pytest.mark.parametrize("category", MULTI_TURN_CATEGORIES)
def test_the_installed_package_reads_whole(category: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BFCL_DATA_ENV)
    scan = scan_dataset(f"bfcl:{category}")
    assert scan.problems == [] and scan.valid == 200
    rows = list(bfcl_rows(category))
    held = [t for r in rows for t in r["turns"] if "tools" in t]
    assert bool(held) == (category == "multi_turn_miss_func")
    assert all(len(r["ground_truth"]["turns"]) == 1 + len(r["turns"]) for r in rows)
