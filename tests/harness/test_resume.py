"""Crash safety: a run killed at any moment resumes without losing or repeating samples."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from tests.support.harness import ROOT, add_setup, only_run_dir, read_results


def outcome_by_pair(run_dir: Path) -> dict[tuple[str, int], Any]:
    lines = read_results(run_dir)
    pairs = [(r["id"], r["epoch"]) for r in lines]
    assert len(pairs) == len(set(pairs)), "a sample was repeated"
    return {(r["id"], r["epoch"]): (r["status"], r["scores"], r["passed"]) for r in lines}


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "agentloop.cli", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )


def test_sigkill_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=200, epochs=2, concurrency=8, model_options={"latency": 0.01})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    stderr = tmp_path / "stderr.txt"
    with stderr.open("w") as err_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agentloop.cli", "run", str(config)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err_file,
        )
    results: Path | None = None
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            runs = tmp_path / "runs"
            if results is None and runs.is_dir() and any(runs.iterdir()):
                results = only_run_dir(runs) / "results.jsonl"
            if results is not None and results.is_file():
                count = results.read_bytes().count(b"\n")
                if count >= 40:
                    break
            assert proc.poll() is None, stderr.read_text()
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert results is not None
    done_before = results.read_bytes().count(b"\n")
    assert 40 <= done_before < 400, done_before
    run_dir = results.parent
    assert not (run_dir / "summary.json").exists()

    resumed = cli("run", "--resume", str(run_dir))
    assert resumed.returncode == 0, resumed.stderr
    header = json.loads((run_dir / "run.json").read_text())
    assert len(header["resumed_at"]) == 1

    reference = tmp_path / "reference"
    main(["run", str(config), "--output-dir", str(reference), "--set", "model_options.latency=0"])
    expected = outcome_by_pair(only_run_dir(reference))
    assert len(expected) == 400
    assert outcome_by_pair(run_dir) == expected
    summary = json.loads((run_dir / "summary.json").read_text())
    ref_summary = json.loads((only_run_dir(reference) / "summary.json").read_text())
    for key in (
        "results",
        "samples",
        "ok",
        "errored",
        "rewards",
        "tool_calls_by_status",
        "stop_reasons",
        "rounds_histogram",
    ):
        assert summary[key] == ref_summary[key], key


def test_resume_truncates_a_torn_last_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=6, epochs=2)
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    results = run_dir / "results.jsonl"
    full = outcome_by_pair(run_dir)
    lines = results.read_text().splitlines(keepends=True)
    # Lose the last three results, and leave half of the fourth-to-last written.
    torn = lines[-4][: len(lines[-4]) // 2]
    results.write_text("".join(lines[:-4]) + torn)
    (run_dir / "summary.json").unlink()
    assert main(["run", str(config), "--resume", str(run_dir)]) == 0
    assert outcome_by_pair(run_dir) == full
    assert results.read_text().endswith("\n")
    assert json.loads((run_dir / "summary.json").read_text())["results"] == 12
    # Resuming a finished run runs nothing and rewrites the same summary.
    assert main(["run", "--resume", str(run_dir)]) == 0
    assert len(read_results(run_dir)) == 12
    capsys.readouterr()


def test_resume_refuses_a_changed_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=3)
    assert main(["run", str(config), "--limit", "1"]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    data = tmp_path / "data.jsonl"
    data.write_text(data.read_text().replace("What is 2 + 1?", "What is 2 plus 1?"))
    capsys.readouterr()
    assert main(["run", str(config), "--limit", "1", "--resume", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(
        f"agentloop: error: cannot resume {run_dir}: the dataset {data} "
        "changed since the run started (sha256 "
    )


def test_resume_refuses_a_changed_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=3)
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    capsys.readouterr()
    assert (
        main(
            ["run", str(config), "--resume", str(run_dir), "--set", "max_rounds=2", "--epochs", "2"]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        f"agentloop: error: cannot resume {run_dir}: the config differs from the run's in: "
        "epochs, max_rounds\n"
    )
    # How the run goes (concurrency, fail_on_error, ...) may change.
    assert (
        main(
            [
                "run",
                str(config),
                "--resume",
                str(run_dir),
                "--concurrency",
                "1",
                "--set",
                "fail_on_error=true",
            ]
        )
        == 0
    )
    header = json.loads((run_dir / "run.json").read_text())
    assert header["config"]["concurrency"] == 1 and header["config"]["fail_on_error"] is True


def test_errored_results_are_not_run_again(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=3)
    (tmp_path / "script.json").write_text(json.dumps({}))  # every sample errors
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    assert {r["status"] for r in read_results(run_dir)} == {"error"}
    assert main(["run", "--resume", str(run_dir)]) == 0
    assert len(read_results(run_dir)) == 3
