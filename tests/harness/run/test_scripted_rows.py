"""A ``scripted:`` model without replies for a row to run is a config error before the first
sample (the run directory is not even made), not that sample's model error at run time."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentloop.cli._commands import main
from tests.support.harness import add_script, add_setup, only_run_dir, read_results, write_json


def test_a_row_without_replies_stops_the_run_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=3)
    write_json(tmp_path / "script.json", {k: v for k, v in add_script(3).items() if k != "s0001"})
    assert main(["run", str(config)]) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: {config}: model: {tmp_path}/script.json has no replies for 1 of "
        "the 3 rows to run ('s0001') and no '*' for them\n"
    )
    assert not (tmp_path / "runs").exists()
    # only the rows to run count: the others run
    assert main(["run", str(config), "--sample-id", "s0000", "--sample-id", "s0002"]) == 0
    assert len(read_results(only_run_dir(tmp_path / "runs"))) == 2


def test_a_fallback_script_covers_every_row(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=2)
    write_json(tmp_path / "script.json", {"*": ["5"]})
    assert main(["run", str(config)]) == 0


def test_the_simulated_users_script_is_checked_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=1)
    write_json(tmp_path / "user.json", {"other": ["###STOP###"]})
    user = f"user:\n  model: scripted:{tmp_path}/user.json\n"
    config.write_text(config.read_text() + user)
    assert main(["run", str(config)]) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: {config}: user.model: {tmp_path}/user.json has no replies for 1 of "
        "the 1 rows to run ('s0000') and no '*' for them\n"
    )
