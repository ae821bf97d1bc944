"""Replaying a whole run through the harness reproduces its results lines exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from agentloop.harness.rundir._files import RESULTS_FILE

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = "configs/quickstart.yaml"  # real tools, QA rewards
SCRIPTED = "scripted:configs/scripts/quickstart.json"  # instead of its local model


def lines(run_dir: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """Results by (id, epoch), timing fields removed."""
    found = {}
    for raw in (run_dir / RESULTS_FILE).read_text().splitlines():
        line = json.loads(raw)
        line.pop("wall_time_s")
        line.pop("started_at")
        if line["trajectory"] is not None:
            line["trajectory"].pop("wall_time_s")
            for step in line["trajectory"]["steps"]:
                step.pop("latency_s")
        found[(line["id"], line["epoch"])] = line
    return found


def run(tmp_path: Path, name: str, **overrides: Any) -> Path:
    base = {"model": SCRIPTED, "output_dir": str(tmp_path), "name": name, "epochs": 2}
    config = load_config(QUICKSTART, overrides={**base, **overrides})
    return run_eval_sync(config, config_path=QUICKSTART).run_dir


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # shipped configs use paths relative to the project root


def test_replaying_a_run_reproduces_its_results(tmp_path: Path) -> None:
    original = run(tmp_path, "original")
    replayed = run(tmp_path, "replayed", model=f"replay:{original}")
    before, after = lines(original), lines(replayed)
    assert len(before) >= 6 and all(line["status"] == "ok" for line in before.values())
    assert any(line["trajectory"]["tool_calls_by_status"] for line in before.values())
    assert after == before  # trajectories, scores, usage, message ids: all identical


def test_replay_with_live_tools_through_the_cli(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    original = run(tmp_path, "original")
    # Tamper with one recorded tool output: the re-run tool will disagree with it.
    path = original / RESULTS_FILE
    records = [json.loads(raw) for raw in path.read_text().splitlines()]
    target = next(r for r in records if r["trajectory"]["tool_calls_by_status"])
    tool_msg = next(m for m in target["trajectory"]["messages"] if m["role"] == "tool")
    tool_msg["content"] = "tampered"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))

    code = main(["run", QUICKSTART, "--model", f"replay:{original}", "--replay-tools", "live",
                 "--output-dir", str(tmp_path), "--set", "name=live", "--epochs", "2"])  # fmt: skip
    assert code == 0
    (warning,) = [r.getMessage() for r in caplog.records if r.name == "agentloop.replay"]
    assert "output differs from the recording: recorded ok 'tampered'" in warning
    (live_dir,) = [d for d in tmp_path.iterdir() if d.name.endswith("-live")]
    after = lines(live_dir)
    diffs = after[(target["id"], target["epoch"])]["replay_tool_diffs"]
    assert len(diffs) == 1 and tool_msg["tool_call_id"] in diffs[0]
    assert sum("replay_tool_diffs" in line for line in after.values()) == 1
    assert all(line["status"] == "ok" for line in after.values())


def test_a_replay_that_does_not_match_fails_the_samples(tmp_path: Path) -> None:
    original = run(tmp_path, "original", limit=2, epochs=1)
    replayed = run(tmp_path, "changed", model=f"replay:{original}", limit=2, epochs=1,
                   max_rounds=0)  # fmt: skip
    after = lines(replayed)
    assert all(line["status"] == "error" for line in after.values())
    errors = [line["error"] for line in after.values()]
    assert all(e.startswith("ReplayMismatchError: replay: sample") for e in errors)
    assert all("is refused now (round limit) but was run in the recording" in e
               for e in errors), errors  # fmt: skip
