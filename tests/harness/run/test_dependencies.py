"""Rows with ``depends_on``: run after their dependencies, in the same epoch and run
directory; not run when one ended in error; refused up front when they cannot be ordered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from tests.support.harness import (
    add_row,
    add_script,
    add_setup,
    read_results,
    run_once,
    tools_file,
    write_json,
    write_jsonl,
)


def _setup(tmp_path: Path, deps: dict[int, list[int]], n: int = 3, **config: Any) -> Path:
    config_path = add_setup(tmp_path, n=n, **config)
    rows = [
        add_row(i, **({"depends_on": [f"s{d:04d}" for d in deps[i]]} if i in deps else {}))
        for i in range(n)
    ]
    write_jsonl(tmp_path / "data.jsonl", rows)
    return config_path


SLOW_PY = """
import anyio

async def slow_add(a: int, b: int) -> int:
    \"\"\"Add two integers, slowly.\"\"\"
    await anyio.sleep(0.3)  # without the ordering, the dependent would finish first
    return a + b
"""


def test_a_row_starts_after_its_dependencies_have_finished(tmp_path: Path) -> None:
    # s0002 depends on s0000 and s0001, which a pool of 8 would otherwise run with them
    (tmp_path / "slow.py").write_text(SLOW_PY)
    tools = [f"{tools_file(tmp_path)}:add", f"{tmp_path}/slow.py:slow_add"]
    config = _setup(tmp_path, {2: [0, 1]}, epochs=2, tools=tools, concurrency=8)
    script = add_script(3)
    for i in (0, 1):
        script[f"s{i:04d}"][0]["tool_calls"][0]["function"]["name"] = "slow_add"
    write_json(tmp_path / "script.json", script)
    lines = read_results(run_once(config))
    order = [(r["id"], r["epoch"]) for r in lines]
    for epoch in (1, 2):
        dependent = order.index(("s0002", epoch))
        assert order.index(("s0000", epoch)) < dependent
        assert order.index(("s0001", epoch)) < dependent
    assert all(r["status"] == "ok" for r in lines)
    assert lines[0]["tool_calls_by_status"] == {"ok": 1}


def test_a_failed_dependency_stops_its_dependents_and_a_retry_runs_them(
    tmp_path: Path,
) -> None:
    config = _setup(tmp_path, {1: [0], 2: [1]})
    script = add_script(3)
    write_json(tmp_path / "script.json", {**script, "s0000": script["s0000"][:1]})
    run_dir = run_once(config, code=1)
    lines = {r["id"]: r for r in read_results(run_dir)}
    assert lines["s0000"]["error_kind"] == "model"
    assert lines["s0001"]["error_kind"] == "dependency"
    assert lines["s0001"]["error"] == ("not run: the row(s) it depends on ended in error: 's0000'")
    assert lines["s0001"]["trajectory"] is None  # never run
    assert lines["s0002"]["error"].endswith("'s0001'")
    write_json(tmp_path / "script.json", script)
    args = ["run", str(config), "--resume", str(run_dir), "--retry-errors", "--allow-changed"]
    assert main(args) == 0
    latest = {r["id"]: r for r in read_results(run_dir)}
    assert [latest[i]["status"] for i in ("s0000", "s0001", "s0002")] == ["ok"] * 3


def test_a_resume_counts_the_dependencies_already_written(tmp_path: Path) -> None:
    config = _setup(tmp_path, {1: [0]}, n=2)
    script = add_script(2)
    write_json(tmp_path / "script.json", {**script, "s0001": script["s0001"][:1]})
    run_dir = run_once(config, code=0)  # s0001 errs on its own (its script runs out)
    write_json(tmp_path / "script.json", script)
    args = ["run", str(config), "--resume", str(run_dir), "--retry-errors", "--allow-changed"]
    assert main(args) == 0  # s0000's written result lets s0001 run; s0000 is not run again
    lines = read_results(run_dir)
    assert [(r["id"], r["status"]) for r in lines] == [
        ("s0000", "ok"), ("s0001", "error"), ("s0001", "ok"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("deps", "extra", "error"),
    [
        ({1: [7]}, [], "{data}: row 's0001': depends_on names 's0007', which is no row of "
         "the dataset"),
        ({0: [2], 1: [0], 2: [1]}, [], "{data}: depends_on makes a cycle: s0000 -> s0002 -> "
         "s0001 -> s0000"),
        ({2: [1]}, ["--sample-id", "s0002"], "row 's0002' depends on 's0001', which this run "
         "does not select (sample_ids, limit): select it too"),
        ({0: [2]}, [], "row 's0000' depends on 's0002', which runs after it (shuffle: false "
         "keeps the dataset's order)"),
        ({1: [0]}, ["--set", "executor=ray"], "executor: ray runs rows independently; rows "
         "with depends_on need executor: local"),
    ],
)  # fmt: skip
def test_rows_that_cannot_be_ordered_are_refused_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    deps: dict[int, list[int]],
    extra: list[str],
    error: str,
) -> None:
    config = _setup(tmp_path, deps)
    assert main(["run", str(config), *extra]) == 2
    err = capsys.readouterr().err
    assert error.format(data=tmp_path / "data.jsonl") in err
    assert err.count("\n") == 1
    assert not (tmp_path / "runs").exists()


def test_a_row_field_depends_on_must_list_ids(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=1)
    write_jsonl(tmp_path / "data.jsonl", [add_row(0, depends_on="s0001")])
    assert main(["run", str(config)]) == 2


LEDGER_PY = '''
import json
import json
from pathlib import Path


class Ledger:
    """A count kept in the run directory: each row opens with it and adds one."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / "count.json"

    def count(self) -> int:
        return json.loads(self.path.read_text()) if self.path.exists() else 0

    def first_messages(self) -> list[dict]:
        return [
            {"role": "system", "content": f"count {self.count()}"},
            {"role": "user", "content": "What is 0 + 1?"},
        ]

    def finish(self) -> None:
        self.path.write_text(json.dumps(self.count() + 1))

    def tools(self) -> list:
        return []

    def snapshot(self) -> dict:
        return {}


def make(state_dir):
    return Ledger(state_dir)
'''


def test_an_environment_keeps_state_for_its_dependents_in_the_run_directory(
    tmp_path: Path,
) -> None:
    (tmp_path / "ledger.py").write_text(LEDGER_PY)
    config = _setup(tmp_path, {1: [0], 2: [1]}, environment=f"{tmp_path}/ledger.py:make")
    run_dir = run_once(config)
    lines = {r["id"]: r for r in read_results(run_dir)}
    opened = [lines[f"s{i:04d}"]["trajectory"]["messages"][0]["content"] for i in range(3)]
    assert opened == ["count 0", "count 1", "count 2"]  # each from the state before it
    assert json.loads((run_dir / "environment" / "count.json").read_text()) == 3
