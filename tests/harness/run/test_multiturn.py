"""Multi-turn rows through ``agentloop run``: turns, tools held back until a turn, state-
and response-based verdicts, score mode on a recorded conversation, row checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from tests.support.harness import (
    ROOT,
    ask,
    call,
    only_run_dir,
    read_results,
    write_config,
    write_json,
    write_jsonl,
)

BANK = "agentloop.tools.bank:make_bank"


def gt(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def bank_row(i: int, **extra: Any) -> dict[str, Any]:
    """Turn 1: move 10 from alice to bob; turn 2 adds deposit and asks for 5 into bob."""
    return {
        "id": f"m{i}",
        "messages": [{"role": "user", "content": f"Row {i}: move 10 from alice to bob."}],
        "turns": [
            {
                "messages": [{"role": "user", "content": "Now deposit 5 into bob."}],
                "tools": ["deposit"],
            },
        ],
        "environment": {"accounts": {"alice": 100 + i, "bob": 0}},
        "ground_truth": {
            "turns": [
                {"tool_calls": [gt("transfer", source="alice", target="bob", amount=10)]},
                {"tool_calls": [gt("deposit", account="bob", amount=5)]},
            ]
        },
        **extra,
    }


def bank_script(amount: int = 5) -> list[Any]:
    return [
        ask(call("t1", "transfer", {"source": "alice", "target": "bob", "amount": 10})),
        "Moved.",
        ask(call("t2", "deposit", {"account": "bob", "amount": amount})),
        "Deposited.",
    ]


def setup(tmp: Path, rows: list[Any], script: Any = None, **config: Any) -> Path:
    fields: dict[str, Any] = {
        "model": f"scripted:{write_json(tmp / 'script.json', script or bank_script())}",
        "environment": BANK,
        "dataset": str(write_jsonl(tmp / "data.jsonl", rows)),
        "rewards": ["env_state_match", "env_response_match"],
        "output_dir": str(tmp / "runs"),
    }
    fields.update(config)
    return write_config(tmp / "eval.yaml", **fields)


def test_the_right_calls_pass_and_a_wrong_amount_fails_naming_turn_and_attribute(
    tmp_path: Path,
) -> None:
    config = setup(tmp_path, [bank_row(0)])
    assert main(["run", str(config)]) == 0
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert line["passed"] == {"env_state_match": True, "env_response_match": True}
    turns = line["trajectory"]["turns"]
    assert [t["tools_added"] for t in turns] == [[], ["deposit"]]
    assert turns[1]["state"]["accounts"] == {"alice": 90, "bob": 15}
    # deposit was held back: turn 1 bound three tools, turn 2 four
    assert line["request"]["tools"] == ["balance", "withdraw", "transfer"]
    assert line["request"]["turn_tools"][0]["tools"][-1] == "deposit"

    wrong = tmp_path / "wrong"
    wrong.mkdir()
    config = setup(wrong, [bank_row(0)], bank_script(amount=6))
    assert main(["run", str(config)]) == 0
    (line,) = read_results(only_run_dir(wrong / "runs"))
    state = line["scores"]["env_state_match"]
    assert state["reason"] == "turn 2: accounts.bob differs: expected 15, got 16"
    response = line["scores"]["env_response_match"]
    assert response["reason"].startswith("turn 2: expected result '15' is not among")
    assert line["passed"] == {"env_state_match": False, "env_response_match": False}


def test_a_turn_tool_nothing_provides_errors_the_sample(tmp_path: Path) -> None:
    row = bank_row(0)
    row["turns"][0]["tools"] = ["mint"]
    config = setup(tmp_path, [row])
    assert main(["run", str(config)]) == 1  # its only result errored
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert line["status"] == "error"
    assert line["error"] == (
        "ToolLoadError: turns[0].tools: no tool named 'mint' "
        "(tools: balance, deposit, transfer, withdraw)"
    )


def test_row_problems_are_reported_by_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad_message = bank_row(0)
    bad_message["turns"][0]["messages"] = [{"role": "robot", "content": "hi"}]
    short_truth = bank_row(1)
    short_truth["ground_truth"]["turns"].pop()
    bad_tool = bank_row(2)
    bad_tool["turns"][0]["tools"] = [7]
    empty = bank_row(3, turns=[{"messages": []}])
    config = setup(tmp_path, [bad_message, short_truth, bad_tool, empty])
    assert main(["run", str(config)]) == 2
    err = capsys.readouterr().err
    data = tmp_path / "data.jsonl"
    assert f"{data}:1: turns[0].messages[0]: role must be one of" in err
    assert f"{data}:2: ground_truth.turns has 1 entries; the row has 2 turn(s)" in err
    assert f"{data}:3: turns[0].tools[0]: expected a tool name or" in err
    assert f"{data}:4: turns[0]: a turn needs messages or tools" in err


def _recorded(row: dict[str, Any], amount: int) -> dict[str, Any]:
    """The row with each turn's recorded replies after its user message."""
    transfer = call("t1", "transfer", {"source": "alice", "target": "bob", "amount": 10})
    deposit = call("t2", "deposit", {"account": "bob", "amount": amount})
    row = json.loads(json.dumps(row))
    row["messages"] += [ask(transfer), {"role": "tool", "tool_call_id": "t1", "content": "moved"},
                        {"role": "assistant", "content": "Moved."}]  # fmt: skip
    row["turns"][0]["messages"] += [
        ask(deposit), {"role": "tool", "tool_call_id": "t2", "content": str(amount + 10)},
        {"role": "assistant", "content": "Deposited."},
    ]  # fmt: skip
    return row


def test_score_mode_reads_a_recorded_conversation_turn_by_turn(tmp_path: Path) -> None:
    rows = [_recorded(bank_row(0), 5), _recorded(bank_row(1), 7)]
    rows[1]["id"] = "m1"
    config = setup(tmp_path, rows, mode="score", model=None)
    assert main(["run", str(config)]) == 0
    lines = {r["id"]: r for r in read_results(only_run_dir(tmp_path / "runs"))}
    good, bad = lines["m0"], lines["m1"]
    turns = good["trajectory"]["turns"]
    assert [(t["message_start"], t["step_start"]) for t in turns] == [(0, 0), (4, 2)]
    # States come from running the recorded calls again in a fresh environment.
    assert turns[1]["state"]["accounts"] == {"alice": 90, "bob": 15}
    assert good["passed"]["env_state_match"] is True
    assert bad["scores"]["env_state_match"]["reason"] == (
        "turn 2: accounts.bob differs: expected 15, got 17"
    )


def test_generate_mode_strips_each_turns_recorded_replies(tmp_path: Path) -> None:
    row = _recorded(bank_row(0), 6)  # the recording deposited 6; the model now deposits 5
    config = setup(tmp_path, [row])
    assert main(["run", str(config)]) == 0
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    roles = [m["role"] for m in line["trajectory"]["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant"] * 2
    assert line["passed"]["env_state_match"] is True


def schema(name: str, **properties: str) -> dict[str, Any]:
    params = {k: {"type": v} for k, v in properties.items()}
    return {"type": "function", "function": {"name": name, "description": name,
            "parameters": {"type": "object", "properties": params}}}  # fmt: skip


def test_row_schemas_bind_their_implementations_and_turns_add_more(tmp_path: Path) -> None:
    row = bank_row(0, tools=[schema("transfer", source="string", target="string",
                                    amount="integer")])  # fmt: skip
    # turn 2 adds deposit by name (the environment implements it) and audit by schema only
    row["turns"][0]["tools"] = ["deposit", schema("audit", account="string")]
    script = bank_script()
    script[2] = ask(call("t2", "deposit", {"account": "bob", "amount": 5}),
                    call("t3", "audit", {"account": "bob"}))  # fmt: skip
    config = setup(tmp_path, [row], script)
    assert main(["run", str(config)]) == 0
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert line["request"]["tools"] == ["transfer"]
    assert line["request"]["turn_tools"][0]["tools"] == ["transfer", "deposit", "audit"]
    calls = [c for s in line["trajectory"]["steps"] for c in s["tool_calls"]]
    assert [(c["name"], c["status"]) for c in calls] == [
        ("transfer", "ok"), ("deposit", "ok"), ("audit", "no_implementation"),
    ]  # fmt: skip
    assert line["passed"]["env_state_match"] is True


def test_the_shipped_bank_example_scores_as_the_readme_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the config's paths are relative to the repository
    assert main(["run", "configs/bank.yaml", "--output-dir", str(tmp_path)]) == 0
    lines = {r["id"]: r["scores"] for r in read_results(only_run_dir(tmp_path))}
    reasons = {i: {k: (v["score"], v["reason"]) for k, v in s.items()} for i, s in lines.items()}
    assert reasons["bank-1"]["env_state_match"] == (
        1.0,
        "the state matches after each of 2 turn(s)",
    )
    assert reasons["bank-2"] == {
        "env_state_match": (0.0, "turn 2: accounts.carol differs: expected 55, got 90"),
        "env_response_match": (
            0.0, "turn 2: expected result '55' is not among the agent's results so far",
        ),
    }  # fmt: skip
    page = (ROOT / "docs" / "pages" / "multi-turn.md").read_text(encoding="utf-8")
    assert "turn 2: accounts.carol differs: expected 55, got 90" in page


def test_a_resume_refuses_an_environment_whose_code_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = tmp_path / "my_bank.py"
    bank.write_text((ROOT / "tools" / "bank.py").read_text(encoding="utf-8"), encoding="utf-8")
    factory = f"{bank}:make_bank"
    config = setup(tmp_path, [bank_row(0)], environment=factory)
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    header = json.loads((run_dir / "run.json").read_text())
    assert header["inputs"][f"environment {factory}"]["file"] == str(bank)
    bank.write_text(bank.read_text().replace("must be positive", "must be > 0"))
    capsys.readouterr()
    assert main(["run", "--resume", str(run_dir)]) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: cannot resume {run_dir}: changed since the run started: "
        f"environment {factory} (add --allow-changed to resume anyway)\n"
    )


def test_re_scoring_refuses_state_rewards_up_front_and_keeps_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [bank_row(0, answer="done")]
    config = setup(tmp_path, rows, rewards=["env_state_match", "qa_f1_reward"])
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    before = sorted(p.name for p in run_dir.iterdir())
    capsys.readouterr()
    assert main(["score", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "env_state_match need(s) the environment input" in err
    assert sorted(p.name for p in run_dir.iterdir()) == before  # nothing half-written
    assert main(["score", str(run_dir), "--rewards", "qa_f1_reward"]) == 0
