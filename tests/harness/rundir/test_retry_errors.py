"""``--retry-errors``: errored pairs run again, appended; the latest line of a pair wins
everywhere (summary, compare, rescore, replay, resume), and a kill mid-retry loses nothing."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import agentloop.models._base as models_base
from agentloop._records import index_results, latest_results
from agentloop.cli._commands import main
from agentloop.harness import compare_runs
from agentloop.harness.rundir._files import repair_tail
from agentloop.models import ModelSource
from agentloop.models._scripted import ScriptedSource
from agentloop.testing import ScriptedChatModel
from tests.support.harness import ROOT, add_setup, interruptible, only_run_dir, read_results
from tests.support.openai_stub import StubResponse, StubServer, call, error, reply

FAILING: set[str] = set()
"""Sample ids the flaky model cannot serve right now."""


class _Flaky(ModelSource):
    """A scripted model that fails the samples in FAILING (a model error)."""

    def __init__(self, path: str, params: dict[str, Any], options: dict[str, Any]) -> None:
        self.scripted = ScriptedSource(path, params, options)

    def for_sample(self, sample_id: str, epoch: int) -> ScriptedChatModel:
        if sample_id in FAILING:
            raise RuntimeError(f"flaky model: {sample_id} failed")
        return self.scripted.for_sample(sample_id, epoch)


@pytest.fixture(autouse=True)
def _flaky_provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(models_base._PROVIDERS, "flaky-test", _Flaky)
    FAILING.clear()
    yield
    FAILING.clear()


def _flaky_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], failing: set[str]) -> Path:
    """A run of 6 samples x 2 epochs in which ``failing`` errored."""
    config = add_setup(tmp_path, n=6, epochs=2, model=f"flaky-test:{tmp_path / 'script.json'}")
    FAILING.update(failing)
    assert main(["run", str(config)]) == 0
    capsys.readouterr()
    return only_run_dir(tmp_path / "runs")


def _lines_by_pair(run_dir: Path) -> dict[tuple[str, int], list[str]]:
    """Every line's status, per pair, in file order."""
    found: dict[tuple[str, int], list[str]] = defaultdict(list)
    for line in read_results(run_dir):
        found[(line["id"], line["epoch"])].append(line["status"])
    return dict(found)


def test_retry_errors_runs_the_errored_pairs_again_and_the_latest_line_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _flaky_run(tmp_path, capsys, {"s0001", "s0004"})
    assert sum(s == ["error"] for s in _lines_by_pair(run_dir).values()) == 4

    FAILING.discard("s0001")  # s0004 still fails
    assert main(["run", "--resume", str(run_dir), "--retry-errors"]) == 0
    out = capsys.readouterr().out
    assert "retried: 4 errored result(s)" in out
    by_pair = _lines_by_pair(run_dir)
    assert len(by_pair) == 12 and sum(len(s) for s in by_pair.values()) == 16
    for (sample, _), statuses in by_pair.items():  # nothing rewritten, ok never re-run
        expected = {"s0001": ["error", "ok"], "s0004": ["error", "error"]}.get(sample, ["ok"])
        assert statuses == expected
    header = json.loads((run_dir / "run.json").read_text())
    assert header["resumed_at"][-1]["retry_errors"] == 4
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["results"], summary["ok"], summary["errored"]) == (12, 10, 2)
    assert summary["superseded"] == 4 and summary["complete"] is True
    assert summary["rewards"]["qa_f1_reward"]["results"] == 10
    notes = summary["notes"]
    assert "4 older result line(s) were superseded by retries (the latest counts)" in notes
    assert (
        f"run the errored result(s) again with: agentloop run --resume {run_dir} --retry-errors"
        in notes
    )

    FAILING.clear()
    assert main(["run", "--resume", str(run_dir), "--retry-errors"]) == 0
    header = json.loads((run_dir / "run.json").read_text())
    assert [e.get("retry_errors") for e in header["resumed_at"]] == [4, 2]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["results"], summary["ok"], summary["errored"]) == (12, 12, 0)
    assert summary["rewards"]["qa_f1_reward"]["mean"] == 1.0
    assert summary["superseded"] == 6
    # `agentloop summary` recomputes the same from the file.
    assert main(["summary", str(run_dir)]) == 0
    again = json.loads((run_dir / "summary.json").read_text())
    assert {k: again[k] for k in ("results", "ok", "errored", "superseded", "rewards")} == {
        k: summary[k] for k in ("results", "ok", "errored", "superseded", "rewards")
    }


def test_compare_rescore_and_replay_read_the_latest_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _flaky_run(tmp_path, capsys, {"s0002"})
    before = tmp_path / "before"
    shutil.copytree(run_dir, before)
    FAILING.clear()
    assert main(["run", "--resume", str(run_dir), "--retry-errors"]) == 0

    same = compare_runs(run_dir, run_dir)
    assert (same.changed, same.only_in_a, same.only_in_b) == ([], 0, 0)
    assert same.summary_a.results == 12 and same.summary_a.errored == 0
    diff = compare_runs(before, run_dir)
    assert sorted((c.id, c.epoch, c.a, c.b) for c in diff.changed) == [
        ("s0002", 1, None, 1.0),
        ("s0002", 2, None, 1.0),
    ]
    assert (diff.only_in_a, diff.only_in_b) == (0, 0)
    # The headline counts the errored pairs as 0 (they used to leave the mean, so the
    # run with errors scored as well as the one without).
    (delta,) = diff.rewards
    assert diff.summary_a.rewards["qa_f1_reward"].mean == 1.0
    assert (delta.a, delta.b, delta.delta) == (pytest.approx(10 / 12), 1.0, pytest.approx(2 / 12))

    assert main(["score", str(run_dir)]) == 0
    (rescored,) = run_dir.glob("results.rescored-*.jsonl")
    lines = [json.loads(x) for x in rescored.read_text().splitlines()]
    assert len(lines) == 12 and {line["status"] for line in lines} == {"ok"}

    capsys.readouterr()
    replay = tmp_path / "replay"
    code = main(["run", str(tmp_path / "eval.yaml"), "--model", f"replay:{run_dir}",
                 "--output-dir", str(replay)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    replayed = read_results(only_run_dir(replay))
    assert len(replayed) == 12 and {line["status"] for line in replayed} == {"ok"}


def test_retry_errors_needs_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(add_setup(tmp_path, n=1)), "--retry-errors"]) == 2
    assert capsys.readouterr().err == "agentloop run: --retry-errors needs --resume RUN_DIR\n"
    assert not (tmp_path / "runs").exists()


def _line(sample: str, epoch: int, status: str) -> str:
    return json.dumps({"id": sample, "epoch": epoch, "status": status, "trajectory": None})


def test_latest_results_is_the_one_rule(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    rows = [_line("a", 1, "error"), _line("b", 1, "ok"), _line("a", 1, "ok")]
    # An id written by hand (not by the harness's encoder) is still read.
    rows.append(json.dumps({"epoch": 1, "id": "c", "status": "error"}))
    rows.append(json.dumps({"epoch": 1, "id": "c", "status": "ok"}))
    path.write_text("\n".join(rows) + "\n" + _line("b", 1, "error")[:20])  # torn tail
    index = index_results(path)
    assert (index.lines, index.superseded) == (5, 2)
    got = [(r["id"], r["status"]) for r in latest_results(path, index)]
    assert got == [("b", "ok"), ("a", "ok"), ("c", "ok")]
    # A line appended after the index was made is not part of that snapshot.
    repair_tail(path)  # as a writer does before appending
    with path.open("a") as handle:
        handle.write(_line("b", 1, "error") + "\n")
    assert [(r["id"], r["status"]) for r in latest_results(path, index)] == got
    assert [(r["id"], r["status"]) for r in latest_results(path)][-1] == ("b", "error")


# --- a real process killed in the middle of a retry ---------------------------------

FAST = {"retry_initial_delay_s": 0.01, "retry_max_delay_s": 0.05}


class _Server:
    """A model server that fails even samples first, then odd-quarter ones, then none."""

    def __init__(self) -> None:
        self.phase = "first"

    def fails(self, i: int) -> bool:
        if self.phase == "first":
            return i % 2 == 0
        if self.phase == "retry":
            return i % 4 == 0
        return False

    def __call__(self, body: dict[str, Any]) -> StubResponse:
        messages = body["messages"]
        question = next(m["content"] for m in messages if m["role"] == "user")
        i = int(question.split()[2])
        if self.fails(i):
            return error(400, f"sample {i} refused")
        delay = 0.5 if self.phase == "retry" else 0.0  # a wide window for the kill
        if messages[-1]["role"] == "tool":
            return reply(messages[-1]["content"], delay=delay)
        return reply(tool_calls=[call("add", {"a": i, "b": 1})], delay=delay)


def _line_count(path: Path) -> int:
    return path.read_bytes().count(b"\n")


def test_sigkill_during_a_retry_then_retry_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = _Server()
    with StubServer(handler=server) as stub:
        config = add_setup(tmp_path, n=24, model="openai:stub-model", concurrency=1,
                           model_options={"base_url": stub.url, **FAST})  # fmt: skip
        assert main(["run", str(config)]) == 0
        capsys.readouterr()
        run_dir = only_run_dir(tmp_path / "runs")
        results = run_dir / "results.jsonl"
        assert [s.count("error") for s in _lines_by_pair(run_dir).values()].count(1) == 12

        server.phase = "retry"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "agentloop.cli", "run", "--resume", str(run_dir),
             "--retry-errors"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while _line_count(results) < 24 + 4:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline, "the retry wrote too little in time"
                time.sleep(0.005)
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        killed_at = _lines_by_pair(run_dir)
        still_errored = sum(s[-1] == "error" for s in killed_at.values())
        # 6 always fail; some of the other 6 were retried, not all
        assert 6 < still_errored < 12, "the kill did not land in the middle of the retry"
        # still the first run's summary: the killed retry never got to write one
        assert json.loads((run_dir / "summary.json").read_text())["superseded"] == 0

        server.phase = "last"
        again = subprocess.run(
            [sys.executable, "-m", "agentloop.cli", "run", "--resume", str(run_dir),
             "--retry-errors"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert again.returncode == 0, again.stderr
        assert f"retried: {still_errored} errored result(s)" in again.stdout

    final = _lines_by_pair(run_dir)
    assert len(final) == 24
    for pair, statuses in final.items():
        # errors, then exactly one ok, last; a pair that was ok is never run again
        assert statuses[-1] == "ok" and statuses.count("ok") == 1, (pair, statuses)
        assert (
            statuses[: killed_at[pair].count("error")]
            == killed_at[pair][: killed_at[pair].count("error")]
        )
        if killed_at[pair][-1] == "ok":
            assert statuses == killed_at[pair]
    effective = list(latest_results(results))
    assert len(effective) == 24 and {r["status"] for r in effective} == {"ok"}
    assert all(r["scores"]["qa_f1_reward"]["score"] == 1.0 for r in effective)
    header = json.loads((run_dir / "run.json").read_text())
    assert [e["retry_errors"] for e in header["resumed_at"]] == [12, still_errored]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["results"], summary["ok"], summary["errored"]) == (24, 24, 0)
    assert summary["complete"] is True
    assert summary["superseded"] == sum(len(s) for s in final.values()) - 24


def test_ctrl_c_during_a_retry_says_how_to_finish_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = _Server()
    with StubServer(handler=server) as stub:
        config = add_setup(tmp_path, n=8, model="openai:stub-model", concurrency=1,
                           model_options={"base_url": stub.url, **FAST})  # fmt: skip
        assert main(["run", str(config)]) == 0
        run_dir = only_run_dir(tmp_path / "runs")
        server.phase = "retry"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "agentloop.cli", "run", "--resume", str(run_dir),
             "--retry-errors"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=interruptible,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while _line_count(run_dir / "results.jsonl") < 8 + 1:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.005)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.decode() == (
        f"agentloop: interrupted; finish it with: agentloop run --resume {run_dir} --retry-errors\n"
    )
