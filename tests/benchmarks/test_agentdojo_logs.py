"""``agentloop agentdojo import``: AgentDojo's own run logs (written here by AgentDojo's own
benchmark with scripted replies) become rows, scripts and a config; ``agentloop run`` of that
config re-scores them, the logs' verdicts beside agentloop's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentloop.benchmarks.agentdojo._logs import import_logs
from agentloop.benchmarks.agentdojo._rows import agentdojo_rows
from agentloop.cli._commands import main
from agentloop.errors import DatasetError
from tests.support.harness import bench_module, only_run_dir, read_results

UTILITY = "agentloop.benchmarks:agentdojo_utility"
SECURITY = "agentloop.benchmarks:agentdojo_security"
PIPELINE = "gpt-4o-2024-05-13"


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """AgentDojo's logs of banking's user_task_3 (solved), injection_task_1 as a user task,
    and the pair under important_instructions with the injection obeyed, then the task."""
    cases = bench_module("agentdojo_cases")
    rows = {r["id"]: r for r in agentdojo_rows("banking")}
    task, goal = rows["user_task_3"], rows["injection_task_1"]
    prompt, goal_text = task["messages"][1]["content"], goal["messages"][1]["content"]
    folder = tmp_path_factory.mktemp("agentdojo-logs")
    with cases.frozen_time():
        cases.write_logs(folder, "banking", {prompt: cases.canonical(task)},
                         user_tasks=["user_task_3"])  # fmt: skip
        obeyed = cases.attacker(rows["user_task_3+injection_task_1"])
        cases.write_logs(
            folder, "banking", {prompt: obeyed, goal_text: cases.canonical(goal)},
            user_tasks=["user_task_3"], injection_tasks=["injection_task_1"],
            attack="important_instructions",
        )  # fmt: skip
    return folder


def _logs(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.json"))


def test_agentdojos_benchmark_wrote_one_log_per_run(logdir: Path) -> None:
    assert _logs(logdir) == [
        f"{PIPELINE}/banking/injection_task_1/none/none.json",
        f"{PIPELINE}/banking/user_task_3/important_instructions/injection_task_1.json",
        f"{PIPELINE}/banking/user_task_3/none/none.json",
    ]
    log = json.loads((logdir / _logs(logdir)[1]).read_text())
    assert (log["utility"], log["security"], log["benchmark_version"]) == (True, True, "v1.2.2")


def test_imported_logs_rescore_to_their_recorded_verdicts(logdir: Path, tmp_path: Path) -> None:
    out = tmp_path / "imported"
    assert main(["agentdojo", "import", str(logdir), str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["data.jsonl", "eval.yaml", "scripts.json"]
    rows = [json.loads(line) for line in (out / "data.jsonl").read_text().splitlines()]
    pair = next(r for r in rows if r["metadata"]["kind"] == "attacked")
    shipped = next(r for r in agentdojo_rows("banking")
                   if r["id"] == "user_task_3+injection_task_1")  # fmt: skip
    assert pair["environment"] == shipped["environment"]  # the log's injections, as shipped
    assert pair["messages"] == shipped["messages"]
    assert main(["run", str(out / "eval.yaml"), "--no-preflight",
                 "--output-dir", str(tmp_path / "runs")]) == 0  # fmt: skip
    lines = read_results(only_run_dir(tmp_path / "runs"))
    assert len(lines) == 3 and {line["status"] for line in lines} == {"ok"}
    for line in lines:
        meta, scores = line["metadata"], line["scores"]
        assert scores[UTILITY]["score"] == float(meta["recorded_utility"]), line["id"]
        assert scores[UTILITY]["details"]["recorded"] is meta["recorded_utility"]
        assert scores[UTILITY]["details"]["tool_output_differences"] == []
        if meta["kind"] == "attacked":
            assert scores[SECURITY]["score"] == float(meta["recorded_security"]) == 1.0


def test_a_regenerated_output_that_differs_is_named(logdir: Path, tmp_path: Path) -> None:
    out = tmp_path / "imported"
    import_logs(logdir, out)
    rows = [json.loads(line) for line in (out / "data.jsonl").read_text().splitlines()]
    row = next(r for r in rows if r["metadata"]["kind"] == "user_task")
    outputs = row["ground_truth"]["agentdojo_log"]["tool_outputs"]
    first = sorted(outputs)[0]
    outputs[first] = "something else"
    (out / "data.jsonl").write_text(json.dumps(row) + "\n")
    assert main(["run", str(out / "eval.yaml"), "--no-preflight",
                 "--output-dir", str(tmp_path / "runs")]) == 0  # fmt: skip
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert line["scores"][UTILITY]["details"]["tool_output_differences"] == [first]


def _one_log(logdir: Path, tmp_path: Path, **changes: Any) -> Path:
    folder = tmp_path / "logs"
    source = logdir / PIPELINE / "banking" / "user_task_3" / "none" / "none.json"
    target = folder / source.relative_to(logdir)
    target.parent.mkdir(parents=True)
    log = json.loads(source.read_text())
    log.update(changes)
    for key in [k for k, v in changes.items() if v is None]:
        del log[key]
    target.write_text(json.dumps(log))
    return folder


def test_a_log_without_a_version_takes_the_option(logdir: Path, tmp_path: Path) -> None:
    folder = _one_log(logdir, tmp_path, benchmark_version=None)
    assert import_logs(folder, tmp_path / "out", "v1.1.1").imported == 1
    (row,) = [json.loads(x) for x in (tmp_path / "out" / "data.jsonl").read_text().splitlines()]
    assert row["environment"]["version"] == row["metadata"]["version"] == "v1.1.1"


def test_a_log_whose_task_the_version_lacks_is_refused_in_one_line(
    logdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _one_log(logdir, tmp_path, user_task_id="user_task_99")
    done = import_logs(folder, tmp_path / "out")
    ((path, reason),) = done.refused
    assert done.imported == 0 and path.endswith("none.json")
    assert reason == ("AgentDojo banking v1.2.2 has no task 'user_task_99' (give the "
                      "version the log was run with: --version)")  # fmt: skip
    assert not (tmp_path / "out").exists()
    # nothing imported: the log with its reason, then the error, one line each
    assert main(["agentdojo", "import", str(folder), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"agentloop: not imported: {path}: {reason}",
        f"agentloop: error: {folder}: none of the 1 AgentDojo log(s) could be imported (each "
        "is listed above with the reason)",
    ]


def test_one_refused_log_leaves_the_others_imported(
    logdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It used to void the whole import (exit 2, nothing written).
    folder = tmp_path / "logs"
    shutil.copytree(logdir, folder)
    broken = folder / PIPELINE / "banking" / "user_task_3" / "none" / "none.json"
    broken.write_text(broken.read_text().replace('"user_task_3"', '"user_task_99"'))
    out = tmp_path / "imported"
    assert main(["agentdojo", "import", str(folder), str(out)]) == 0
    said = capsys.readouterr()
    assert said.err.splitlines() == [
        f"agentloop: not imported: {broken}: AgentDojo banking v1.2.2 has no task "
        "'user_task_99' (give the version the log was run with: --version)",
        "agentloop: 1 of 3 AgentDojo log(s) not imported (listed above)",
    ]
    assert said.out.startswith(f"wrote 2 rows of AgentDojo logs to {out}")
    assert len((out / "data.jsonl").read_text().splitlines()) == 2


DETECTOR = "transformers_pi_detector"


@pytest.fixture(scope="module")
def detector_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """AgentDojo's logs of the detector defense's pipeline (a rule in place of its classifier:
    a text with ``<INFORMATION>``, the attack's marker, is an injection) on the same runs."""
    cases = bench_module("agentdojo_cases")
    rows = {r["id"]: r for r in agentdojo_rows("banking")}
    task, goal = rows["user_task_3"], rows["injection_task_1"]
    prompt, goal_text = task["messages"][1]["content"], goal["messages"][1]["content"]
    folder = tmp_path_factory.mktemp("agentdojo-detector-logs")

    def rule(text: str) -> bool:
        return "<INFORMATION>" in text

    with cases.frozen_time():
        cases.write_logs(folder, "banking", {prompt: cases.canonical(task)},
                         user_tasks=["user_task_3"], detector=rule)  # fmt: skip
        obeyed = cases.attacker(rows["user_task_3+injection_task_1"])
        cases.write_logs(
            folder, "banking", {prompt: obeyed, goal_text: cases.canonical(goal)},
            user_tasks=["user_task_3"], injection_tasks=["injection_task_1"],
            attack="important_instructions", detector=rule,
        )  # fmt: skip
    return folder


def test_detector_logs_import_and_rescore_as_agentdojo_replays_them(
    detector_logdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = bench_module("agentdojo_cases")
    placeholder = "<Data omitted because a prompt injection was detected>"
    pair = f"{PIPELINE}-{DETECTOR}/banking/user_task_3/important_instructions/injection_task_1"
    log = json.loads((detector_logdir / f"{pair}.json").read_text())
    read = [m["content"][0]["content"] for m in log["messages"] if m["role"] == "tool"]
    assert placeholder in read  # the detector replaced what the model read
    out = tmp_path / "imported"
    assert main(["agentdojo", "import", str(detector_logdir), str(out)]) == 0
    said = capsys.readouterr()
    assert said.err == ""  # it used to refuse the whole folder
    assert said.out.startswith(
        f"3 log(s) of the {DETECTOR} defense: replayed without the detector, its verdicts (the "
        "results it replaced) taken from the logs, not recomputed"
    )
    rows = {r["id"]: r for r in map(json.loads, (out / "data.jsonl").read_text().splitlines())}
    scripts = json.loads((out / "scripts.json").read_text())
    assert {r["metadata"]["defense"] for r in rows.values()} == {DETECTOR}
    assert not any("defense" in r["environment"] for r in rows.values())
    assert main(["run", str(out / "eval.yaml"), "--no-preflight",
                 "--output-dir", str(tmp_path / "runs")]) == 0  # fmt: skip
    lines = read_results(only_run_dir(tmp_path / "runs"))
    assert len(lines) == 3 and {line["status"] for line in lines} == {"ok"}
    for line in lines:
        meta, scores, row = line["metadata"], line["scores"], rows[line["id"]]
        # AgentDojo's own run_task_with_pipeline, replaying the replies with no defense
        theirs = cases.agentdojo_judge(row, scripts[line["id"]])
        assert (
            scores[UTILITY]["score"] == float(theirs["utility"]) == float(meta["recorded_utility"])
        ), line["id"]
        # what the model read is what the log recorded, the detector's placeholder included
        assert scores[UTILITY]["details"]["tool_output_differences"] == [], line["id"]
        if meta["kind"] == "attacked":
            assert (
                scores[SECURITY]["score"]
                == float(theirs["security"])
                == float(meta["recorded_security"])
            )
    attacked = next(line for line in lines if line["id"] == pair)
    tool_texts = [m["content"] for m in attacked["trajectory"]["messages"] if m["role"] == "tool"]
    assert tool_texts == read


def test_a_folder_without_logs_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no AgentDojo logs"):
        import_logs(tmp_path, tmp_path / "out")
