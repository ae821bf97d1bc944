"""Replaying a run under AgentDojo's ``tool_filter``: the filter's request offers every tool
with ``tool_choice`` "none" and later ones bind the kept tools; replay checks each against
the recording (the filter step's ``kept_tools``), natively and through an agent of your own,
and still refuses a changed config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from agentloop.benchmarks.agentdojo._rows import agentdojo_rows
from tests.support.harness import ROOT, ask, bench_module, call, read_results, run_once, write_json

SOURCE = "banking?attack=none&defense=tool_filter"
UTILITY = "agentloop.benchmarks:agentdojo_utility"


def _script() -> tuple[str, list[Any]]:
    row = next(r for r in agentdojo_rows(SOURCE) if r["id"] == "user_task_3")
    task = bench_module("agentdojo_cases").canonical(row)
    needed = sorted({c["function"]["name"] for r in task[:-1] for c in r["tool_calls"]})
    named = "I need " + ", ".join(needed)  # the filter's reply: not get_balance
    return named, [named, ask(call("b", "get_balance", {})), *task]


def _config(where: Path, **fields: Any) -> Path:
    where.mkdir(exist_ok=True)
    raw = yaml.safe_load((ROOT / "configs" / "agentdojo" / "banking.yaml").read_text())
    raw.update(model_options={}, dataset=f"agentdojo:{SOURCE}", output_dir=str(where / "runs"),
               sample_ids=["user_task_3"], **fields)  # fmt: skip
    path = where / "eval.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def _line(run_dir: Path) -> dict[str, Any]:
    (line,) = read_results(run_dir)
    return line


def _record(line: dict[str, Any]) -> Any:
    trajectory = line["trajectory"]
    return (
        [{k: v for k, v in m.items() if k != "langchain"} for m in trajectory["messages"]],
        [
            (s.get("kept_tools"), [c["status"] for c in s["tool_calls"]])
            for s in trajectory["steps"]
        ],
        {name: score["score"] for name, score in line["scores"].items()},
    )


def _recorded(where: Path, **fields: Any) -> tuple[Path, dict[str, Any]]:
    named, script = _script()
    where.mkdir(exist_ok=True)
    model = f"scripted:{write_json(where / 'agent.json', {'user_task_3': script})}"
    run_dir = run_once(_config(where, model=model, **fields))
    line = _line(run_dir)
    assert line["status"] == "ok", line.get("error")
    assert line["scores"][UTILITY]["score"] == 1.0
    steps = line["trajectory"]["steps"]
    kept = [n for n in line["request"]["tools"] if n in named]
    assert steps[0]["kept_tools"] == kept and "get_balance" not in kept
    assert all("kept_tools" not in s for s in steps[1:])
    return run_dir, line


def test_a_tool_filter_run_replays_to_the_same_record(tmp_path: Path) -> None:
    run_dir, line = _recorded(tmp_path / "native")
    replay = run_once(_config(tmp_path / "native"), "--model", f"replay:{run_dir}")
    again = _line(replay)
    assert again["status"] == "ok", again.get("error")
    assert _record(again) == _record(line)


@pytest.mark.parametrize(
    ("change", "differs"),
    [
        ({"tool_choice": "auto"}, "model call 2: tool_choice differs: recorded null, now 'auto'"),
        ({"parallel_tool_calls": False}, "model call 1: parallel_tool_calls differs"),
    ],
)
def test_a_changed_config_is_still_refused(
    tmp_path: Path, change: dict[str, Any], differs: str
) -> None:
    run_dir, _ = _recorded(tmp_path / "native")
    config = _config(tmp_path / "changed", **change)
    line = _line(run_once(config, "--model", f"replay:{run_dir}", code=1))
    assert line["status"] == "error"
    assert differs in line["error"], line["error"]


AGENTS_PY = """
import warnings


def react(model, tools):
    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, tools)
"""


def test_an_own_agents_tool_filter_run_replays_too(tmp_path: Path) -> None:
    pytest.importorskip("langgraph")
    (tmp_path / "agents.py").write_text(AGENTS_PY)
    agent = f"{tmp_path / 'agents.py'}:react"
    _, script = _script()
    del script[1]  # LangGraph's ToolNode answers a tool it was not given itself: not asked
    where = tmp_path / "own"
    where.mkdir()
    model = f"scripted:{write_json(where / 'agent.json', {'user_task_3': script})}"
    run_dir = run_once(_config(where, model=model, agent=agent))
    line = _line(run_dir)
    assert line["status"] == "ok", line.get("error")
    assert line["trajectory"]["steps"][0]["kept_tools"]
    again = _line(run_once(_config(where, agent=agent), "--model", f"replay:{run_dir}"))
    assert again["status"] == "ok", again.get("error")
    assert _record(again) == _record(line)
