"""τ²-bench task sets in runs: recorded in run.json and in each result's metadata; ``compare``
refuses runs over different task sets (one line) unless told to (``--across-task-sets``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentloop.cli import main
from agentloop.errors import AgentloopError
from agentloop.harness import compare_runs
from agentloop.harness.stats._compare import compare_many
from agentloop.harness.stats._task_sets import run_task_set
from tests.support.harness import ask, call, read_results, run_once, write_config, write_json

TASK = "update_task_1"


def _run(tmp_path: Path, dataset: str) -> Path:
    """One scripted conversation on a mock task, scored by tau2_verdict."""
    agent = {
        TASK: [
            ask(call("c1", "update_task_status", {"task_id": "task_1", "status": "completed"})),
            "Task task_1 is completed.",
        ]
    }
    user = {TASK: ["Please mark task_1 as completed.", "Thanks. ###STOP###"]}
    config = write_config(
        tmp_path / "eval.yaml",
        model=f"scripted:{write_json(tmp_path / 'agent.json', agent)}",
        dataset=dataset,
        environment="agentloop.benchmarks:tau2_environment",
        user={
            "model": f"scripted:{write_json(tmp_path / 'user.json', user)}",
            "agent_stop_signals": [],
        },
        sample_ids=[TASK],
        rewards=["agentloop.benchmarks:tau2_verdict"],
        output_dir=str(tmp_path / "runs"),
    )
    return run_once(config)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    made = {}
    for name, dataset in (
        ("new", "tau2:mock"),
        ("same", "tau2:mock@1.0.1"),
        ("old", "tau2:mock@0.2"),
    ):
        made[name] = _run(tmp_path_factory.mktemp(name), dataset)
    return made


def test_the_task_set_is_in_run_json_and_in_each_result(runs: dict[str, Path]) -> None:
    for name, task_set in (("new", "1.0.1"), ("same", "1.0.1"), ("old", "0.2")):
        header = json.loads((runs[name] / "run.json").read_text())
        assert header["dataset"]["task_set"] == task_set
        assert header["dataset"]["abs_path"] is None  # a benchmark's name, not a file
        [line] = read_results(runs[name])
        assert line["metadata"]["task_set"] == task_set
        assert line["scores"]["agentloop.benchmarks:tau2_verdict"]["score"] == 1.0
        assert run_task_set(runs[name]) == task_set
        assert run_task_set(runs[name] / "results.jsonl") == task_set


def test_compare_refuses_runs_over_different_task_sets_unless_told(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert compare_runs(runs["new"], runs["same"]).warnings == []
    with pytest.raises(AgentloopError) as caught:
        compare_runs(runs["old"], runs["new"])
    message = str(caught.value)
    assert "\n" not in message
    assert message == (
        "the runs scored different τ²-bench task sets (A: 0.2, B: 1.0.1): the same task id "
        "holds other criteria; --across-task-sets compares them anyway"
    )
    with pytest.raises(AgentloopError, match=r"\(A: 1.0.1, B: 1.0.1, C: 0.2\)"):
        compare_many([runs["new"], runs["same"], runs["old"]])
    told = compare_runs(runs["old"], runs["new"], across_task_sets=True)
    assert told.warnings[0].startswith("the runs scored different τ²-bench task sets (A: 0.2")
    assert [d.delta for d in told.rewards] == [0.0]
    multi = compare_many([runs["new"], runs["old"]], across_task_sets=True)
    assert multi.pairs[0].warnings[0].startswith("the runs scored different τ²-bench task sets")
    # the command line: one line and exit 2 (a usage error), or the comparison with the flag
    assert main(["compare", str(runs["old"]), str(runs["new"])]) == 2
    assert "--across-task-sets compares them anyway" in capsys.readouterr().err
    assert main(["compare", str(runs["old"]), str(runs["new"]), "--across-task-sets"]) == 0
    assert "different τ²-bench task sets" in capsys.readouterr().out


def test_a_run_from_before_task_sets_were_recorded_read_the_old_files(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    header = json.loads((runs["old"] / "run.json").read_text())
    del header["dataset"]["task_set"]
    (tmp_path / "run.json").write_text(json.dumps(header))
    (tmp_path / "results.jsonl").write_text((runs["old"] / "results.jsonl").read_text())
    assert run_task_set(tmp_path) == "0.2"
    with pytest.raises(AgentloopError, match=r"\(A: 0.2, B: 1.0.1\)"):
        compare_runs(tmp_path, runs["new"])
