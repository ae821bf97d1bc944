"""A multi-turn run against the loopback OpenAI stub: SIGKILLed mid-run, resumed without
loss or repetition, then replayed offline to the same results."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from agentloop.cli._commands import main
from tests.harness.run.test_multiturn import bank_row, setup
from tests.support.harness import ROOT, only_run_dir, read_results
from tests.support.openai_stub import StubResponse, StubServer, call, reply

ROWS = 24


class Banker:
    """Answers like a model that does each turn's job: a call, then a short answer."""

    def __init__(self) -> None:
        self.tools_by_turn: dict[int, set[tuple[str, ...]]] = {1: set(), 2: set()}

    def __call__(self, body: dict[str, Any]) -> StubResponse:
        messages = body["messages"]
        turn = sum(m["role"] == "user" for m in messages)
        self.tools_by_turn[turn].add(tuple(t["function"]["name"] for t in body["tools"]))
        if messages[-1]["role"] == "tool":
            return reply(f"turn {turn} done: {messages[-1]['content']}", delay=0.01)
        if turn == 1:
            args = {"source": "alice", "target": "bob", "amount": 10}
            return reply(tool_calls=[call("transfer", args, id="t1")], delay=0.01)
        return reply(tool_calls=[call("deposit", {"account": "bob", "amount": 5}, id="t2")])


def by_pair(run_dir: Path) -> dict[tuple[str, int], dict[str, Any]]:
    lines = read_results(run_dir)
    pairs = [(r["id"], r["epoch"]) for r in lines]
    assert len(pairs) == len(set(pairs)), "a sample was repeated"
    return {(r["id"], r["epoch"]): r for r in lines}


def comparable(line: dict[str, Any]) -> tuple[Any, ...]:
    trajectory = line["trajectory"]
    return (line["status"], line["scores"], line["passed"], trajectory["messages"],
            trajectory["turns"], trajectory["stop_reason"])  # fmt: skip


def _count(results: Path) -> int:
    return results.read_bytes().count(b"\n")


def _kill_after(config: Path, tmp_path: Path, lines: int) -> Path:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentloop.cli", "run", str(config)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    results: Path | None = None
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            runs = tmp_path / "runs"
            if results is None and runs.is_dir() and any(runs.iterdir()):
                results = only_run_dir(runs) / "results.jsonl"
            if results is not None and results.is_file() and _count(results) >= lines:
                break
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert results is not None
    return results.parent


def test_sigkill_resume_then_replay_offline(tmp_path: Path) -> None:
    banker = Banker()
    rows = [bank_row(i) for i in range(ROWS)]
    with StubServer(handler=banker) as stub:
        config = setup(tmp_path, rows, model="openai:stub-model", concurrency=4, epochs=2,
                       model_options={"base_url": stub.url}, preflight=False)  # fmt: skip
        run_dir = _kill_after(config, tmp_path, lines=10)
        done_before = len(read_results(run_dir))
        assert 10 <= done_before < 2 * ROWS
        assert main(["run", "--resume", str(run_dir)]) == 0
    lines = by_pair(run_dir)
    assert sorted(lines) == sorted((f"m{i}", e) for i in range(ROWS) for e in (1, 2))
    for line in lines.values():
        assert line["status"] == "ok", line["error"]
        assert line["passed"] == {"env_state_match": True, "env_response_match": True}
        opening = 100 + int(line["id"][1:])
        assert line["trajectory"]["turns"][1]["state"]["accounts"] == {
            "alice": opening - 10,
            "bob": 15,
        }
    # deposit was offered from turn 2 on only
    assert banker.tools_by_turn == {
        1: {("balance", "withdraw", "transfer")},
        2: {("balance", "withdraw", "transfer", "deposit")},
    }

    # The stub is gone: replay answers from the recording alone.
    replayed = tmp_path / "replayed"
    argv = ["run", str(config), "--model", f"replay:{run_dir}", "--output-dir", str(replayed)]
    assert main(argv) == 0
    again = by_pair(only_run_dir(replayed))
    assert again.keys() == lines.keys()
    for pair, line in lines.items():
        assert comparable(again[pair]) == comparable(line), pair


def test_replay_refuses_a_changed_later_turn(tmp_path: Path) -> None:
    rows = [bank_row(0)]
    with StubServer(handler=Banker()) as stub:
        config = setup(tmp_path, rows, model="openai:stub-model",
                       model_options={"base_url": stub.url}, preflight=False)  # fmt: skip
        assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    changed = bank_row(0)
    changed["turns"][0]["messages"][0]["content"] = "Now deposit 6 into bob."
    config = setup(tmp_path, [changed], model=f"replay:{run_dir}",
                   output_dir=str(tmp_path / "again"))  # fmt: skip
    assert main(["run", str(config)]) == 1  # its one result errored
    (line,) = read_results(only_run_dir(tmp_path / "again"))
    assert line["status"] == "error"
    assert "model call 3: message 4 (user) differs in content" in line["error"]
