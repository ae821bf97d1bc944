"""What `agentloop run` tells a user beyond the numbers: the next commands, a warning when
the model never called a tool, and module paths found from the current directory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import run_cli
from tests.support.harness import (
    add_row,
    add_script,
    add_setup,
    ask,
    call,
    only_run_dir,
    write_config,
    write_json,
    write_jsonl,
)


def test_a_run_ends_with_the_commands_that_look_at_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "run", str(add_setup(tmp_path, n=2)))
    assert code == 0 and "warning:" not in out  # the model called its tool
    run_dir = only_run_dir(tmp_path / "runs")
    lines = out.splitlines()
    start = lines.index("next:")
    view, show = (line.split("  #")[0].split() for line in lines[start + 1 : start + 3])
    assert view == ["agentloop", "view", str(run_dir)]
    assert show == ["agentloop", "show", str(run_dir), "s0000"]
    # The printed commands work as printed.
    assert run_cli(capsys, *view[1:])[0] == 0 and (run_dir / "report.html").is_file()
    code, out, _ = run_cli(capsys, *show[1:])
    assert code == 0 and "s0000" in out


def _next_show(out: str) -> list[str]:
    """The ``agentloop show`` command of a run's ``next:`` hint, and its comment."""
    lines = out.splitlines()
    command, _, comment = lines[lines.index("next:") + 2].partition("  # ")
    return [*command.split(), comment]


def test_the_hint_shows_the_first_failing_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=3, concurrency=1)
    script = add_script(3)
    script["s0001"][-1] = "wrong"  # s0000 passes, s0001 is below its pass threshold
    write_json(tmp_path / "script.json", script)
    code, out, _ = run_cli(capsys, "run", str(config))
    assert code == 0
    run_dir = only_run_dir(tmp_path / "runs")
    *show, comment = _next_show(out)
    assert show == ["agentloop", "show", str(run_dir), "s0001"]
    assert comment == "the first failing sample in the terminal"
    code, out, _ = run_cli(capsys, *show[1:])
    assert code == 0 and "wrong" in out


def test_the_hint_names_the_failing_epoch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import agentloop.evals._registry
    from agentloop.evals import register_reward

    calls = []

    def cli_test_second_fails(final_answer: object) -> float:
        calls.append(final_answer)
        return 0.0 if len(calls) == 2 else 1.0  # concurrency 1: s0000's epoch 2

    registry = agentloop.evals._registry
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    register_reward("cli_test_second_fails", cli_test_second_fails)
    config = add_setup(tmp_path, n=2, epochs=2, concurrency=1,
                       rewards=["cli_test_second_fails"], pass_threshold={})  # fmt: skip
    code, out, _ = run_cli(capsys, "run", str(config))
    assert code == 0 and len(calls) == 4
    run_dir = only_run_dir(tmp_path / "runs")
    *show, _ = _next_show(out)
    assert show == ["agentloop", "show", str(run_dir), "s0000", "--epoch", "2"]


def test_a_resume_with_nothing_to_do_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(capsys, "run", str(add_setup(tmp_path, n=3)))[0] == 0
    run_dir = only_run_dir(tmp_path / "runs")
    results = (run_dir / "results.jsonl").read_text()
    code, out, err = run_cli(capsys, "run", "--resume", str(run_dir))
    assert (code, err) == (0, "")
    assert out == (
        f"nothing to do: {run_dir} has all its 3 results; see them with: "
        f"agentloop summary {run_dir}\n"
    )
    code, out, err = run_cli(capsys, "run", "--resume", str(run_dir), "--retry-errors")
    assert (code, err) == (0, "") and out.count("\n") == 1
    assert out.startswith(f"nothing to do: {run_dir} has all its 3 results, none errored; ")
    assert (run_dir / "results.jsonl").read_text() == results  # nothing ran


def test_a_run_whose_model_never_calls_a_tool_warns_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write_json(tmp_path / "no_calls.json", ["I think it is 1."])  # answers, no call
    config = add_setup(tmp_path, n=3, model=f"scripted:{script}")
    code, out, _ = run_cli(capsys, "run", str(config))
    assert code == 0
    warning = next(line for line in out.splitlines() if line.startswith("warning: "))
    assert "no sample made a tool call" in warning and "3 result(s) were offered tools" in warning
    assert "tool_choice" in warning and "does not support tool calling" in warning
    # Recorded where the summary is read: summary.json, `agentloop summary`, the report.
    run_dir = only_run_dir(tmp_path / "runs")
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["warnings"] == [warning.removeprefix("warning: ")]
    code, out, _ = run_cli(capsys, "summary", str(run_dir))
    assert code == 0 and warning in out.splitlines()
    assert run_cli(capsys, "view", str(run_dir))[0] == 0
    assert "summary.warnings" in (run_dir / "report.html").read_text()


def test_no_warning_when_tools_were_refused_on_purpose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write_json(tmp_path / "no_calls.json", ["1"])
    config = add_setup(tmp_path, n=2, model=f"scripted:{script}", tool_choice="none")
    code, out, _ = run_cli(capsys, "run", str(config))
    assert code == 0 and "warning:" not in out
    summary = json.loads((only_run_dir(tmp_path / "runs") / "summary.json").read_text())
    assert summary["warnings"] == []


def test_no_warning_when_the_rows_expect_no_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # BFCL's irrelevance categories: refraining from every tool is the right answer.
    script = write_json(tmp_path / "no_calls.json", ["I cannot help with that."])
    config = add_setup(tmp_path, n=2, model=f"scripted:{script}")
    rows = [{**add_row(i), "ground_truth": {"tool_calls": []}} for i in range(2)]
    write_jsonl(tmp_path / "data.jsonl", rows)
    code, out, _ = run_cli(capsys, "run", str(config))
    assert code == 0 and "warning:" not in out


MODULES = {
    "mine/__init__.py": "",
    "mine/mytools.py": '''
from langchain_core.tools import tool


@tool
def convert_units(value: float, unit: str) -> str:
    """Convert a length in km to miles."""
    return f"{value * 0.621371:.1f} miles"
''',
    "mine/myrewards.py": '''
def said_miles(trajectory, **_):
    """1.0 when the final answer mentions miles."""
    return 1.0 if "miles" in (trajectory.final_answer or "") else 0.0
''',
    "mine/myenv.py": '''
from langchain_core.tools import tool


class Odometer:
    def __init__(self):
        self.km = 0.0

    def tools(self):
        @tool
        def drive(km: float) -> str:
            """Drive some kilometres."""
            self.km += km
            return f"odometer: {self.km} km"

        return [drive]

    def snapshot(self):
        return {"km": self.km}


def make():
    return Odometer()
''',
}


def test_module_paths_in_a_config_resolve_from_the_current_directory(tmp_path: Path) -> None:
    # It was `cannot import module 'mine.mytools': No module named 'mine'` from the
    # project's root: the installed script's folder, not the current one, was on the path.
    for name, text in MODULES.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    row = {"id": "far", "messages": [{"role": "user", "content": "10 km in miles?"}]}
    write_jsonl(tmp_path / "data.jsonl", [row])
    convert = call("c1", "convert_units", {"value": 10, "unit": "km"})
    write_json(tmp_path / "script.json", [ask(convert), "6.2 miles"])
    write_config(
        tmp_path / "eval.yaml",
        model="scripted:script.json",
        tools=["mine.mytools:convert_units"],
        environment="mine.myenv:make",
        dataset="data.jsonl",
        rewards=["mine.myrewards:said_miles"],
    )
    agentloop = Path(sys.executable).parent / "agentloop"  # the installed console script
    proc = subprocess.run(
        [str(agentloop), "run", "eval.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    (line,) = (tmp_path / "runs").glob("*/results.jsonl")
    result = json.loads(line.read_text())
    assert result["scores"]["mine.myrewards:said_miles"]["score"] == 1.0
    assert result["tool_calls_by_status"] == {"ok": 1}
    assert set(result["request"]["tools"]) == {"convert_units", "drive"}
