"""``executor: ray`` faults on the real local cluster of ``test_ray``: a worker killed
mid-run, the driver SIGKILLed then resumed, a worker that cannot import a tool."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agentloop import run_eval_sync
from agentloop.cli._commands import main
from agentloop.harness import load_config
from tests.support.harness import ROOT
from tests.support.ray_cluster import PID_TOOLS, ray_setup, results_by_pair, shared_ray_address


@pytest.fixture(scope="session")
def ray_address(request: pytest.FixtureRequest) -> str:
    return shared_ray_address(request.session)


def test_killed_worker_pairs_run_again_elsewhere_each_written_once(
    tmp_path: Path, ray_address: str
) -> None:
    config = ray_setup(tmp_path, n=40, epochs=2, concurrency=4, model_options={"latency": 0.05})
    (tmp_path / "slow.txt").write_text("7")
    calls = tmp_path / "pids.txt"
    killed: list[str] = []

    def calls_of_7() -> list[str]:
        text = calls.read_text() if calls.is_file() else ""
        return [line.split()[0] for line in text.splitlines() if line.endswith(" 7")]

    def kill_the_worker_running_7() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            if found := calls_of_7():  # s0007 is in its 1 s tool call on that worker
                killed.append(found[0])
                os.kill(int(found[0]), signal.SIGKILL)
            time.sleep(0.005)

    killer = threading.Thread(target=kill_the_worker_running_7)
    killer.start()
    try:
        outcome = run_eval_sync(
            load_config(
                config,
                overrides={"executor": "ray", "ray_address": ray_address, "ray_workers": 2},
            )
        )
    finally:
        killer.join()
    assert killed, "no worker was killed"
    done = results_by_pair(outcome.run_dir)  # each pair once
    assert len(done) == 80
    assert outcome.summary.errored == 2  # the unscripted row only
    assert all(r["status"] == "ok" for (i, _), r in done.items() if i != "s0039")
    assert done[("s0007", 1)]["scores"]["qa_f1_reward"]["score"] == 1.0
    # The killed pair ran again, in another process.
    assert [pid for pid in calls_of_7() if pid != killed[0]], calls_of_7()


def test_sigkilled_driver_then_resume_completes(tmp_path: Path, ray_address: str) -> None:
    config = ray_setup(tmp_path, n=40, epochs=2, concurrency=4, model_options={"latency": 0.05})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentloop.cli", "run", str(config), "--executor", "ray",
         "--ray-address", ray_address, "--ray-workers", "1"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    results: Path | None = None
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            found = list((tmp_path / "runs").glob("*/results.jsonl"))
            if found and found[0].read_bytes().count(b"\n") >= 10:
                results = found[0]
                break
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        if proc.stderr:
            proc.stderr.close()
    assert results is not None, "the run wrote no results in 90 s"
    before = results.read_bytes().count(b"\n")
    assert 10 <= before < 80, before
    run_dir = results.parent
    assert not (run_dir / "summary.json").exists()

    assert main(["run", "--resume", str(run_dir)]) == 0
    done = results_by_pair(run_dir)
    assert len(done) == 80
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["complete"] is True and summary["results"] == 80
    assert summary["errored"] == 2
    header = json.loads((run_dir / "run.json").read_text())
    assert len(header["resumed_at"]) == 1 and header["config"]["executor"] == "ray"


def test_a_worker_that_cannot_import_a_tool_fails_before_any_run_dir(
    tmp_path: Path,
    ray_address: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Importable here (on the driver's path), absent from the workers' working directory.
    driver_only = tmp_path / "driver_only"
    driver_only.mkdir()
    (driver_only / "drivertools.py").write_text(PID_TOOLS)
    monkeypatch.syspath_prepend(str(driver_only))
    config = ray_setup(tmp_path, n=3, tools=["drivertools:add"])
    code = main(["run", str(config), "--executor", "ray", "--ray-address", ray_address,
                 "--ray-workers", "1"])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1, err
    assert "ray worker" in err and "drivertools" in err
    assert not (tmp_path / "runs").exists()
