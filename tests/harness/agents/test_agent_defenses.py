"""AgentDojo's defenses with an agent of your own: ``tool_filter`` asked before the agent is
made (the same record and scores as the loop, in process and in another process);
``repeat_user_prompt`` refused, naming the defense."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("mcp")
pytest.importorskip("openai")

from agentloop.benchmarks.agentdojo._rows import agentdojo_rows
from tests.support.docs import block_with
from tests.support.harness import ROOT, ask, bench_module, call, read_results, run_once, write_json

AGENT_PY = block_with("AGENTLOOP_MODEL_BASE_URL")
AGENTS_PY = """
import warnings


def react(model, tools):
    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, tools)
"""
UTILITY = "agentloop.benchmarks:agentdojo_utility"


def _lines(
    where: Path, source: str, scripts: dict[str, Any], code: int = 0, **config: Any
) -> dict[str, Any]:
    where.mkdir()
    raw = yaml.safe_load((ROOT / "configs" / "agentdojo" / "banking.yaml").read_text())
    raw.update(
        model=f"scripted:{write_json(where / 'agent.json', scripts)}",
        model_options={},
        dataset=f"agentdojo:{source}",
        output_dir=str(where / "runs"),
        sample_ids=sorted(scripts),
        **config,
    )
    path = where / "eval.yaml"
    path.write_text(yaml.safe_dump(raw))
    return {line["id"]: line for line in read_results(run_once(path, code=code))}


def _record(line: dict[str, Any]) -> Any:
    trajectory = line["trajectory"]
    return (
        [{k: v for k, v in m.items() if k != "langchain"} for m in trajectory["messages"]],
        [[(c["name"], c["status"]) for c in s["tool_calls"]] for s in trajectory["steps"]],
        line["scores"],
    )


def test_the_tool_filter_runs_before_the_agent_as_in_the_loop(tmp_path: Path) -> None:
    source = "banking?attack=none&defense=tool_filter"
    row = next(r for r in agentdojo_rows(source) if r["id"] == "user_task_3")
    task = bench_module("agentdojo_cases").canonical(row)
    needed = sorted({c["function"]["name"] for r in task[:-1] for c in r["tool_calls"]})
    named = "I need " + ", ".join(needed)  # the filter's reply: not get_balance
    (tmp_path / "agents.py").write_text(AGENTS_PY)
    (tmp_path / "agent.py").write_text(AGENT_PY)
    doors = {
        # LangGraph's ToolNode answers a tool it was not given in its own words: not asked
        "factory": ([named, *task], f"{tmp_path / 'agents.py'}:react"),
        # over MCP the call reaches agentloop, which answers as AgentDojo does
        "command": (
            [named, ask(call("b", "get_balance", {})), *task],
            {"command": [sys.executable, str(tmp_path / "agent.py")]},
        ),
    }
    for door, (script, agent) in doors.items():
        native = _lines(tmp_path / f"{door}-native", source, {"user_task_3": script})
        own = _lines(tmp_path / door, source, {"user_task_3": script}, agent=agent)
        line = own["user_task_3"]
        assert line["status"] == "ok", line.get("error")
        assert _record(line) == _record(native["user_task_3"]), door
        assert line["scores"][UTILITY]["score"] == 1.0
        messages = line["trajectory"]["messages"]
        assert messages[3]["content"] == named  # the filter's reply, then the agent's turn
        assert line["request"]["tools"] == native["user_task_3"]["request"]["tools"]
    answers = [m["content"] for m in messages if m.get("tool_call_id") == "b"]
    assert answers == ["Invalid tool get_balance provided."]


def test_repeat_user_prompt_is_refused_naming_the_defense(tmp_path: Path) -> None:
    source = "banking?attack=none&defense=repeat_user_prompt"
    row = next(r for r in agentdojo_rows(source) if r["id"] == "user_task_3")
    script = bench_module("agentdojo_cases").canonical(row)
    (tmp_path / "agents.py").write_text(AGENTS_PY)
    lines = _lines(
        tmp_path / "run",
        source,
        {"user_task_3": script},
        agent=f"{tmp_path / 'agents.py'}:react",
        code=1,
    )
    line = lines["user_task_3"]
    assert line["error_kind"] == "dataset"
    assert "repeat_user_prompt" in line["error"]
    assert "cannot run it faithfully" in line["error"]
