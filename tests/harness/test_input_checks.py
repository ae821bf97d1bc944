"""Checks on what a user writes, below the CLI: duplicate YAML keys, tool_choice, a BOM,
retries summed, and which rewards compare tells apart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentloop import ConfigError, EvalConfig
from agentloop.harness import load_config
from agentloop.harness.config._loading import check_tool_choice
from agentloop.harness.data._dataset import iter_samples, scan_dataset
from agentloop.harness.stats._compare import compare_runs
from agentloop.harness.stats._summary import summarize


def test_duplicate_keys_at_any_depth(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("dataset: d.jsonl\nmodel_options:\n  latency: 1\n  latency: 2\ndataset: e\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).splitlines() == [
        f"{path}:4: duplicate key 'latency' (first on line 3)",
        f"{path}:5: duplicate key 'dataset' (first on line 1)",
    ]


def test_same_key_in_different_mappings_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "dataset: d.jsonl\nmodel: scripted:x.json\n"
        "rewards: [{tool_call_match: {order: unordered}}, {tool_call_match: {order: strict}}]\n"
    )
    assert len(load_config(path).rewards) == 2


def _config(**fields: Any) -> EvalConfig:
    return EvalConfig.model_validate({"dataset": "d", "model": "scripted:x", **fields})


@pytest.mark.parametrize("choice", [None, "auto", "required", "none", "any", "add", "lookup"])
def test_tool_choice_modes_and_bound_names_pass(choice: str | None) -> None:
    check_tool_choice(_config(tool_choice=choice), ["add", "lookup"])


def test_tool_choice_naming_an_unbound_tool_fails() -> None:
    with pytest.raises(ConfigError) as caught:
        check_tool_choice(_config(tool_choice="lokup"), ["add", "lookup"], "c.yaml")
    assert str(caught.value) == (
        "c.yaml: tool_choice: no row binds a tool named 'lokup' (tools: add, lookup; "
        "did you mean 'lookup'?)"
    )
    forced = {"type": "function", "function": {"name": "x"}}
    with pytest.raises(ConfigError, match="named 'x' \\(tools: none\\)"):
        check_tool_choice(_config(tool_choice=forced), [])
    check_tool_choice(_config(tool_choice="x", mode="score"), [])  # nothing is requested


def test_a_bom_is_skipped_and_schemas_are_collected(tmp_path: Path) -> None:
    schema = {"type": "function", "function": {"name": "lookup"}}
    rows = [
        {"id": "a", "messages": [{"role": "user", "content": "hi"}], "tools": [schema]},
        {"id": "b", "messages": [{"role": "user", "content": "ho"}]},
    ]
    data = tmp_path / "d.jsonl"
    data.write_bytes(b"\xef\xbb\xbf" + "".join(json.dumps(r) + "\n" for r in rows).encode())
    scan = scan_dataset(data)
    assert (scan.valid, scan.problems, scan.tool_names) == (2, [], {"lookup"})
    assert [s.id for s in iter_samples(data)] == ["a", "b"]
    # A BOM anywhere else is not skipped: it is a stray character in that line.
    data.write_bytes(data.read_bytes() + b"\xef\xbb\xbf{}\n")
    assert "invalid JSON" in str(scan_dataset(data).problems[0])


def test_model_retries_are_summed_over_results() -> None:
    def line(i: int, retries: list[int], status: str = "ok") -> dict[str, Any]:
        steps = [{"retries": r} for r in retries]
        return {"id": f"s{i}", "epoch": 1, "status": status, "trajectory": {"steps": steps}}

    lines = [line(0, [1, 0, 2]), line(1, [3], "error"), line(2, []), {"id": "s3", "epoch": 1}]
    assert summarize(lines).model_retries == 6


def _results(path: Path, scores: dict[str, dict[str, float] | None]) -> Path:
    lines = [
        {"id": i, "epoch": 1, "status": "error"}
        if s is None
        else {
            "id": i,
            "epoch": 1,
            "status": "ok",
            "scores": {k: {"score": v} for k, v in s.items()},
        }
        for i, s in scores.items()
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_a_run_that_scored_nothing_is_compared_as_errored(tmp_path: Path) -> None:
    a = _results(tmp_path / "a.jsonl", {"x": {"qa": 1.0}, "y": {"qa": 0.0}})
    b = _results(tmp_path / "b.jsonl", {"x": None, "y": None})
    cmp = compare_runs(a, b)
    assert [(c.id, c.a, c.b) for c in cmp.changed] == [("x", 1.0, None), ("y", 0.0, None)]
    assert cmp.warnings == []  # results files without run.json: no dataset to compare


def test_tool_choice_is_not_checked_against_tools_made_later() -> None:
    for spec in ({"factory": "m:make"}, {"mcp": {"command": "server"}}):
        check_tool_choice(_config(tool_choice="made_later", tools=[spec]), [])
