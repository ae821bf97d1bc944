"""Ground truth that can never pass is found before the first sample: an expected call to a
tool the row does not bind (a warning, once, on stderr, naming the rows), and
``tool_call_match: {schema: row}`` on rows without schemas of their own (an error)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agentloop.benchmarks.bfcl._package import BFCL_DATA_ENV, bfcl_package
from agentloop.cli._commands import main
from agentloop.harness import load_config
from agentloop.harness.run._sample import prepare
from tests.support.harness import (
    ROOT,
    add_row,
    add_setup,
    only_run_dir,
    read_results,
    shipped_offline,
    write_jsonl,
)

FACTORY = """
from langchain_core.tools import tool


@tool
def add(a: int, b: int) -> int:
    \"\"\"Add two integers.\"\"\"
    return a + b


def make():
    return [add]
"""
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}


def expecting(name: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": {"a": 1, "b": 1}}]}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def setup(tmp_path: Path, rows: list[dict[str, Any]], **config: Any) -> Path:
    config = {"rewards": ["tool_call_match"], "pass_threshold": {}, **config}
    path = add_setup(tmp_path, n=len(rows), **config)
    write_jsonl(tmp_path / "data.jsonl", rows)
    return path


def test_an_expected_call_to_a_tool_the_row_does_not_bind_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        add_row(0, ground_truth=expecting("add")),  # the configured tool: fine
        add_row(1, ground_truth=expecting("ad")),  # a typo
        add_row(2, tools=[WEATHER], ground_truth=expecting("add")),  # its schemas leave add out
        add_row(3, tools=[WEATHER], ground_truth=expecting("get_weather")),
        add_row(4, turns=[{"tools": [WEATHER]}],
                ground_truth=expecting("get_weather")),  # added by its later turn: fine
    ]  # fmt: skip
    code, _, err = run_cli(capsys, "run", str(setup(tmp_path, rows)))
    assert code == 0  # the run goes on: the other rewards, the other rows still count
    assert err == (
        "agentloop: warning: ground_truth: 2 row(s) expect a call to a tool the row does not "
        "bind, which no reply can match: s0001 ('ad', did you mean 'add'?), "
        "s0002 ('add')\n"
    )
    lines = {line["id"]: line for line in read_results(only_run_dir(tmp_path / "runs"))}
    assert lines["s0001"]["scores"]["tool_call_match"]["score"] == 0.0


def test_many_rows_are_counted_and_the_first_few_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [add_row(i, ground_truth=expecting("multiply")) for i in range(8)]
    code, _, err = run_cli(capsys, "run", str(setup(tmp_path, rows)), "--limit", "1")
    assert code == 0 and err.count("\n") == 1
    assert "8 row(s)" in err and err.endswith(
        "s0000 ('multiply'), s0001 ('multiply'), s0002 ('multiply'), s0003 ('multiply'), "
        "s0004 ('multiply') and 3 more\n"
    )


@pytest.mark.parametrize(
    ("config", "why"),
    [
        ({"mode": "score", "model": None}, "recorded replies are scored as they are"),
        ({"tools": [{"factory": "FACTORY"}]}, "a factory's tools vary"),
        ({"environment": "agentloop.tools.bank:make_bank"}, "an environment's tools vary"),
    ],
)
def test_no_warning_where_the_bound_tools_are_not_known_or_not_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: dict[str, Any], why: str
) -> None:
    rows = [add_row(0, ground_truth=expecting("deposit_typo"))]
    if config.get("tools") == [{"factory": "FACTORY"}]:
        factory = tmp_path / "factory.py"
        factory.write_text(FACTORY)
        config = {"tools": [{"factory": f"{factory}:make"}]}
    path = setup(tmp_path, rows, **config)
    prepared = prepare(load_config(path))
    assert prepared.warnings == [], why


def test_schema_row_on_rows_without_schemas_is_an_error_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [add_row(0, tools=[WEATHER]), add_row(1), add_row(2)]
    config = setup(tmp_path, rows, rewards=[{"tool_call_match": {"schema": "row"}}])
    code, out, err = run_cli(capsys, "run", str(config))
    assert code == 2 and out == ""
    assert err == (
        f"agentloop: error: {config}: rewards: tool_call_match: schema: row reads each row's own "
        "tool schemas, but 2 row(s) have none (they use the config's tools): s0001, s0002; "
        "give tool_call_match the schemas (schema: [...]) or remove schema\n"
    )
    assert not (tmp_path / "runs").exists()  # it used to error every sample at run time
    # rows that all bring their schemas run
    row = add_row(0, tools=[WEATHER], ground_truth=expecting("get_weather"))
    write_jsonl(tmp_path / "data.jsonl", [row])
    assert run_cli(capsys, "run", str(config))[0] == 0


SHIPPED = sorted((ROOT / "configs").glob("*.yaml")) + sorted((ROOT / "configs").glob("*/*.yaml"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_shipped_configs_warn_of_nothing(path: Path, tmp_path: Path) -> None:
    # BFCL's rows bind their tools by schema (multi-turn: an environment's), τ²-bench's
    # through an environment: none of their ground truth is flagged.
    if path.parent.name == "bfcl" and BFCL_DATA_ENV not in os.environ and not bfcl_package():
        pytest.skip("bfcl-eval is not installed: pip install --no-deps 'bfcl-eval==2026.3.23'")
    script = tmp_path / "any.json"
    script.write_text('{"*": ["done"]}')
    config = load_config(path, overrides={"model": f"scripted:{script}", **shipped_offline(path)})
    assert prepare(config).warnings == []


@pytest.mark.parametrize("reward", ["tool_call_match", "exact_tool_match_reward"])
def test_a_call_list_reward_over_a_ground_truth_in_turns_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, reward: str
) -> None:
    # {"turns": [...]} was read as "no calls expected": on bank.yaml the run making exactly
    # the expected calls scored 0 and a run making none scored 1.
    config = str(ROOT / "configs" / "bank.yaml")
    code, _, err = run_cli(capsys, "run", config, "--set", f"rewards=[env_state_match, {reward}]",
                           "--output-dir", str(tmp_path / "runs"))  # fmt: skip
    assert code == 2 and not (tmp_path / "runs").exists()
    assert (
        f"{reward} compares one list of calls, but 2 row(s) have a ground truth in turns: "
        "bank-1, bank-2" in err
    )
    assert len(err.strip().splitlines()) == 1


def test_a_ground_truth_in_turns_never_inverts_a_call_list_reward() -> None:
    from agentloop.evals import exact_tool_match_reward, tool_call_match

    truth = {"turns": [{"tool_calls": [{"name": "balance", "arguments": {"account": "c"}}]}]}
    right = [{"role": "assistant", "content": None, "tool_calls": [{"id": "1", "type": "function",
              "function": {"name": "balance", "arguments": '{"account": "c"}'}}]}]  # fmt: skip
    none = [{"role": "assistant", "content": "done"}]
    for reward in (tool_call_match, exact_tool_match_reward):
        for messages in (right, none):
            result = reward(messages, truth)
            assert result.score == 0.0 and "turns" in result.reason, (reward, result.reason)
