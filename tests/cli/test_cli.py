"""The agentloop command: exit codes, one-line errors, score / summary / compare."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from agentloop.cli._commands import _COMMANDS, main
from tests.support.harness import (
    ROOT,
    add_script,
    add_setup,
    ask,
    call,
    only_run_dir,
    read_results,
    write_json,
)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_prints_the_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "run", str(add_setup(tmp_path, n=4)), "--epochs", "2")
    assert code == 0 and err == ""
    assert "qa_f1_reward" in out and "pass@2" in out and "progress: 8/8 done" in out
    assert "━" in out or "─" in out  # a table, not a bar: stdout is not a terminal here
    assert len(read_results(only_run_dir(tmp_path / "runs"))) == 8


def test_flags_override_the_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other"
    code, _, _ = run_cli(
        capsys,
        "run",
        str(add_setup(tmp_path, n=5)),
        "--limit",
        "2",
        "--concurrency",
        "1",
        "--output-dir",
        str(other),
        "--set",
        "max_rounds=1",
        "--set",
        "model_params.temperature=0",
    )
    assert code == 0
    run_dir = only_run_dir(other)
    header = json.loads((run_dir / "run.json").read_text())
    assert header["config"]["limit"] == 2 and header["config"]["concurrency"] == 1
    assert header["config"]["max_rounds"] == 1 and header["model_params"] == {"temperature": 0}


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["frobnicate"], "agentloop: argument command: invalid choice: 'frobnicate'"),
        (["run"], "agentloop run: a CONFIG is required (or --resume RUN_DIR)"),
        (["run", "nope.yaml"], "agentloop: error: config file not found: nope.yaml"),
        (
            ["run", "x.yaml", "--limit", "abc"],
            "agentloop run: argument --limit: expected a positive integer, got 'abc'",
        ),
        (
            ["run", "x.yaml", "--epochs", "0"],
            "agentloop run: argument --epochs: expected a positive integer, got '0'",
        ),
        (["run", "x.yaml", "--bogus"], "agentloop: unrecognized arguments: --bogus"),
        (
            ["run", "--resume", "nowhere"],
            "agentloop: error: nowhere: not a run directory (no run.json)",
        ),
        (["summary", "nowhere"], "agentloop: error: nowhere: not a run directory (no run.json)"),
        (["score", "nowhere"], "agentloop: error: nowhere: not a run directory (no run.json)"),
        (["compare", "a", "b"], "agentloop: error: a: no results file (results.jsonl) found"),
    ],
)
def test_bad_usage_is_one_line_with_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(expected), err
    assert "Traceback" not in err


def test_bare_agentloop_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    # it was an error: "agentloop: the following arguments are required: command", exit 2
    code, out, err = run_cli(capsys)
    assert code == 0 and err == "" and out.startswith("usage: agentloop")
    listed = re.findall(r"^ {4}(\w+) ", out, re.M)
    assert sorted(listed) == sorted(_COMMANDS)
    assert "run an evaluation config" in out


@pytest.mark.parametrize(
    ("source", "what"),
    [
        ("raise RuntimeError('broken at import')\n", "RuntimeError: broken at import"),
        ("def f(:\n", "SyntaxError: "),
        ("import json\njson.loads('{')\n", "JSONDecodeError: "),
    ],
)
@pytest.mark.parametrize("field", ["tools", "rewards"])
def test_a_module_by_dotted_path_that_fails_at_import_is_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    what: str,
    field: str,
) -> None:
    # It used to print a traceback and exit 1 (only by file path was it one line).
    name = f"pkg_{uuid.uuid4().hex}"  # a package imported once stays in sys.modules
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "broken.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    config = add_setup(tmp_path, n=1)
    code, _, err = run_cli(capsys, "run", str(config), "--set", f"{field}=[{name}.broken:x]")
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("agentloop: error: ") and f"importing {name}.broken failed: " in err
    assert what in err


def test_bad_files_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = add_setup(tmp_path, n=2)
    code, _, err = run_cli(capsys, "run", str(config), "--set", "max_rounds=-1")
    assert code == 2 and err == (  # the --set is blamed, not the file
        "agentloop: error: --set max_rounds=-1: Input should be greater than or equal to 0\n"
    )
    code, _, err = run_cli(capsys, "run", str(config), "--set", "tools=[./missing.py:add]")
    assert code == 2 and err == (  # a command line's path: from the working directory
        "agentloop: error: tool file not found: ./missing.py "
        f"(looked for {Path.cwd() / 'missing.py'})\n"
    )
    code, _, err = run_cli(capsys, "run", str(config), "--model", "scripted:missing.json")
    assert code == 2 and err == "agentloop: error: scripted model file not found: missing.json\n"
    # Bad scripted-model options and replies are one line too, not tracebacks.
    code, _, err = run_cli(capsys, "run", str(config), "--set", "model_options.latency=abc")
    assert code == 2 and err == (
        "agentloop: error: model option latency must be a non-negative number, not 'abc'\n"
    )
    bad_script = tmp_path / "bad_script.json"
    bad_script.write_text('[{"role": "user", "content": "not a reply"}]')
    code, _, err = run_cli(capsys, "run", str(config), "--model", f"scripted:{bad_script}")
    assert code == 2 and err.startswith(f"agentloop: error: {bad_script}: bad reply: TypeError")
    assert err.count("\n") == 1
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("a: [\n")
    code, _, err = run_cli(capsys, "run", str(bad_yaml))
    assert (
        code == 2
        and err.startswith(f"agentloop: error: {bad_yaml}: invalid YAML:")
        and err.count("\n") == 1
    )


def test_bad_dataset_lists_lines_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=2)
    data = tmp_path / "data.jsonl"
    data.write_text(data.read_text() + '{"messages": []}\n')
    code, _, err = run_cli(capsys, "run", str(config))
    assert code == 2
    assert err.splitlines() == [
        f"agentloop: error: {data}: 1 invalid line(s) "
        "(fix them, or set skip_invalid: true to run the rest)",
        f"{data}:3: 'messages' must be a non-empty list",
    ]


def test_fail_on_error_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = add_setup(tmp_path, n=4)
    script = add_script(4)
    script["s0001"] = script["s0002"] = []  # no replies: these samples error
    write_json(tmp_path / "script.json", script)
    code, _, err = run_cli(capsys, "run", str(config), "--set", "fail_on_error=1")
    assert (
        code == 1
        and err == "agentloop: run failed: 2 result(s) errored, more than fail_on_error=1\n"
    )
    assert run_cli(capsys, "run", str(config), "--set", "fail_on_error=2")[0] == 0
    assert run_cli(capsys, "run", str(config), "--set", "fail_on_error=0.25")[0] == 1
    assert run_cli(capsys, "run", str(config), "--set", "fail_on_error=0.5")[0] == 0
    assert run_cli(capsys, "run", str(config), "--set", "fail_on_error=true")[0] == 1
    assert run_cli(capsys, "run", str(config))[0] == 0  # default: false


def test_score_rescores_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "run", str(add_setup(tmp_path, n=3)))[0] == 0
    run_dir = only_run_dir(tmp_path / "runs")
    before = (run_dir / "results.jsonl").read_text()
    code, out, _ = run_cli(
        capsys,
        "score",
        str(run_dir),
        "--rewards",
        "qa_f1_reward_format",
        "{tool_call_match: {order: superset}}",
    )
    assert code == 0 and "re-scored results:" in out
    rescored = next(run_dir.glob("results.rescored-*.jsonl"))
    assert (run_dir / "results.jsonl").read_text() == before
    lines = read_results(run_dir, rescored.name)
    assert [sorted(r["scores"]) for r in lines] == [["qa_f1_reward_format", "tool_call_match"]] * 3
    assert all(r["passed"] == {"tool_call_match": True} for r in lines)
    summary = json.loads(next(run_dir.glob("summary.rescored-*.json")).read_text())
    assert summary["rewards"]["qa_f1_reward_format"]["mean"] == 1.0
    assert summary["run"]["results_file"] == rescored.name
    # The same rewards again by default; a bad reward is a usage error.
    code, _, err = run_cli(capsys, "score", str(run_dir), "--rewards", "nope")
    assert code == 2 and err.startswith("agentloop: error: rewards: unknown reward 'nope'")


def test_summary_and_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = add_setup(tmp_path, n=4)
    assert run_cli(capsys, "run", str(config), "--output-dir", str(tmp_path / "a"))[0] == 0
    script = add_script(4)
    script["s0002"][-1] = "wrong"
    write_json(tmp_path / "script.json", script)
    assert run_cli(capsys, "run", str(config), "--output-dir", str(tmp_path / "b"))[0] == 0
    a, b = only_run_dir(tmp_path / "a"), only_run_dir(tmp_path / "b")
    (a / "summary.json").unlink()
    code, out, _ = run_cli(capsys, "summary", str(a))
    assert code == 0 and "qa_f1_reward" in out and (a / "summary.json").is_file()
    code, out, _ = run_cli(capsys, "compare", str(a), str(b / "results.jsonl"))
    assert code == 0
    assert "-0.250" in out and "1 changed score(s)" in out and "s0002" in out


def test_the_folder_above_a_run_names_the_run_inside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=2)
    assert run_cli(capsys, "run", str(config), "--output-dir", str(tmp_path / "a"))[0] == 0
    run = only_run_dir(tmp_path / "a")
    for command in (["summary", str(tmp_path / "a")], ["compare", str(tmp_path / "a"), str(run)]):
        code, _, err = run_cli(capsys, *command)
        assert code == 2 and err.count("\n") == 1, err
        assert err.rstrip().endswith(f"; it holds the run directory {run}"), err
    assert run_cli(capsys, "run", str(config), "--output-dir", str(tmp_path / "a"))[0] == 0
    newest = max((tmp_path / "a").iterdir(), key=lambda p: p.stat().st_mtime)
    _, _, err = run_cli(capsys, "summary", str(tmp_path / "a"))
    assert err.rstrip().endswith(f"; it holds 2 run directories, the newest {newest}"), err


def test_module_entry_point(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "agentloop.cli", "run", "missing.yaml"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr == "agentloop: error: config file not found: missing.yaml\n"


def test_compare_prints_ids_with_brackets_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Sample ids are data: "[/b]" used to raise rich's MarkupError (a traceback) and
    # "[red]x" to print as a styled "x".
    for name, score in (("a", 1.0), ("b", 0.0)):
        lines = [
            {"id": i, "epoch": 1, "status": "ok", "scores": {"qa": {"score": score}}}
            for i in ("[/b]", "[red]x")
        ]
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out, err = run_cli(
        capsys, "compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")
    )
    assert code == 0 and err == ""
    assert "[/b]" in out and "[red]x" in out and "2 changed score(s)" in out


def test_two_rescores_in_the_same_second_never_share_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from datetime import datetime

    from agentloop.harness.run._rescore import rescore_run

    assert run_cli(capsys, "run", str(add_setup(tmp_path, n=3)))[0] == 0
    run_dir = only_run_dir(tmp_path / "runs")
    now = datetime(2030, 1, 2, 3, 4, 5)
    first, summary_1 = rescore_run(run_dir, now=now)
    second, summary_2 = rescore_run(run_dir, now=now)
    assert first != second and second.name == "results.rescored-20300102-030405-2.jsonl"
    assert len(read_results(run_dir, first.name)) == len(read_results(run_dir, second.name)) == 3
    assert summary_1.results == summary_2.results == 3
    assert (run_dir / "summary.rescored-20300102-030405-2.json").is_file()


@pytest.mark.parametrize("skip_invalid", [False, True])
def test_an_empty_dataset_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], skip_invalid: bool
) -> None:
    config = add_setup(tmp_path, n=1, skip_invalid=skip_invalid)
    data = tmp_path / "data.jsonl"
    data.write_text("\n")
    code, _, err = run_cli(capsys, "run", str(config))
    assert code == 2 and err == f"agentloop: error: {data}: the dataset has no rows\n"


@pytest.mark.parametrize(
    ("setting", "field"),
    [
        ("model_params.temperature=hot", "temperature"),
        ("model_params.max_tokens=abc", "max_tokens"),
    ],
)
def test_a_bad_sampling_param_is_one_line_before_anything_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setting: str, field: str
) -> None:
    config = add_setup(
        tmp_path,
        n=1,
        model="openai:gpt-test",
        model_options={"base_url": "http://127.0.0.1:9/v1"},
        tools=[],
    )
    code, _, err = run_cli(capsys, "run", str(config), "--set", setting)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("agentloop: error: ") and field in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists()


def test_a_validation_error_opening_the_model_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Whatever a provider lets through, pydantic's multi-line report never reaches the user.
    from pydantic import BaseModel

    import agentloop.models._base as models_base

    class Client(BaseModel):
        temperature: float

    def provider(value: str, params: dict[str, object], options: dict[str, object]) -> object:
        return Client.model_validate(params)

    monkeypatch.setitem(models_base._PROVIDERS, "cli-test-pydantic", provider)
    config = add_setup(tmp_path, n=1, model="cli-test-pydantic:x")
    code, _, err = run_cli(capsys, "run", str(config), "--set", "model_params.temperature=hot")
    assert code == 2 and err == (
        "agentloop: error: temperature: Input should be a valid number, unable to parse "
        "string as a number (Client)\n"
    )
    assert not (tmp_path / "runs").exists()


def test_summary_of_a_killed_run_says_it_is_incomplete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(capsys, "run", str(add_setup(tmp_path, n=5)))[0] == 0
    run_dir = only_run_dir(tmp_path / "runs")
    results = run_dir / "results.jsonl"
    results.write_text("".join(results.read_text().splitlines(keepends=True)[:2]))
    (run_dir / "summary.json").unlink()  # killed: no summary
    code, out, err = run_cli(capsys, "summary", str(run_dir))
    assert code == 0 and err == ""
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["complete"], summary["planned"], summary["results"]) == (False, 5, 2)
    note = f"INCOMPLETE: 2 of 5 results; finish with: agentloop run --resume {run_dir}"
    assert summary["notes"][0] == note
    assert f"note: {note}" in out and re.search(r"│ INCOMPLETE +│ 2 of 5 results", out)
    # Finished, the same command says nothing of the kind.
    assert run_cli(capsys, "run", "--resume", str(run_dir))[0] == 0
    code, out, _ = run_cli(capsys, "summary", str(run_dir))
    assert json.loads((run_dir / "summary.json").read_text())["complete"] is True
    assert "INCOMPLETE" not in out


def test_a_reward_failing_everywhere_is_shown_by_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import agentloop.evals._registry
    from agentloop.evals import register_reward

    def broken(trajectory: object, ground_truth: object, *, answer: object = None) -> object:
        raise KeyError("expected_calls")

    # A private copy of the registry: the test reward must not leak into other tests.
    registry = agentloop.evals._registry
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    register_reward("cli_test_broken", broken)
    config = add_setup(tmp_path, n=5, rewards=["cli_test_broken"], pass_threshold={})
    code, out, _ = run_cli(capsys, "run", str(config))
    assert code == 1  # every result errored (tests/cli/test_reward_failures.py)
    errors = out[out.index("Errors") :]
    assert "reward" in errors and "│       5 │" in errors
    assert "s0000, s0001, s0002" in errors and "s0003" not in errors
    assert "cli_test_broken: KeyError: 'expected_calls'" in errors
    summary = json.loads((only_run_dir(tmp_path / "runs") / "summary.json").read_text())
    assert summary["error_examples"] == {
        "reward": {
            "first_error": "cli_test_broken: KeyError: 'expected_calls'",
            "sample_ids": ["s0000", "s0001", "s0002"],
        }
    }


def test_tool_exceptions_are_listed_by_tool_and_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "buggy.py"
    tools.write_text(
        "from langchain_core.tools import tool\n\n"
        "@tool\n"
        "def lookup(key: str) -> str:\n"
        '    """Look a key up."""\n'
        "    return {}[key]\n"
    )
    config = add_setup(tmp_path, n=2, tools=[f"{tools}:lookup"])
    script = [ask(call("c1", "lookup", {"key": "a"})), "1"]
    (tmp_path / "script.json").write_text(json.dumps(script))
    code, out, _ = run_cli(capsys, "run", str(config))
    assert code == 0
    assert "Tool exceptions" in out and "lookup: KeyError" in out
    run_dir = only_run_dir(tmp_path / "runs")
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["tool_exceptions"] == {"lookup: KeyError": 2}
    line = json.loads((run_dir / "results.jsonl").read_text().splitlines()[0])
    (record,) = line["trajectory"]["steps"][0]["tool_calls"]
    assert record["exception"] == "KeyError" and "return {}[key]" in record["traceback"]
