"""`agentloop demo` passes every later argument, options included, to `agentloop run`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentloop.cli._commands import main
from tests.support.harness import only_run_dir


def test_demo_options_reach_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "demo",
            "--model",
            "scripted:configs/scripts/quickstart.json",
            "--output-dir",
            str(tmp_path),
            "--limit",
            "3",
        ]
    )
    assert code == 0, capsys.readouterr().err
    run_dir = only_run_dir(tmp_path)
    header = json.loads((run_dir / "run.json").read_text())
    assert header["model"] == "scripted:configs/scripts/quickstart.json"
    assert json.loads((run_dir / "summary.json").read_text())["results"] == 3
