"""Every shipped config runs end to end offline and scores what its script deserves."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentloop.evals import normalize_answer

from agentloop.cli import _demo as demo
from agentloop.harness import load_config
from agentloop.harness._runner import run_eval_sync
from tests.support.harness import ROOT, only_run_dir, read_results


@pytest.fixture(autouse=True)
def _at_root() -> Iterator[None]:
    # Config paths are relative to the working directory: the project root.
    before = Path.cwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(before)


def run_shipped(name: str, tmp_path: Path) -> dict[str, dict[str, Any]]:
    path = f"configs/{name}.yaml"
    config = load_config(
        path,
        overrides={"model": f"scripted:configs/scripts/{name}.json", "output_dir": str(tmp_path)},
    )
    outcome = run_eval_sync(config, config_path=path)
    assert outcome.exit_code == 0 and outcome.summary.errored == 0
    return {r["id"]: r for r in read_results(outcome.run_dir)}


def scores(lines: dict[str, dict[str, Any]], reward: str) -> dict[str, float]:
    return {sid: line["scores"][reward]["score"] for sid, line in lines.items()}


def tool_text(line: dict[str, Any]) -> str:
    return " ".join(m["content"] for m in line["trajectory"]["messages"] if m["role"] == "tool")


def answers(line: dict[str, Any]) -> list[str]:
    return line["answer"] if isinstance(line["answer"], list) else [line["answer"]]


def test_quickstart(tmp_path: Path) -> None:
    lines = run_shipped("quickstart", tmp_path)
    assert len(lines) == 25
    # The script answers one task verbosely and searches another with other keywords,
    # which still matches: the config ignores search arguments (free-text queries).
    qa = dict.fromkeys(lines, 1.0) | {"qs-brassfield-inventor": 0.5}
    assert scores(lines, "qa_f1_reward_format") == qa
    assert scores(lines, "tool_call_match") == dict.fromkeys(lines, 1.0)
    for line in lines.values():
        # One forced tool call, run for real, then the answer.
        assert line["tool_calls_by_status"] == {"ok": 1}, line["id"]
        assert line["rounds"] == 1 and line["stop_reason"] == "final", line["id"]
        text = tool_text(line)
        for step in line["metadata"]["steps"]:
            assert step.get("expect", "") in text, (line["id"], step)
        assert any(normalize_answer(a) in normalize_answer(text) for a in answers(line))


def test_search_qa(tmp_path: Path) -> None:
    lines = run_shipped("search_qa", tmp_path)
    assert len(lines) == 36
    f1 = dict.fromkeys(lines, 1.0) | {"search-qa-27": 0.0, "search-qa-12": 0.5}
    assert scores(lines, "qa_f1_reward") == f1
    # search-qa-01 answers without searching: the format reward gates it to 0.
    assert scores(lines, "qa_f1_reward_format") == f1 | {"search-qa-01": 0.0}
    for sid, line in lines.items():
        if sid in ("search-qa-01", "search-qa-27"):
            continue
        text = normalize_answer(tool_text(line))
        assert any(normalize_answer(a) in text for a in answers(line)), sid


def test_tool_calls(tmp_path: Path) -> None:
    lines = run_shipped("tool_calls", tmp_path)
    assert all(line["single_turn"] for line in lines.values())
    wrong = {"calc-add": 0.0, "weather-paris-celsius": 0.0, "parallel-calc": 0.0}
    expected = dict.fromkeys(lines, 1.0) | wrong
    assert scores(lines, "exact_tool_match_reward") == expected
    assert scores(lines, "tool_call_match") == expected
    # Nothing was executed.
    assert all(set(line["tool_calls_by_status"]) <= {"not_run"} for line in lines.values())


def test_demo_runs_the_quickstart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The demo's local model is replaced by the offline script (make test-live runs a
    # real local model).
    script = "scripted:configs/scripts/quickstart.json"
    assert demo.main(["--model", script, "--output-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "qa_f1_reward_format" in out and "tool_call_match" in out and "results:" in out
    assert "local model server" not in out
    assert len(read_results(only_run_dir(tmp_path))) == 25


def test_demo_without_the_local_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(demo, "missing_local_extra", lambda: ["llama_cpp"])
    assert demo.main() == 2
    err = capsys.readouterr().err
    assert "pip install 'agentloop[local]'" in err and len(err.splitlines()) == 1
