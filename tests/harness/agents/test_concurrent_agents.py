"""Many agents in other processes at once (bench/concurrent_agents.py, 12 here, 100 in the
bench): each episode sees its own environment's state only, and an agent that crashes or
writes garbage fails its own sample only. The agents speak the protocol with Python's
standard library alone (the docs' SDK agent runs in test_command_agent)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytest.importorskip("openai")

from tests.support.harness import bench_module, read_results, run_once

crowd = bench_module("concurrent_agents")


def test_twelve_agents_at_once_each_see_their_own_bank_only(tmp_path: Path) -> None:
    broken = {4: "crash", 9: "garbage"}  # a hang is tested with fewer agents (test_command_agent)
    config = crowd.crowd_config(tmp_path, 12, broken=broken, agent="plain")
    lines = {line["id"]: line for line in read_results(run_once(config))}
    assert crowd.isolation_problems(lines, 12, broken) == []
    fine = [line for line in lines.values() if line["status"] == "ok"]
    assert len(fine) == 10
    # sample i deposited i + 1 twice into its own account; another's deposit would show
    seven = lines["a007"]
    assert [m["content"] for m in seven["trajectory"]["messages"] if m["role"] == "tool"] == [
        "8",
        "16",
        "16",
    ]
    assert "exited with code 1" in lines["a004"]["error"]
    assert "not UTF-8" in lines["a009"]["error"]


def test_many_agents_run_under_a_low_soft_limit_on_open_files(tmp_path: Path) -> None:
    # 16 episodes need more than 64 descriptors (before the limit was raised: "cannot
    # start: [Errno 24] Too many open files" for most of them)
    config = crowd.crowd_config(tmp_path, 16, broken={}, agent="plain")
    low = (
        "import resource; hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]; "
        "resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))"
    )
    run = f"{low}; from agentloop.cli import main; raise SystemExit(main())"
    done = subprocess.run(
        [sys.executable, "-c", run, "run", str(config), "--no-preflight"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (run_dir,) = (tmp_path / "runs").iterdir()
    lines = {line["id"]: line for line in read_results(run_dir)}
    assert crowd.isolation_problems(lines, 16, {}) == []


def test_isolation_problems_name_a_deposit_that_reached_another_episode() -> None:
    line = {
        "id": "a002",
        "status": "ok",
        "stop_reason": "final",
        "trajectory": {
            "messages": [
                {"role": "tool", "content": text} for text in ("3", "7", "7")
            ],  # another agent's 1 landed in between
            "turns": [{"state": {"accounts": {"acct": 7}}}],
        },
    }
    problems = crowd.isolation_problems({"a002": line}, 3, {0: "crash", 1: "garbage"})
    assert problems == [
        "a000: no result line",
        "a001: no result line",
        "a002: its calls read ['3', '7', '7'], not ['3', '6', '6']",
        "a002: its final state is {'accounts': {'acct': 7}}",
    ]
