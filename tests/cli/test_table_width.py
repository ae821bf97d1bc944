"""Off a terminal (a CI log, a pipe), the tables of ``run``, ``summary`` and ``compare`` take
the width their cells need: a long reward name is printed whole, never cut to
``agentloop.benchmarks:agent…``."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentloop.cli._commands import main
from tests.support.harness import add_setup, only_run_dir

LONG = "a_reward_with_a_name_long_enough_to_push_the_rewards_table_past_120_columns"


def test_tables_off_a_terminal_print_long_reward_names_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rewards = tmp_path / "rewards_module_with_a_long_name.py"
    rewards.write_text(f"def {LONG}(final_answer):\n    return 1.0\n")
    key = f"{rewards}:{LONG}"
    config = add_setup(tmp_path, rewards=[key], pass_threshold={})
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    for argv in (["summary", str(run_dir)], ["compare", str(run_dir), str(run_dir)]):
        capsys.readouterr()
        assert main(argv) == 0
        out = capsys.readouterr().out
        (line,) = [line for line in out.splitlines() if LONG in line][:1]
        assert key in line and "…" not in line, argv
        assert len(line) > 120
