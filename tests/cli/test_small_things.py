"""Small things a user trips on, through the real entry point: --version, compare --json and
its warnings, retries in the summary, a BOM, duplicate YAML keys, tool_choice and sampling
param names checked before anything runs, a silent run_eval_sync."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentloop import __version__
from agentloop.cli._commands import main
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from tests.support.harness import (
    ROOT,
    add_row,
    add_script,
    add_setup,
    only_run_dir,
    read_results,
    write_json,
    write_jsonl,
)
from tests.support.openai_stub import StubServer, error, reply


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "--version") == (0, f"agentloop {__version__}\n", "")
    proc = subprocess.run(
        [sys.executable, "-m", "agentloop.cli", "--version"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"agentloop {__version__}\n", "")


def _two_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int = 3, **b_config: object
) -> tuple[Path, Path]:
    """Run A: 3 rows answered right; run B: ``n`` rows, s0001 answered wrong."""
    config = add_setup(tmp_path, n=3)
    assert run_cli(capsys, "run", str(config), "--output-dir", str(tmp_path / "a"))[0] == 0
    config = add_setup(tmp_path, n=n, **b_config)
    script = add_script(n)
    script["s0001"][-1] = "wrong"
    write_json(tmp_path / "script.json", script)
    assert run_cli(capsys, "run", str(config), "--output-dir", str(tmp_path / "b"))[0] == 0
    return only_run_dir(tmp_path / "a"), only_run_dir(tmp_path / "b")


def test_compare_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = _two_runs(tmp_path, capsys)
    code, out, err = run_cli(capsys, "compare", str(a), str(b), "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["a"] == str(a) and data["b"] == str(b) and data["warnings"] == []
    assert data["rewards"][0]["reward"] == "qa_f1_reward"
    assert [(c["id"], c["a"], c["b"]) for c in data["changed"]] == [("s0001", 1.0, 0.0)]
    assert data["summary_a"]["results"] == 3


def test_compare_warns_about_different_datasets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _two_runs(tmp_path, capsys, n=4)
    code, out, err = run_cli(capsys, "compare", str(a), str(b))
    assert code == 0 and err == ""
    (warning,) = [line for line in out.splitlines() if line.startswith("warning: ")]
    assert "different datasets" in warning and "sha256" in warning
    data = json.loads(run_cli(capsys, "compare", str(a), str(b), "--json")[1])
    assert len(data["warnings"]) == 1 and "different datasets" in data["warnings"][0]
    assert data["only_in_b"] == 1


def test_a_reward_in_one_run_only_is_not_a_changed_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _two_runs(tmp_path, capsys, rewards=["qa_f1_reward", "qa_f1_reward_format"])
    code, out, _ = run_cli(capsys, "compare", str(a), str(b), "--json")
    data = json.loads(out)
    assert code == 0
    assert {(c["id"], c["reward"]) for c in data["changed"]} == {("s0001", "qa_f1_reward")}
    assert data["warnings"] == [
        "reward qa_f1_reward_format is only in B: its scores are not compared per sample"
    ]
    delta = {d["reward"]: d for d in data["rewards"]}["qa_f1_reward_format"]
    assert delta["a"] is None and delta["delta"] is None
    out = run_cli(capsys, "compare", str(a), str(b))[1]
    assert "1 changed score(s)" in out and "warning: reward qa_f1_reward_format is only in B" in out


def test_the_summary_counts_retries(
    tmp_path: Path, stub: StubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    stub.push(error(429, headers={"Retry-After": "0"}), error(503), reply("1"))
    stub.handler = lambda body: reply("2")
    options = {"base_url": stub.url, "retry_initial_delay_s": 0.01}
    config = add_setup(tmp_path, n=2, model="openai:m", model_options=options, tools=[],
                       concurrency=1)  # fmt: skip
    code, out, _ = run_cli(capsys, "run", str(config))
    assert code == 0
    summary = json.loads((only_run_dir(tmp_path / "runs") / "summary.json").read_text())
    assert summary["model_retries"] == 2
    rows = [line.split() for line in out.splitlines()]
    assert ["│", "model", "retries", "│", "2", "│"] in rows


def test_a_dataset_may_start_with_a_bom(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = add_setup(tmp_path, n=2)
    data = tmp_path / "data.jsonl"
    data.write_bytes(b"\xef\xbb\xbf" + data.read_bytes())
    code, _, err = run_cli(capsys, "run", str(config))
    assert code == 0 and err == ""
    lines = read_results(only_run_dir(tmp_path / "runs"))
    assert sorted(x["id"] for x in lines) == ["s0000", "s0001"]
    assert all(x["status"] == "ok" for x in lines)


def test_duplicate_yaml_keys_name_both_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=1)
    text = config.read_text()
    config.write_text(text + "model: scripted:other.json\nmodel_params:\n  seed: 1\n  seed: 2\n")
    lines = text.splitlines()
    first = 1 + lines.index(next(x for x in lines if x.startswith("model:")))
    end = len(lines)
    code, out, err = run_cli(capsys, "run", str(config))
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"agentloop: error: {config}:{end + 1}: duplicate key 'model' (first on line {first})",
        f"{config}:{end + 4}: duplicate key 'seed' (first on line {end + 3})",
    ]
    assert not (tmp_path / "runs").exists()


def test_yaml_merge_keys_are_not_duplicates(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=1)
    config.write_text(
        config.read_text()
        + "x-base: &base {seed: 1, temperature: 0}\nmodel_params:\n  <<: *base\n  seed: 2\n"
    )
    with pytest.raises(Exception, match="x-base"):  # unknown field, but no duplicate key
        load_config(config)


@pytest.mark.parametrize("choice", ["get_wether", "{type: function, function: {name: get_wether}}"])
def test_tool_choice_must_name_a_bound_tool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], choice: str
) -> None:
    config = add_setup(tmp_path, n=2)
    code, out, err = run_cli(capsys, "run", str(config), "--set", f"tool_choice={choice}")
    assert code == 2 and out == ""
    assert err == (
        f"agentloop: error: --set tool_choice={choice}: no row binds a tool named 'get_wether' "
        "(tools: add)\n"
    )
    assert not (tmp_path / "runs").exists()


def test_tool_choice_may_name_a_row_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}
    config = add_setup(tmp_path, n=2)
    write_jsonl(tmp_path / "data.jsonl", [add_row(0), add_row(1, tools=[schema])])
    for choice in ("get_weather", "add", "required", "auto", "none"):
        code, _, err = run_cli(capsys, "run", str(config), "--set", f"tool_choice={choice}")
        assert code == 0 and err == "", (choice, err)


def test_a_misspelt_sampling_param_fails_under_scripted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=1)
    code, out, err = run_cli(capsys, "run", str(config), "--set", "model_params.temprature=0")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("agentloop: error: unknown sampling param(s): temprature; known: ")
    assert not (tmp_path / "runs").exists()
    assert run_cli(capsys, "run", str(config), "--set", "model_params.temperature=0")[0] == 0


def test_a_misspelt_sampling_param_fails_under_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=1, output_dir=str(tmp_path / "first"))
    assert run_cli(capsys, "run", str(config))[0] == 0
    recorded = only_run_dir(tmp_path / "first")
    code, _, err = run_cli(
        capsys, "run", str(config), "--model", f"replay:{recorded}",
        "--set", "model_params.temprature=0", "--output-dir", str(tmp_path / "again"),
    )  # fmt: skip
    assert code == 2 and err.startswith("agentloop: error: unknown sampling param(s): temprature")
    assert not (tmp_path / "again").exists()


def test_run_eval_sync_prints_nothing(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    config = add_setup(tmp_path, n=3)
    capfd.readouterr()
    outcome = run_eval_sync(load_config(config), config_path=str(config))
    assert outcome.summary.results == 3
    assert capfd.readouterr() == ("", "")


def test_the_terminal_never_turns_user_text_into_emoji(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # rich's emoji codes were on: a sample id or model name holding ":m:" printed as an emoji
    from tests.support.harness import add_row, add_setup, ask, call, write_json, write_jsonl

    rows = [add_row(0, id="q:m:1")]
    write_jsonl(tmp_path / "rows.jsonl", rows)
    script = write_json(tmp_path / "s.json", {"q:m:1": [ask(call("c", "add", {"a": 0, "b": 1})),
                                                        "wrong"]})  # fmt: skip
    config = add_setup(tmp_path, n=1, dataset=str(tmp_path / "rows.jsonl"),
                       model=f"scripted:{script}")  # fmt: skip
    main(["run", str(config)])
    out = capsys.readouterr().out
    assert "q:m:1" in out and "Ⓜ" not in out
