"""Rows with turns through an agent of your own: a LangGraph graph in process and the page's
command agent (openai SDK + MCP client) in another process, one agent call per turn, give
the native loop's record, turn records and scores."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("openai")

from tests.harness.run.test_multiturn import BANK, bank_row, bank_script
from tests.support.docs import block_with
from tests.support.harness import read_results, run_once, write_config, write_json, write_jsonl

AGENT_PY = block_with("AGENTLOOP_MODEL_BASE_URL")

AGENTS_PY = """
import warnings


def react(model, tools):
    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, tools)
"""


def _run(tmp: Path, name: str, script: list[Any], **config: Any) -> dict[str, Any]:
    where = tmp / name
    where.mkdir()
    rows = [bank_row(0), bank_row(1)]
    fields: dict[str, Any] = {
        "model": f"scripted:{write_json(where / 'script.json', script)}",
        "environment": BANK,
        "dataset": str(write_jsonl(where / "data.jsonl", rows)),
        "rewards": ["env_state_match", "env_response_match"],
        "output_dir": str(where / "runs"),
        **config,
    }
    run_dir = run_once(write_config(where / "eval.yaml", **fields))
    return {line["id"]: line for line in read_results(run_dir)}


def _record(line: dict[str, Any]) -> Any:
    trajectory = line["trajectory"]
    return (
        [{k: v for k, v in m.items() if k != "langchain"} for m in trajectory["messages"]],
        [
            [(c["name"], c["args"], c["status"]) for c in s["tool_calls"]]
            for s in trajectory["steps"]
        ],
        trajectory["turns"],
        line["scores"],
        line["stop_reason"],
    )


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    path = tmp_path / "agents.py"
    path.write_text(AGENTS_PY)
    return path


def test_turns_through_each_door_give_the_native_record(tmp_path: Path, agents: Path) -> None:
    native = _run(tmp_path, "native", bank_script())
    doors = {
        "factory": {"factory": f"{agents}:react"},
        "command": {"command": [sys.executable, str(tmp_path / "agent.py")]},
    }
    (tmp_path / "agent.py").write_text(AGENT_PY)
    for door, agent in doors.items():
        lines = _run(tmp_path, door, bank_script(), agent=agent)
        assert lines.keys() == native.keys()
        for key, line in lines.items():
            assert line["status"] == "ok", (door, line.get("error"))
            assert _record(line) == _record(native[key]), door
            assert line["passed"] == {"env_state_match": True, "env_response_match": True}
            assert [t["tools_added"] for t in line["trajectory"]["turns"]] == [[], ["deposit"]]
            assert line["agent_notes"] == []


def test_a_wrong_call_in_a_later_turn_fails_that_turn_as_natively(
    tmp_path: Path, agents: Path
) -> None:
    native = _run(tmp_path, "native", bank_script(amount=6))
    own = _run(tmp_path, "own", bank_script(amount=6), agent={"factory": f"{agents}:react"})
    for key, line in own.items():
        assert _record(line) == _record(native[key])
        reason = line["scores"]["env_state_match"]["reason"]
        assert reason.startswith("turn 2: accounts.bob differs: expected")
