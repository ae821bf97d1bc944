"""`agentloop init`: a first evaluation of one's own that runs as printed; and `agentloop
tools schemas`, the OpenAI schemas of one's tools for rows that bind their own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agentloop.cli._commands import main

BIN = Path(sys.executable).parent  # where the installed `agentloop` script is


def agentloop(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "agentloop"), *argv], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def printed_command(stdout: str, after: str) -> str:
    lines = stdout.splitlines()
    return lines[next(i for i, line in enumerate(lines) if line.startswith(after)) + 1].strip()


def test_init_writes_an_evaluation_that_runs_offline_as_printed(tmp_path: Path) -> None:
    init = agentloop(tmp_path, "init", "my-eval")
    assert init.returncode == 0, init.stderr
    command = printed_command(init.stdout, "run it offline")
    assert command == "cd my-eval && agentloop run eval.yaml --model scripted:scripts.json"
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "warning:" not in proc.stdout
    project = tmp_path / "my-eval"
    config = yaml.safe_load((project / "eval.yaml").read_text())
    assert len(config["tools"]) == 2 and config["tool_choice"] == "required"
    (results,) = project.glob("runs/*/results.jsonl")
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(lines) == 5 and {line["status"] for line in lines} == {"ok"}
    for line in lines:  # both tools offered to every row; the expected call made and run
        assert line["scores"]["tool_call_match"]["score"] == 1.0, line["id"]
        assert line["scores"]["answer_match"]["score"] == 1.0, line["id"]
        assert sorted(line["request"]["tools"]) == ["convert_currency", "convert_units"]
        assert line["tool_calls_by_status"] == {"ok": 1}
        # the real tools' results agree with the dataset's answers
        (tool_message,) = (m for m in line["trajectory"]["messages"] if m["role"] == "tool")
        assert tool_message["content"] in line["answer"], line["id"]
    called = {line["trajectory"]["steps"][0]["tool_calls"][0]["name"] for line in lines}
    assert called == {"convert_currency", "convert_units"}
    # the config's header comments name the same offline command
    assert "agentloop run eval.yaml --model scripted:scripts.json" in (
        project / "eval.yaml"
    ).read_text()


def test_init_here_prints_commands_without_cd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    out = capsys.readouterr().out
    assert printed_command(out, "run it on the local model") == "agentloop run eval.yaml"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "data.jsonl",
        "eval.yaml",
        "my_tools.py",
        "scripts.json",
    ]


def test_init_never_overwrites_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    project = tmp_path / "mine"
    project.mkdir()
    (project / "eval.yaml").write_text("my own config\n")
    assert main(["init", "mine"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        f"agentloop init: {Path('mine') / 'eval.yaml'} exists already; nothing was written "
        "(choose another DIR)\n"
    )
    assert [p.name for p in project.iterdir()] == ["eval.yaml"]
    assert (project / "eval.yaml").read_text() == "my own config\n"
    (tmp_path / "afile").write_text("")
    assert main(["init", "afile"]) == 2
    assert capsys.readouterr().err == "agentloop init: afile exists and is not a directory\n"


def test_tools_schemas_are_what_a_row_binds(tmp_path: Path) -> None:
    assert agentloop(tmp_path, "init").returncode == 0
    every = agentloop(tmp_path, "tools", "schemas", "my_tools")
    assert every.returncode == 0, every.stderr
    schemas = json.loads(every.stdout)
    assert [s["function"]["name"] for s in schemas] == ["convert_units", "convert_currency"]
    units = schemas[0]["function"]["parameters"]
    assert units["properties"]["from_unit"]["enum"] == ["km", "mi", "kg", "lb", "C", "F"]
    assert units["properties"]["value"]["description"] == "The value to convert."
    # One tool, on one line: pasted into the rows, they bind that tool alone.
    one = agentloop(tmp_path, "tools", "schemas", "./my_tools.py:CurrencyConverter", "--compact")
    assert one.returncode == 0 and one.stdout.count("\n") == 1
    assert json.loads(one.stdout) == [schemas[1]]
    rows = [json.loads(line) for line in (tmp_path / "data.jsonl").read_text().splitlines()]
    rows = [r for r in rows if r["metadata"]["category"] == "currency"]
    text = "".join(json.dumps({**r, "tools": json.loads(one.stdout)}) + "\n" for r in rows)
    (tmp_path / "currency.jsonl").write_text(text)
    run = agentloop(
        tmp_path, "run", "eval.yaml", "--model", "scripted:scripts.json",
        "--set", "dataset=currency.jsonl",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    (results,) = tmp_path.glob("runs/*/results.jsonl")
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert [line["request"]["tools"] for line in lines] == [["convert_currency"]] * 2
    assert all(line["scores"]["answer_match"]["score"] == 1.0 for line in lines)


def test_tools_schemas_of_nothing_is_one_line(tmp_path: Path) -> None:
    missing = agentloop(tmp_path, "tools", "schemas", "no_such_module")
    assert missing.returncode == 2
    assert missing.stderr == (
        "agentloop: error: cannot import module 'no_such_module': No module named "
        "'no_such_module'\n"
    )
    (tmp_path / "helpers.py").write_text("def double(x):\n    return 2 * x\n")
    empty = agentloop(tmp_path, "tools", "schemas", "helpers")
    assert empty.returncode == 2
    assert empty.stderr == (
        "agentloop: error: helpers has no tools (@tool functions or BaseTool classes)\n"
    )


def test_init_grades_its_numeric_answers_as_numbers(tmp_path: Path) -> None:
    # Token F1 passed 2.61 against 26.1 (punctuation deleted, both are "261"); the answer
    # reward of the project init writes compares numbers.
    assert main(["init", str(tmp_path)]) == 0
    scripts = json.loads((tmp_path / "scripts.json").read_text())
    wrong = {"km-to-miles": "2.61 mi", "kg-to-pounds": "1102", "fahrenheit-to-celsius": "37.780"}
    for sample_id, reply in wrong.items():
        scripts[sample_id][-1] = reply
    (tmp_path / "scripts.json").write_text(json.dumps(scripts))
    run = agentloop(tmp_path, "run", "eval.yaml", "--model", "scripted:scripts.json")
    assert run.returncode == 0, run.stderr
    (results,) = tmp_path.glob("runs/*/results.jsonl")
    scores = {
        line["id"]: line["scores"]["answer_match"]["score"]
        for line in map(json.loads, results.read_text().splitlines())
    }
    assert scores == {"km-to-miles": 0.0, "kg-to-pounds": 0.0, "fahrenheit-to-celsius": 1.0,
                      "eur-to-usd": 1.0, "jpy-to-gbp": 1.0}  # fmt: skip
