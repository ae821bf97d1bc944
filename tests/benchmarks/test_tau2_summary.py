"""``agentloop tau2 summary``: τ²-bench's average reward and pass^k (infrastructure errors left
out) beside agentloop's (every trial counts), and whether a run compares with the leaderboard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentloop.benchmarks.tau2._data import tau2_rows
from agentloop.benchmarks.tau2._summary import VERDICT, format_tau2_summary, summarize_tau2
from agentloop.cli import main
from agentloop.errors import AgentloopError

TASKS = [row["id"] for row in tau2_rows("mock")]
STANDARD = {
    "epochs": 4,
    "user": {
        "model": "openai:gpt-4.1-2025-04-14",
        "model_params": {"temperature": 0},
        "instructions": "@user_instructions_tools.md",
        "agent_stop_signals": [],
    },
}


def _line(task: str, epoch: int, score: float | None, **details: object) -> dict:
    line: dict = {"id": task, "epoch": epoch, "status": "ok" if score is not None else "error"}
    if score is not None:
        line["scores"] = {VERDICT: {"score": score, "details": details}}
    line["metadata"] = {"domain": "mock", "task_id": task, "task_set": "1.0.1"}
    return line


def _run(tmp_path: Path, trials: dict[str, list], config: dict | None = None) -> Path:
    """A run directory: each task's trials (1.0, 0.0, "error", or "raised": an env assertion
    that raised, scored 0), every other mock task failing its 4 trials."""
    run = tmp_path / "run"
    run.mkdir()
    header = {"config": config or STANDARD, "dataset": {"path": "tau2:mock", "task_set": "1.0.1"}}
    (run / "run.json").write_text(json.dumps(header))
    lines = []
    for task in TASKS:
        for epoch, outcome in enumerate(trials.get(task, [0.0] * 4), start=1):
            if outcome == "error":
                lines.append(_line(task, epoch, None))
            elif outcome == "raised":
                lines.append(_line(task, epoch, 0.0, tau2_error="infrastructure error: ..."))
            else:
                lines.append(_line(task, epoch, outcome))
    (run / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return run


def test_a_standard_run_reads_the_same_both_ways_and_compares(tmp_path: Path) -> None:
    run = _run(tmp_path, {TASKS[0]: [1.0] * 4, TASKS[1]: [1.0, 1.0, 0.0, 0.0]})
    [m] = summarize_tau2([run]).domains
    assert (m.domain, m.task_set, m.tasks, m.results) == ("mock", "1.0.1", 10, 40)
    assert m.average_reward == m.tau2_average_reward == pytest.approx(6 / 40)
    expected = {1: 6 / 40, 2: (1 + 1 / 6) / 10, 3: 0.1, 4: 0.1}
    assert m.pass_hat_k == pytest.approx(expected) and m.tau2_pass_hat_k == m.pass_hat_k
    assert m.comparable and m.why_not == []
    assert format_tau2_summary(summarize_tau2([run])).endswith(
        "comparable with τ²-bench's leaderboard"
    )


def test_infrastructure_errors_count_as_failures_here_and_are_left_out_by_tau2(
    tmp_path: Path,
) -> None:
    run = _run(tmp_path, {TASKS[0]: [1.0, 1.0, 1.0, "raised"], TASKS[1]: [1.0, 1.0, 0.0, "error"]})
    [m] = summarize_tau2([run]).domains
    assert (m.errored, m.tau2_errors, m.tau2_simulations) == (1, 1, 38)
    # agentloop: every trial, the errored and the raised ones failed (reward 0)
    assert m.average_reward == pytest.approx(5 / 40)
    assert m.pass_hat_k[1] == pytest.approx(5 / 40) and sorted(m.pass_hat_k) == [1, 2, 3, 4]
    # τ²-bench: those two left out; k up to 3, the fewest trials a task has left
    assert m.tau2_average_reward == pytest.approx(5 / 38)
    assert m.tau2_pass_hat_k[1] == pytest.approx((1 + 2 / 3) / 10)
    assert sorted(m.tau2_pass_hat_k) == [1, 2, 3]
    assert not m.comparable
    assert m.why_not == [
        "1 errored result(s) (run them again: --retry-errors)",
        "1 τ²-bench infrastructure error(s): an env assertion raised on what the agent left "
        "undone (τ²-bench's evaluator raises; scored 0 here, not an errored result, so "
        "--retry-errors does not run it again)",
    ]
    text = format_tau2_summary(summarize_tau2([run]))
    assert "agentloop (every trial; errored ones failed): average reward 0.125" in text
    assert "τ²-bench (infrastructure errors left out: 1 errored, 1 env assertion(s) raised" in text


def test_what_keeps_a_run_from_the_leaderboard_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {
        "epochs": 1,
        "user": {
            "model": "openai:gpt-4o-mini",
            "instructions": "my_user.md",
            "agent_stop_signals": ["###STOP###"],
        },
    }
    run = _run(tmp_path, {task: [1.0] for task in TASKS[:3]}, config)
    lines = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    kept = [x for x in lines if x["epoch"] == 1 and x["id"] in TASKS[:3]]
    for line in kept:
        line["metadata"]["task_set"] = "0.2"
    (run / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in kept))
    [m] = summarize_tau2([run]).domains
    assert m.why_not == [
        "task set 0.2 (the leaderboard runs 1.0.1)",
        "3 of the 10 tasks",
        "1 trial(s) per task (at least 4)",
        "user openai:gpt-4o-mini (τ²-bench's: openai:gpt-4.1-2025-04-14 at temperature 0)",
        "not the shipped user guidelines",
        "an agent stop signal (τ²-bench's agent has none)",
    ]
    assert main(["tau2", "summary", str(run)]) == 0
    out = capsys.readouterr().out
    assert "not comparable with τ²-bench's leaderboard: task set 0.2 (the leaderboard" in out
    with pytest.raises(AgentloopError, match="no results file"):
        summarize_tau2([tmp_path])


def test_the_retry_advice_names_what_retry_errors_runs_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The offline recipe on the first two mock tasks: create_task_1's agent has no reply
    # (an errored result), create_task_1_with_env_assertions's never creates task_2, so the
    # env assertion on it raises (τ²-bench's infrastructure error). Only the first is advised
    # to --retry-errors, and --retry-errors runs exactly it again.
    root = Path(__file__).resolve().parents[2]
    scripts = json.loads((root / "configs/scripts/tau2_mock.json").read_text())
    scripts["create_task_1"] = []
    scripts["create_task_1_with_env_assertions"] = ["I could not create it."]
    agent = tmp_path / "agent.json"
    agent.write_text(json.dumps(scripts))
    code = main([
        "run", str(root / "configs/tau2/mock.yaml"), "--model", f"scripted:{agent}",
        "--set", f"user.model=scripted:{root / 'configs/scripts/tau2_mock_user.json'}",
        "--set", "epochs=1", "--limit", "2", "--no-preflight",
        "--output-dir", str(tmp_path / "runs"),
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    (run,) = (tmp_path / "runs").iterdir()
    [m] = summarize_tau2([run]).domains
    assert (m.errored, m.tau2_errors) == (1, 1)
    said = " ".join(out.split())
    assert "1 errored result(s) (run them again: --retry-errors)" in said
    assert "1 τ²-bench infrastructure error(s): an env assertion raised" in said
    assert "infrastructure error(s) (run them again" not in said
    assert main(["run", "--resume", str(run), "--retry-errors", "--no-preflight"]) == 0
    header = json.loads((run / "run.json").read_text())
    assert header["resumed_at"][-1]["retry_errors"] == 1  # the errored one, and only it
