"""Crash safety: a run killed at any moment resumes without losing or repeating samples."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from tests.support.harness import ROOT, add_setup, interruptible, only_run_dir, read_results


def outcome_by_pair(run_dir: Path) -> dict[tuple[str, int], Any]:
    lines = read_results(run_dir)
    pairs = [(r["id"], r["epoch"]) for r in lines]
    assert len(pairs) == len(set(pairs)), "a sample was repeated"
    return {(r["id"], r["epoch"]): (r["status"], r["scores"], r["passed"]) for r in lines}


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "agentloop.cli", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )


def test_sigkill_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=200, epochs=2, concurrency=8, model_options={"latency": 0.01})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    stderr = tmp_path / "stderr.txt"
    with stderr.open("w") as err_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agentloop.cli", "run", str(config)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err_file,
        )
    results: Path | None = None
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            runs = tmp_path / "runs"
            if results is None and runs.is_dir() and any(runs.iterdir()):
                results = only_run_dir(runs) / "results.jsonl"
            if results is not None and results.is_file():
                count = results.read_bytes().count(b"\n")
                if count >= 40:
                    break
            assert proc.poll() is None, stderr.read_text()
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert results is not None
    done_before = results.read_bytes().count(b"\n")
    assert 40 <= done_before < 400, done_before
    run_dir = results.parent
    assert not (run_dir / "summary.json").exists()

    resumed = cli("run", "--resume", str(run_dir))
    assert resumed.returncode == 0, resumed.stderr
    header = json.loads((run_dir / "run.json").read_text())
    assert len(header["resumed_at"]) == 1

    reference = tmp_path / "reference"
    main(["run", str(config), "--output-dir", str(reference), "--set", "model_options.latency=0"])
    expected = outcome_by_pair(only_run_dir(reference))
    assert len(expected) == 400
    assert outcome_by_pair(run_dir) == expected
    summary = json.loads((run_dir / "summary.json").read_text())
    ref_summary = json.loads((only_run_dir(reference) / "summary.json").read_text())
    for key in (
        "results",
        "samples",
        "ok",
        "errored",
        "rewards",
        "tool_calls_by_status",
        "stop_reasons",
        "rounds_histogram",
    ):
        assert summary[key] == ref_summary[key], key


def test_resume_truncates_a_torn_last_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=6, epochs=2)
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    results = run_dir / "results.jsonl"
    full = outcome_by_pair(run_dir)
    lines = results.read_text().splitlines(keepends=True)
    # Lose the last three results, and leave half of the fourth-to-last written.
    torn = lines[-4][: len(lines[-4]) // 2]
    results.write_text("".join(lines[:-4]) + torn)
    (run_dir / "summary.json").unlink()
    assert main(["run", str(config), "--resume", str(run_dir)]) == 0
    assert outcome_by_pair(run_dir) == full
    assert results.read_text().endswith("\n")
    assert json.loads((run_dir / "summary.json").read_text())["results"] == 12
    # Resuming a finished run runs nothing and rewrites the same summary.
    assert main(["run", "--resume", str(run_dir)]) == 0
    assert len(read_results(run_dir)) == 12
    capsys.readouterr()


def test_resume_refuses_a_changed_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=3)
    assert main(["run", str(config), "--limit", "1"]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    data = tmp_path / "data.jsonl"
    data.write_text(data.read_text().replace("What is 2 + 1?", "What is 2 plus 1?"))
    capsys.readouterr()
    assert main(["run", str(config), "--limit", "1", "--resume", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(
        f"agentloop: error: cannot resume {run_dir}: the dataset {data} "
        "changed since the run started (sha256 "
    )


def test_resume_refuses_a_changed_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=3)
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    capsys.readouterr()
    assert (
        main(
            ["run", str(config), "--resume", str(run_dir), "--set", "max_rounds=2", "--epochs", "2"]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        f"agentloop: error: cannot resume {run_dir}: the config differs from the run's in: "
        "epochs, max_rounds\n"
    )
    # How the run goes (concurrency, fail_on_error, ...) may change.
    assert (
        main(
            [
                "run",
                str(config),
                "--resume",
                str(run_dir),
                "--concurrency",
                "1",
                "--set",
                "fail_on_error=true",
            ]
        )
        == 0
    )
    header = json.loads((run_dir / "run.json").read_text())
    assert header["config"]["concurrency"] == 1 and header["config"]["fail_on_error"] is True


def _add_tool_with(tmp_path: Path, setting: str) -> Path:
    """A file with an ``Add`` tool class that takes a string ``setting``."""
    tools = tmp_path / f"add_{setting}.py"
    tools.write_text(
        "from langchain_core.tools import BaseTool\n\n"
        "class Add(BaseTool):\n"
        "    name: str = 'add'\n"
        "    description: str = 'Add two integers.'\n"
        f"    {setting}: str = ''\n\n"
        "    def _run(self, a: int, b: int) -> int:\n"
        "        return a + b\n"
    )
    return tools


def test_resume_refuses_a_changed_secret_named_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Masked alike in run.json (a name with "key" in it was masked, and masks compared
    # equal), the real values differ: a resume would have mixed two settings.
    tools = _add_tool_with(tmp_path, "api_key")

    def config(key: str) -> Path:
        spec = {"path": f"{tools}:Add", "args": {"api_key": key}}
        return add_setup(tmp_path, n=3, tools=[spec])

    assert main(["run", str(config("first-value-123"))]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    header = json.loads((run_dir / "run.json").read_text())
    assert header["config"]["tools"][0]["args"]["api_key"] == "***"
    assert "first-value-123" not in (run_dir / "run.json").read_text()
    capsys.readouterr()
    assert main(["run", str(config("other-value-456")), "--resume", str(run_dir)]) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: cannot resume {run_dir}: the config differs from the run's in: tools\n"
    )
    # run.json alone cannot say what the masked value was: the config file is needed
    assert main(["run", "--resume", str(run_dir)]) == 2
    assert "masked values (secrets) in tools" in capsys.readouterr().err
    assert main(["run", str(config("first-value-123")), "--resume", str(run_dir)]) == 0
    assert len(read_results(run_dir)) == 3


def test_resume_without_config_names_a_password_masked_inside_a_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = _add_tool_with(tmp_path, "endpoint")
    spec = {"path": f"{tools}:Add", "args": {"endpoint": "http://alice:pw-secret-9@host/v1"}}
    config = add_setup(tmp_path, n=3, tools=[spec])
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    header = json.loads((run_dir / "run.json").read_text())
    assert header["config"]["tools"][0]["args"]["endpoint"] == "http://alice:***@host/v1"
    capsys.readouterr()
    # the mask sits inside the URL: run.json alone cannot give it back, and says so
    assert main(["run", "--resume", str(run_dir)]) == 2
    assert "masked values (secrets) in tools; give the config file too" in capsys.readouterr().err
    assert main(["run", str(config), "--resume", str(run_dir)]) == 0


def test_errored_results_are_not_run_again(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=3)
    (tmp_path / "script.json").write_text(json.dumps({"*": []}))  # every sample errors
    assert main(["run", str(config)]) == 1  # a run whose every result errored fails
    run_dir = only_run_dir(tmp_path / "runs")
    assert {r["status"] for r in read_results(run_dir)} == {"error"}
    assert main(["run", "--resume", str(run_dir)]) == 1
    assert len(read_results(run_dir)) == 3


def _start_run(tmp_path: Path, *argv: str) -> tuple[subprocess.Popen[bytes], Path]:
    """An ``agentloop run`` in its own process, once it has written a result."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentloop.cli", "run", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=interruptible,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        runs = tmp_path / "runs"
        if runs.is_dir() and any(runs.iterdir()):
            results = only_run_dir(runs) / "results.jsonl"
            if results.is_file() and results.read_bytes().count(b"\n") >= 1:
                return proc, results.parent
        time.sleep(0.01)
    proc.kill()
    raise AssertionError("the run wrote no result in time")


def test_a_second_writer_is_refused_and_a_killed_ones_lock_is_not(tmp_path: Path) -> None:
    # Two resumes of one run at once used to write duplicated pairs, counted twice.
    config = add_setup(tmp_path, n=40, concurrency=1, model_options={"latency": 0.3})
    first, run_dir = _start_run(tmp_path, str(config))
    try:
        second = cli("run", "--resume", str(run_dir))
        assert second.returncode == 2, second.stderr
        assert second.stderr == (
            f"agentloop: error: cannot write to {run_dir}: another agentloop process "
            f"(pid {first.pid}) is writing it\n"
        )
        assert first.poll() is None, "the first run ended too early for this test"
        assert json.loads((run_dir / "run.json").read_text())["resumed_at"] == []
    finally:
        first.kill()  # SIGKILL: no chance to clean up
        first.communicate(timeout=30)
    assert (run_dir / "writer.lock").read_text() == f"{first.pid}\n"  # left behind
    assert main(["run", "--resume", str(run_dir), "--concurrency", "8"]) == 0
    assert len(outcome_by_pair(run_dir)) == 40
    assert json.loads((run_dir / "summary.json").read_text())["results"] == 40


def test_one_process_cannot_open_a_run_it_is_writing(tmp_path: Path) -> None:
    from agentloop._secrets import Scrubber
    from agentloop.harness import RunLockedError, load_config
    from agentloop.harness.data._dataset import scan_dataset
    from agentloop.harness.rundir._header import open_run

    config = load_config(add_setup(tmp_path, n=2))
    scan = scan_dataset(config.dataset)
    with open_run(config, None, scan, 2, Scrubber({}), None) as (run_dir, _, done):
        with (
            pytest.raises(RunLockedError) as info,
            open_run(config, None, scan, 2, Scrubber({}), run_dir),
        ):
            pass
        assert str(info.value) == (
            f"cannot write to {run_dir}: this process (pid {os.getpid()}) is already writing it"
        )
    # Released at the end of the block.
    with open_run(config, None, scan, 2, Scrubber({}), run_dir) as (again, _, _):
        assert again == run_dir and done == set()


def test_ctrl_c_names_the_run_directory_to_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=40, concurrency=1, model_options={"latency": 0.1})
    proc, run_dir = _start_run(tmp_path, str(config))
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.decode() == (
        f"agentloop: interrupted; finish it with: agentloop run --resume {run_dir}\n"
    )
    assert main(["run", "--resume", str(run_dir), "--concurrency", "8"]) == 0
    assert len(outcome_by_pair(run_dir)) == 40


def _edit(path: Path) -> None:
    path.write_text(path.read_text() + "\n# changed\n")


@pytest.mark.parametrize("changed", ["tool", "script"])
def test_resume_refuses_changed_tool_code_or_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changed: str
) -> None:
    config = add_setup(tmp_path, n=3)
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    header = json.loads((run_dir / "run.json").read_text())
    tools, script = tmp_path / "mytools.py", tmp_path / "script.json"
    import hashlib

    assert header["inputs"] == {
        f"tool {tools}:add": {
            "file": str(tools),
            "sha256": hashlib.sha256(tools.read_bytes()).hexdigest(),
        },
        f"scripted model {script}": {
            "file": str(script),
            "sha256": hashlib.sha256(script.read_bytes()).hexdigest(),
        },
    }
    name = f"tool {tools}:add" if changed == "tool" else f"scripted model {script}"
    if changed == "tool":
        _edit(tools)
    else:
        script.write_text(script.read_text().replace('"3"', '"three"'))
    capsys.readouterr()
    assert main(["run", "--resume", str(run_dir)]) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: cannot resume {run_dir}: changed since the run started: {name} "
        "(add --allow-changed to resume anyway)\n"
    )
    assert len(json.loads((run_dir / "run.json").read_text())["resumed_at"]) == 0
    assert main(["run", "--resume", str(run_dir), "--allow-changed"]) == 0
    header = json.loads((run_dir / "run.json").read_text())
    (entry,) = header["resumed_at"]
    assert list(entry["allowed_changes"]) == [name]
    assert entry["allowed_changes"][name]["now"] == header["inputs"][name]["sha256"]
    # The new digests are the run's now: the next resume needs no flag.
    assert main(["run", "--resume", str(run_dir)]) == 0


def test_allow_changed_needs_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(add_setup(tmp_path, n=1)), "--allow-changed"]) == 2
    assert capsys.readouterr().err == "agentloop run: --allow-changed needs --resume RUN_DIR\n"


def test_tool_modules_are_found_by_import_path() -> None:
    from agentloop.harness import EvalConfig
    from agentloop.harness.config._inputs import run_inputs

    tools = ["agentloop.tools.calculator:calculator"]
    config = EvalConfig(model="openai:x", dataset="d", tools=tools)
    (entry,) = run_inputs(config).values()
    assert entry["file"] == str(ROOT / "tools" / "calculator.py")


def test_a_ray_run_may_be_finished_by_a_local_resume(tmp_path: Path) -> None:
    # Where pairs run (executor, cluster, workers) is not what they compute: a run started
    # on a cluster that is gone may be resumed here. Its run.json is edited to say so.
    config = add_setup(tmp_path, n=1)
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    header_file = run_dir / "run.json"
    header = json.loads(header_file.read_text())
    header["config"].update(executor="ray", ray_address="10.0.0.9:6379", ray_workers=4)
    header_file.write_text(json.dumps(header))
    assert main(["run", str(config), "--resume", str(run_dir)]) == 0
    assert json.loads(header_file.read_text())["config"]["executor"] == "local"
