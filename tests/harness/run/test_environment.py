"""Environments in the harness: a factory per (sample, epoch), checked before the run, its
tools bound together, sequential by default, and one-line errors for mistakes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.errors import ConfigError
from agentloop.harness.config._loading import validate_config
from tests.support.harness import (
    ask,
    call,
    only_run_dir,
    read_results,
    write_config,
    write_json,
    write_jsonl,
)

LOGGING_ENV = '''
import json

LOG = {log!r}


class Box:
    def __init__(self, items):
        self.items = list(items)

    def put(self, item: str) -> int:
        """Put an item in the box; returns how many it holds."""
        self.items.append(item)
        return len(self.items)

    def tools(self):
        return [self.put]

    def snapshot(self):
        return {{"items": self.items}}


def make(row, epoch, label="box"):
    with open(LOG, "a") as handle:
        handle.write(json.dumps([row["id"], epoch, label]) + "\\n")
    return Box(row["environment"]["items"])


def no_snapshot(row):
    class Half:
        def tools(self):
            return []
    return Half()


def not_json(row):
    box = Box([])
    box.snapshot = lambda: {{"when": object()}}
    return box
'''


def env_file(tmp: Path) -> Path:
    path = tmp / "boxenv.py"
    path.write_text(LOGGING_ENV.format(log=str(tmp / "calls.log")))
    return path


def box_row(i: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"b{i}",
        "messages": [{"role": "user", "content": "put a pen in the box"}],
        "environment": {"items": [f"start{i}"]},
        "ground_truth": {"tool_calls": [{"name": "put", "arguments": {"item": "pen"}}]},
        **extra,
    }


def setup(tmp: Path, rows: list[Any], script: Any, **config: Any) -> Path:
    fields: dict[str, Any] = {
        "model": f"scripted:{write_json(tmp / 'script.json', script)}",
        "environment": f"{env_file(tmp)}:make",
        "dataset": str(write_jsonl(tmp / "data.jsonl", rows)),
        "rewards": ["env_state_match", "env_response_match"],
        "output_dir": str(tmp / "runs"),
        "concurrency": 2,
    }
    fields.update(config)
    return write_config(tmp / "eval.yaml", **fields)


PUT_PEN = [ask(call("p", "put", {"item": "pen"})), "done"]


def test_fresh_per_sample_and_epoch_and_once_more_for_the_ground_truth(tmp_path: Path) -> None:
    config = setup(tmp_path, [box_row(0), box_row(1)], PUT_PEN, epochs=2)
    assert main(["run", str(config)]) == 0
    lines = read_results(only_run_dir(tmp_path / "runs"))
    for line in lines:
        number = line["id"][1:]
        # Nothing left over from another sample or epoch: one pen on the row's own item.
        assert line["trajectory"]["turns"][0]["state"] == {"items": [f"start{number}", "pen"]}
        assert line["scores"]["env_state_match"]["score"] == 1.0
        assert line["scores"]["env_response_match"]["score"] == 1.0
    made = [tuple(json.loads(x)) for x in (tmp_path / "calls.log").read_text().splitlines()]
    # A dry build with the first row, then an agent's and a ground truth's environment
    # for each (sample, epoch).
    assert made[0] == ("b0", 1, "box")
    pairs = sorted(made[1:])
    assert pairs == sorted([(f"b{i}", e, "box") for i in (0, 1) for e in (1, 2)] * 2)


def test_factory_args_reach_the_factory(tmp_path: Path) -> None:
    spec = {"factory": f"{env_file(tmp_path)}:make", "args": {"label": "crate"}}
    config = setup(tmp_path, [box_row(0)], PUT_PEN, environment=spec)
    assert main(["run", str(config)]) == 0
    assert {json.loads(x)[2] for x in (tmp_path / "calls.log").read_text().splitlines()} == {
        "crate"
    }


def test_environments_make_execution_sequential_unless_set(tmp_path: Path) -> None:
    base = {"model": "scripted:x.json", "dataset": "d.jsonl", "environment": "m:make"}
    assert validate_config(base).tool_execution == "sequential"
    assert validate_config({**base, "tool_execution": "parallel"}).tool_execution == "parallel"
    assert validate_config({k: v for k, v in base.items() if k != "environment"}).tool_execution \
        == "parallel"  # fmt: skip
    replay = validate_config({**base, "model": "replay:runs/x"})
    assert replay.model_options == {"replay_tools": "live"}
    kept = validate_config(
        {**base, "model": "replay:runs/x", "model_options": {"replay_tools": "recorded"}}
    )
    assert kept.model_options == {"replay_tools": "recorded"}


def test_a_malformed_environment_spec_is_a_config_error() -> None:
    raw = {"model": "scripted:x.json", "dataset": "d.jsonl", "environment": {"path": "m:x"}}
    with pytest.raises(ConfigError, match="environment must be 'module:factory'"):
        validate_config(raw)


@pytest.mark.parametrize(
    ("factory", "message"),
    [
        ("no_snapshot", "returned Half, which has no snapshot() method"),
        ("not_json", "snapshot() is not JSON-able"),
    ],
)
def test_a_bad_environment_stops_the_run_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], factory: str, message: str
) -> None:
    config = setup(tmp_path, [box_row(0)], PUT_PEN, environment=f"{env_file(tmp_path)}:{factory}")
    assert main(["run", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert f"environment {env_file(tmp_path)}:{factory}" in err
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_ground_truth_with_matchers_cannot_be_executed(tmp_path: Path) -> None:
    truth = {"tool_calls": [{"name": "put", "arguments": {"item": {"$any": ["pen", "ink"]}}}]}
    config = setup(tmp_path, [box_row(0, ground_truth=truth)], PUT_PEN)
    assert main(["run", str(config)]) == 1  # every result errored
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert line["error_kind"] == "reward"
    assert "ground_truth[0].tool_calls[0]: matchers cannot be executed" in line["error"]


def test_without_environment_rewards_the_ground_truth_is_not_executed(tmp_path: Path) -> None:
    row = box_row(0, answer="done")
    config = setup(tmp_path, [row], PUT_PEN, rewards=["qa_f1_reward"], epochs=1)
    assert main(["run", str(config)]) == 0
    made = (tmp_path / "calls.log").read_text().splitlines()
    assert len(made) == 2  # the dry build and the agent's environment, no ground-truth run


def test_environment_rewards_without_an_environment_stop_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = setup(tmp_path, [box_row(0)], PUT_PEN)
    text = config.read_text().replace(f"environment: {env_file(tmp_path)}:make\n", "")
    config.write_text(text)
    assert main(["run", str(config)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "agentloop: error: rewards: env_state_match, env_response_match need(s) an "
        "environment; none is configured (environment: module:factory)\n"
    )
