"""``system_prompt``: text or ``@file``, added to rows without their own instructions,
recorded in run.json, and checked by a resume."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.engine import Trajectory
from tests.support.harness import only_run_dir, read_results, write_config, write_json, write_jsonl

ROWS = [
    {"id": "plain", "messages": [{"role": "user", "content": "hi"}]},
    {
        "id": "own-system",
        "messages": [
            {"role": "system", "content": "the row's own"},
            {"role": "user", "content": "hi"},
        ],
    },
    {
        "id": "developer",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "developer", "content": "the row's developer note"},
            {"role": "user", "content": "and?"},
        ],
    },
]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # @paths are relative to the working directory


def _setup(tmp_path: Path, **fields: Any) -> Path:
    write_jsonl(tmp_path / "data.jsonl", ROWS)
    write_json(tmp_path / "script.json", ["done"])
    base = {"model": "scripted:script.json", "dataset": "data.jsonl", "output_dir": "runs"}
    return write_config(tmp_path / "eval.yaml", **{**base, **fields})


def _sent(run_dir: Path) -> dict[str, list[tuple[str, Any]]]:
    """Per sample: (type, content) of each message the model was sent."""
    found = {}
    for line in read_results(run_dir):
        messages = Trajectory.model_validate(line["trajectory"]).messages
        found[line["id"]] = [(m.type, m.content) for m in messages[:-1]]  # last: the reply
    return found


def test_the_prompt_goes_to_rows_without_instructions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _setup(tmp_path, system_prompt="Answer in one word.")
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    assert _sent(run_dir) == {
        "plain": [("system", "Answer in one word."), ("human", "hi")],
        "own-system": [("system", "the row's own"), ("human", "hi")],
        # LangChain reads a developer message as a system message (keeping its role)
        "developer": [
            ("human", "hi"),
            ("system", "the row's developer note"),
            ("human", "and?"),
        ],
    }
    header = json.loads((run_dir / "run.json").read_text())
    assert header["config"]["system_prompt"] == "Answer in one word."
    # An inline prompt is part of the config: another one is another run.
    capsys.readouterr()
    argv = ["run", str(config), "--resume", str(run_dir), "--set", "system_prompt=Be brief."]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: cannot resume {run_dir}: the config differs from the run's in: "
        "system_prompt\n"
    )


def test_a_prompt_file_is_read_recorded_and_checked_on_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prompt = tmp_path / "prompts" / "sys.txt"
    prompt.parent.mkdir()
    prompt.write_text("You are terse.\nAnswer in one word.\n")
    config = _setup(tmp_path, system_prompt="@prompts/sys.txt")
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    assert _sent(run_dir)["plain"][0] == ("system", "You are terse.\nAnswer in one word.\n")
    header = json.loads((run_dir / "run.json").read_text())
    # a config's own paths are read from its folder, and recorded as found
    assert header["config"]["system_prompt"] == f"@{prompt}"
    assert header["inputs"][f"system prompt @{prompt}"] == {
        "file": str(prompt),
        "sha256": hashlib.sha256(prompt.read_bytes()).hexdigest(),
    }

    prompt.write_text("You are verbose.\n")
    capsys.readouterr()
    assert main(["run", "--resume", str(run_dir)]) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: cannot resume {run_dir}: changed since the run started: "
        f"system prompt @{prompt} (add --allow-changed to resume anyway)\n"
    )
    assert main(["run", "--resume", str(run_dir), "--allow-changed"]) == 0
    entry = json.loads((run_dir / "run.json").read_text())["resumed_at"][-1]
    assert list(entry["allowed_changes"]) == [f"system prompt @{prompt}"]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("@prompts/missing.txt", "system_prompt: file not found: {tmp}/prompts/missing.txt"),
        ("@empty.txt", "system_prompt: the file {tmp}/empty.txt is empty"),
        ("  ", "system_prompt: the text is empty"),
    ],
)
def test_a_bad_prompt_is_one_line_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, problem: str
) -> None:
    (tmp_path / "empty.txt").write_text("\n")
    config = _setup(tmp_path, system_prompt=value)
    assert main(["run", str(config)]) == 2
    problem = problem.format(tmp=tmp_path)  # where it was looked for: the config's folder
    assert capsys.readouterr().err == f"agentloop: error: {config}: {problem}\n"
    assert not (tmp_path / "runs").exists()


def test_score_mode_takes_no_prompt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _setup(tmp_path, mode="score", system_prompt="Be brief.")
    assert main(["run", str(config)]) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: {config}: system_prompt: score mode scores the rows as recorded; "
        "remove it\n"
    )
