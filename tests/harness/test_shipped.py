"""Every shipped config runs end to end offline and scores what its script deserves; the
offline recipes of the benchmark configs (BFCL, τ²-bench) run as documented."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentloop.evals import normalize_answer

from agentloop.benchmarks.bfcl._package import BFCL_DATA_ENV, bfcl_package
from agentloop.cli import _demo as demo
from agentloop.cli._commands import main
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from tests.support.harness import ROOT, only_run_dir, read_results


@pytest.fixture(autouse=True)
def _at_root() -> Iterator[None]:
    # The recipes' command lines name the scripts from the repository's root (a config's
    # own paths are relative to its folder; those of the command line, to the working one).
    before = Path.cwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(before)


def run_shipped(name: str, tmp_path: Path, **overrides: Any) -> dict[str, dict[str, Any]]:
    path = f"configs/{name}.yaml"
    model = f"scripted:configs/scripts/{name}.json"
    config = load_config(
        path, overrides={"model": model, "output_dir": str(tmp_path), **overrides}
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
    # The script answers one task with a sentence, which the rows' instructions rule out.
    assert scores(lines, "answer_match") == dict.fromkeys(lines, 1.0) | {
        "qs-brassfield-inventor": 0.0
    }
    assert scores(lines, "tool_call_match") == dict.fromkeys(lines, 1.0)
    for line in lines.values():
        # One forced tool call, run for real, then the answer.
        assert line["tool_calls_by_status"] == {"ok": 1}, line["id"]
        assert line["rounds"] == 1 and line["stop_reason"] == "final", line["id"]
        text = tool_text(line)
        for step in line["metadata"]["steps"]:
            assert step.get("expect", "") in text, (line["id"], step)
        assert any(normalize_answer(a) in normalize_answer(text) for a in answers(line))


def _call(name: str, **args: Any) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(args)}
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": function}]}  # fmt: skip


def test_quickstart_scores_the_arguments_that_decide_the_answer(tmp_path: Path) -> None:
    # What the demo's 270M model did: a search the tool rejected (k out of range) used to
    # pass, as the config ignored search's arguments; "Miami, FL", which the tool answered
    # and its schema asks for ("city and state"), used to fail; a raw <tool_call> text in
    # place of the answer got partial credit.
    raw = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Miami, FL"}}'
    script = {
        "qs-miami": [_call("get_weather", location="Miami, FL"), "79"],
        "qs-cairo": [_call("get_weather", location="Cairo, Egypt", unit="fahrenheit"), raw],
        "qs-tokyo-celsius": [_call("get_weather", location="Tokyo", unit="fahrenheit"), "64"],
        "qs-vellmora-capital": [_call("search", query="capital of Vellmora", k=10**15), "?"],
        "qs-glass-tide-planet": [_call("search", query="The Glass Tide", k=5), "Nereth."],
        "qs-comet-discoverer": [_call("search", query="capital of Vellmora"), "Tomas Rell"],
        "qs-add": [_call("calculator", expression="4821+1379"), "6,200"],
    }
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    ids = list(script)
    lines = run_shipped("quickstart", tmp_path, model=f"scripted:{path}", sample_ids=ids)
    assert scores(lines, "tool_call_match") == {
        "qs-miami": 1.0, "qs-cairo": 1.0, "qs-tokyo-celsius": 0.0,
        "qs-vellmora-capital": 0.0, "qs-glass-tide-planet": 1.0,
        "qs-comet-discoverer": 0.0, "qs-add": 1.0,
    }  # fmt: skip
    assert scores(lines, "answer_match") == {
        "qs-miami": 1.0, "qs-cairo": 0.0, "qs-tokyo-celsius": 0.0,
        "qs-vellmora-capital": 0.0, "qs-glass-tide-planet": 1.0,
        "qs-comet-discoverer": 1.0, "qs-add": 1.0,
    }  # fmt: skip
    rejected = lines["qs-vellmora-capital"]
    assert rejected["tool_calls_by_status"] == {"error": 1}


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
    assert main(["demo", "--model", script, "--output-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "answer_match" in out and "tool_call_match" in out and "results:" in out
    assert "local model server" not in out
    assert len(read_results(only_run_dir(tmp_path))) == 25


def test_demo_without_the_local_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(demo, "missing_local_extra", lambda: ["llama_cpp"])
    assert main(["demo"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'agentloop[local]'" in err and len(err.splitlines()) == 1


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_shipped_config_runs_from_another_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its dataset and its script are named relative to the config's folder (they were
    # relative to the working directory: only the repository's root could run it).
    monkeypatch.chdir(tmp_path)
    config = os.path.relpath(ROOT / "configs" / "bank.yaml")
    code, _, err = run_cli(capsys, "run", config, "--output-dir", "runs")
    assert code == 0 and err == ""
    run_dir = only_run_dir(tmp_path / "runs")
    header = json.loads((run_dir / "run.json").read_text())
    assert Path(header["dataset"]["path"]).resolve() == ROOT / "configs" / "data" / "bank.jsonl"
    state = {
        line["id"]: line["scores"]["env_state_match"]["score"] for line in read_results(run_dir)
    }
    assert state == {"bank-1": 1.0, "bank-2": 0.0}  # bank-2's script deposits a wrong amount


needs_bfcl = pytest.mark.skipif(
    BFCL_DATA_ENV not in os.environ and bfcl_package() is None,
    reason="bfcl-eval is not installed: pip install --no-deps 'bfcl-eval==2026.3.23'",
)


@needs_bfcl
def test_the_bfcl_offline_recipe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # configs/bfcl/simple_python.yaml's recipe (docs/pages/bfcl.md): the first 10 rows of
    # the category, scored on BFCL's own ground truth by its verdict, offline.
    from agentloop.benchmarks.bfcl._summary import summarize_bfcl

    code, _, err = run_cli(
        capsys, "run", "configs/bfcl/simple_python.yaml", "--limit", "10",
        "--model", "scripted:configs/scripts/bfcl_simple_python.json",
        "--output-dir", str(tmp_path),
    )  # fmt: skip
    assert code == 0 and err == ""
    lines = {line["id"]: line for line in read_results(only_run_dir(tmp_path))}
    wrong = {"simple_python_5": 0.0, "simple_python_9": 0.0}
    expected = {f"simple_python_{i}": 1.0 for i in range(10)} | wrong
    assert scores(lines, "bfcl_verdict") == expected
    assert scores(lines, "tool_call_match") == expected
    assert "'root_type' is missing" in lines["simple_python_5"]["scores"]["bfcl_verdict"]["reason"]
    assert all(line["single_turn"] for line in lines.values())
    summary = summarize_bfcl([only_run_dir(tmp_path)])
    assert summary.categories["simple_python"].accuracy == pytest.approx(0.8)


TAU2_VERDICT = "agentloop.benchmarks:tau2_verdict"


def test_the_tau2_mock_offline_recipe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # configs/tau2/mock.yaml's recipe (docs/pages/tau2.md): a scripted agent and a scripted
    # simulated user, 4 epochs. The user's model options (api_key_env, written for
    # openai:) used to fail the scripted user like a typo.
    recipe = [
        "run", "configs/tau2/mock.yaml",
        "--model", "scripted:configs/scripts/tau2_mock.json",
        "--set", "user.model=scripted:configs/scripts/tau2_mock_user.json",
    ]  # fmt: skip
    code, out, err = run_cli(capsys, *recipe, "--output-dir", str(tmp_path))
    assert code == 0 and err == ""
    run_dir = only_run_dir(tmp_path)
    lines = read_results(run_dir)
    assert len(lines) == 40 and {line["stop_reason"] for line in lines} == {"user_stop"}
    failing = {
        "update_task_with_initialization_data",  # its COMMUNICATE strings are not said
        "update_task_with_user_tools",  # τ²-bench's ground truth leaves the inbox unread
    }
    for line in lines:
        verdict = line["scores"][TAU2_VERDICT]
        assert verdict["score"] == (0.0 if line["id"] in failing else 1.0), verdict["reason"]
    assert lines[0]["trajectory"]["user_messages"][0]["content"].startswith(
        "# User Simulation Guidelines"  # configs/tau2/user_instructions_tools.md
    )
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["rewards"][TAU2_VERDICT]["pass_hat_k"] == dict.fromkeys("1234", 0.8)
    # τ²-bench's own figures of the run, in its summary and printed with it
    (figures,) = summary["benchmarks"]["tau2"]
    assert (figures["domain"], figures["tasks"], figures["tau2_simulations"]) == ("mock", 10, 40)
    assert figures["tau2_pass_hat_k"] == dict.fromkeys("1234", 0.8)
    assert figures["comparable"] is False  # a scripted user, not τ²-bench's
    assert "user scripted:configs/scripts/tau2_mock_user.json" in " ".join(figures["why_not"])
    assert "τ²-bench (infrastructure errors left out: 0 errored" in out
    assert "not comparable with τ²-bench's leaderboard: user scripted:" in out
    # an error in the user's model options says it is the user's
    code, _, err = run_cli(capsys, *recipe, "--set", "user.model_options.latncy=0")
    assert code == 2 and err == (
        "agentloop: error: user: unknown scripted model option(s): latncy; known: latency\n"
    )
