"""Checks of the bundled evaluation datasets in configs/data against the real tools.

Every ground-truth call must validate against the tool's schema and run; every
search QA answer must be in the passage that a reasonable query retrieves; the
quickstart answers must follow from the tools' real outputs.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from agentloop.evals import expected_calls, matches
from agentloop.tools import default_tools, openai_tool_schemas
from agentloop.tools.search import load_corpus, search
from pydantic import BaseModel

DATA = Path(__file__).resolve().parents[2] / "configs" / "data"
FILES = ("search_qa.jsonl", "tool_calls.jsonl", "quickstart.jsonl")
TOOLS = {t.name: t for t in default_tools()}
SCHEMAS = {s["function"]["name"]: s["function"] for s in openai_tool_schemas()}
PASSAGES = {p["id"]: p for p in load_corpus()}


def load(name: str) -> list[dict[str, Any]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def rows_of(name: str) -> list[Any]:
    return [pytest.param(row, id=row["id"]) for row in load(name)]


def run_tool(name: str, args: dict[str, Any]) -> Any:
    # ainvoke works for sync and async tools alike (sync ones run in a thread).
    return asyncio.run(TOOLS[name].ainvoke(args))


def render(output: Any) -> str:
    return output if isinstance(output, str) else json.dumps(output)


def answers(row: dict[str, Any]) -> list[str]:
    answer = row["answer"]
    return [answer] if isinstance(answer, str) else list(answer)


def gt_calls(row: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    calls = row["ground_truth"]["tool_calls"]
    return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls]


@pytest.mark.parametrize("name", FILES)
def test_rows_are_well_formed(name: str) -> None:
    rows = load(name)
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids)), "ids must be unique within a file"
    for row in rows:
        assert set(row) <= {"id", "messages", "tools", "ground_truth", "answer", "metadata"}
        assert isinstance(row["id"], str) and row["id"]
        roles = [m["role"] for m in row["messages"]]
        assert roles[-1] == "user" and set(roles) <= {"system", "user", "assistant", "tool"}
        assert all(isinstance(m["content"], str) and m["content"] for m in row["messages"])
        if "answer" in row:
            assert answers(row) and all(isinstance(a, str) and a for a in answers(row))
        if "ground_truth" in row:
            for call in row["ground_truth"]["tool_calls"]:
                assert call["type"] == "function"
                assert isinstance(call["function"]["arguments"], str)


def test_ids_are_unique_across_files() -> None:
    ids = [row["id"] for name in FILES for row in load(name)]
    assert len(ids) == len(set(ids))


def test_sizes() -> None:
    assert len(load("search_qa.jsonl")) >= 25
    assert len(load("tool_calls.jsonl")) >= 25
    assert len(load("quickstart.jsonl")) == 25


@pytest.mark.parametrize("name", FILES)
def test_tool_schemas_match_real_tools(name: str) -> None:
    for row in load(name):
        assert row.get("tools"), f"{row['id']}: no tools"
        for schema in row["tools"]:
            assert schema["type"] == "function"
            function = schema["function"]
            real = SCHEMAS.get(function["name"])
            assert real is not None, f"{row['id']}: unknown tool {function['name']!r}"
            params, real_params = function["parameters"], real["parameters"]
            assert sorted(params.get("required", [])) == sorted(real_params.get("required", []))
            assert set(params["properties"]) == set(real_params["properties"])
            for prop, spec in params["properties"].items():
                assert spec.get("enum") == real_params["properties"][prop].get("enum")


def plain_calls(row: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The ground truth's calls, or where they hold matchers (the quickstart's), the calls
    of the row's steps, which they accept."""
    steps = row.get("metadata", {}).get("steps")
    if steps is None:
        return gt_calls(row)
    plain = [(s["name"], s["arguments"]) for s in steps]
    expected = expected_calls(row["ground_truth"])
    assert [e.name for e in expected] == [name for name, _ in plain], row["id"]
    for e, (_, args) in zip(expected, plain, strict=True):
        assert matches(args, e.matcher), (row["id"], args)
    return plain


@pytest.mark.parametrize("name", FILES)
def test_ground_truth_calls_validate_and_run(name: str) -> None:
    for row in load(name):
        if "ground_truth" not in row:
            continue
        offered = {schema["function"]["name"] for schema in row["tools"]}
        for tool_name, args in plain_calls(row):
            assert tool_name in offered, f"{row['id']}: {tool_name} is not offered"
            # Schema validation first (what the engine does), then a real run.
            schema = TOOLS[tool_name].get_input_schema()
            assert issubclass(schema, BaseModel)
            schema.model_validate(args)
            run_tool(tool_name, args)


@pytest.mark.parametrize("row", rows_of("search_qa.jsonl"))
def test_search_qa_answer_is_retrieved(row: dict[str, Any]) -> None:
    meta = row["metadata"]
    hits = search.invoke({"query": meta["query"], "k": 3})
    assert meta["passage_id"] in [hit["id"] for hit in hits], "source passage not in top 3"
    canonical = answers(row)[0]
    assert canonical.lower() in PASSAGES[meta["passage_id"]]["text"].lower()
    assert canonical.lower() in " ".join(hit["text"] for hit in hits).lower()


def test_search_qa_is_about_the_fictional_corpus() -> None:
    # Answerable only by searching: every question targets a made-up Vellmora
    # passage, which no model can know from pretraining.
    places = ("Vellmor", "Port Aldane", "Bay of Kesh", "Harrowpeak", "Dunmere", "Gannet Point")
    fictional = {pid for pid, p in PASSAGES.items() if any(n in p["text"] for n in places)}
    assert len(fictional) >= 25
    for row in load("search_qa.jsonl"):
        assert row["metadata"]["passage_id"] in fictional
        assert "ground_truth" not in row


@pytest.mark.parametrize("row", rows_of("tool_calls.jsonl"))
def test_tool_call_rows(row: dict[str, Any]) -> None:
    calls = gt_calls(row)
    assert row["metadata"]["n_calls"] == len(calls)
    assert {"calculator", "get_weather"} == {s["function"]["name"] for s in row["tools"]}
    for tool_name, args in calls:
        if tool_name == "calculator":
            assert " " not in args["expression"], "the system prompt asks for no spaces"
        else:
            assert set(args) == {"location", "unit"}, "the system prompt asks for an explicit unit"


def test_reference_boston_example_is_included() -> None:
    rows = {row["id"]: row for row in load("tool_calls.jsonl")}
    (call,) = rows["weather-boston"]["ground_truth"]["tool_calls"]
    assert call["function"] == {
        "name": "get_weather",
        "arguments": '{"location": "Boston, MA", "unit": "fahrenheit"}',
    }


@pytest.mark.parametrize("row", rows_of("quickstart.jsonl"))
def test_quickstart_answers_follow_from_tools(row: dict[str, Any]) -> None:
    steps = row["metadata"]["steps"]
    outputs = []
    for step in steps:
        output = render(run_tool(step["name"], step["arguments"]))
        if "expect" in step:
            assert step["expect"] in output, f"{step} gave {output}"
        outputs.append(output)
    canonical = answers(row)[0]
    if steps[-1]["name"] == "calculator":
        assert outputs[-1] == canonical
    else:
        assert any(canonical in output for output in outputs)
    # The ground truth accepts the steps' calls, in order.
    assert plain_calls(row) == [(s["name"], s["arguments"]) for s in steps]


def test_quickstart_rows_need_one_call_of_their_one_tool() -> None:
    # With one tool bound, tool_choice "required" can be sent as a named choice, which
    # llama-cpp-python's server (the demo's local model) understands.
    for row in load("quickstart.jsonl"):
        (schema,) = row["tools"]
        ((tool_name, _),) = plain_calls(row)
        assert schema["function"]["name"] == tool_name, row["id"]


def test_quickstart_mixes_all_tools() -> None:
    used = [step["name"] for row in load("quickstart.jsonl") for step in row["metadata"]["steps"]]
    assert set(used) == {"calculator", "get_weather", "search"}
    assert min(used.count(name) for name in set(used)) >= 2
