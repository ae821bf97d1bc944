"""An agent of your own with a simulated user (config ``agent:`` with ``user:``): one agent
call per user turn, recorded and scored as the native conversation is (τ²-bench offline)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli import main
from tests.support.docs import block_with

ROOT = Path(__file__).resolve().parents[3]
VERDICT = "agentloop.benchmarks:tau2_verdict"

AGENTS_PY = '''
import warnings

from langgraph.warnings import LangGraphDeprecatedSinceV10


def react(model, tools):
    """LangGraph's prebuilt ReAct agent over agentloop's model and tools."""
    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, tools)


def hand_loop(model, tools):
    """A plain async callable with a loop of its own; it sees each call's conversation."""
    by_name = {t.name: t for t in tools}
    bound = model.bind_tools(tools)
    seen = []

    async def agent(messages):
        seen.append(len(messages))
        assert seen == sorted(seen), "each call continues the conversation"
        messages = list(messages)
        while True:
            reply = await bound.ainvoke(messages)
            messages.append(reply)
            if not reply.tool_calls:
                return messages
            for call in reply.tool_calls:
                messages.append(await by_name[call["name"]].ainvoke(
                    {**call, "type": "tool_call"}))

    return agent


def second_call_fails(model, tools):
    """Answers the first user message as hand_loop does, then falls over."""
    answer = hand_loop(model, tools)
    calls = []

    async def agent(messages):
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("the agent fell over")
        return await answer(messages)

    return agent


def second_call_hangs(model, tools):
    """Answers the first user message as hand_loop does, then waits for ever."""
    import asyncio

    answer = hand_loop(model, tools)
    calls = []

    async def agent(messages):
        calls.append(1)
        if len(calls) > 1:
            await asyncio.Event().wait()
        return await answer(messages)

    return agent
'''


SCRIPTS = ROOT / "configs/scripts"


def _run(
    tmp_path: Path, name: str, *extra: str, scripts: Path = SCRIPTS
) -> dict[str, dict[str, Any]]:
    out = tmp_path / name
    code = main([
        "run", str(ROOT / "configs/tau2/mock.yaml"),
        "--model", f"scripted:{scripts / 'tau2_mock.json'}",
        "--set", f"user.model=scripted:{scripts / 'tau2_mock_user.json'}",
        "--set", "epochs=1", "--no-preflight", "--output-dir", str(out), *extra,
    ])  # fmt: skip
    assert code == 0
    (run,) = out.iterdir()
    lines = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    return {line["id"]: line for line in lines}


def _wire(line: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """A stored conversation without LangChain's per-run message ids."""
    return [{k: v for k, v in m.items() if k != "langchain"} for m in line["trajectory"][key]]


@pytest.fixture(scope="module")
def agents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("agents") / "agents.py"
    path.write_text(AGENTS_PY)
    return path


@pytest.fixture
def asks_first(tmp_path: Path) -> Path:
    """The offline scripts with create_task_1 in three user turns: the agent asks which user
    before it creates the task."""
    folder = tmp_path / "scripts"
    folder.mkdir()
    agent = json.loads((SCRIPTS / "tau2_mock.json").read_text())
    user = json.loads((SCRIPTS / "tau2_mock_user.json").read_text())
    agent["create_task_1"].insert(0, "For which user?")
    user["create_task_1"][0:1] = ["Hi, please create a task called 'Important Meeting'.", "user_1."]
    (folder / "tau2_mock.json").write_text(json.dumps(agent))
    (folder / "tau2_mock_user.json").write_text(json.dumps(user))
    return folder


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return _run(tmp_path_factory.mktemp("native"), "runs")


@pytest.mark.parametrize("factory", ["react", "hand_loop"])
def test_every_mock_task_scores_and_records_as_the_native_conversation(
    tmp_path: Path, agents: Path, native: dict[str, dict[str, Any]], factory: str
) -> None:
    own = _run(tmp_path, "runs", "--set", f"agent={agents}:{factory}")
    assert own.keys() == native.keys() and len(own) == 10
    for key, line in own.items():
        theirs = native[key]
        assert line["status"] == theirs["status"] == "ok", key
        assert line["scores"] == theirs["scores"], key
        for part in ("messages", "user_messages"):
            assert _wire(line, part) == _wire(theirs, part), (key, part)
        for part in ("turns", "stop_reason", "stop_signal", "rounds", "tool_calls_by_status"):
            assert line["trajectory"][part] == theirs["trajectory"][part], (key, part)
        assert line["agent_notes"] == []
    passed = [k for k, line in own.items() if line["scores"][VERDICT]["score"] == 1.0]
    assert len(passed) == 8  # the offline recipe's figure (configs/tau2/mock.yaml)


@pytest.mark.parametrize("factory", ["react", "hand_loop"])
def test_each_user_turn_is_one_agent_call_on_the_conversation_so_far(
    tmp_path: Path, agents: Path, asks_first: Path, factory: str
) -> None:
    extra = ("--limit", "1", "--set", f"agent={agents}:{factory}")
    native = _run(tmp_path, "native", "--limit", "1", scripts=asks_first)["create_task_1"]
    own = _run(tmp_path, "own", *extra, scripts=asks_first)["create_task_1"]
    stops = [turn["stop_reason"] for turn in own["trajectory"]["turns"]]
    assert stops == ["final", "final", "user_stop"]
    assert own["trajectory"]["turns"] == native["trajectory"]["turns"]
    for part in ("messages", "user_messages"):
        assert _wire(own, part) == _wire(native, part)
    assert own["scores"] == native["scores"]
    assert own["scores"][VERDICT]["score"] == 1.0


def test_a_command_agent_runs_once_per_user_turn_and_scores_as_the_native_run(
    tmp_path: Path, asks_first: Path, native: dict[str, dict[str, Any]]
) -> None:
    pytest.importorskip("mcp")
    pytest.importorskip("openai")
    script = tmp_path / "agent.py"  # own-agent.md's example: openai SDK and MCP client
    script.write_text(block_with("AGENTLOOP_MODEL_BASE_URL"))
    command = f"agent.command=[{sys.executable}, {script}]"
    own = _run(tmp_path, "all", "--set", command)
    for key, line in own.items():
        assert line["status"] == "ok", (key, line.get("error"))
        assert line["scores"] == native[key]["scores"], key
        for part in ("messages", "user_messages"):
            assert _wire(line, part) == _wire(native[key], part), (key, part)
        assert line["trajectory"]["turns"] == native[key]["trajectory"]["turns"], key
    three = _run(tmp_path, "three", "--limit", "1", "--set", command, scripts=asks_first)
    turns = three["create_task_1"]["trajectory"]["turns"]
    assert [t["stop_reason"] for t in turns] == ["final", "final", "user_stop"]
    assert three["create_task_1"]["scores"][VERDICT]["score"] == 1.0


def test_the_step_budget_ends_the_conversation_as_it_ends_the_native_one(
    tmp_path: Path, agents: Path
) -> None:
    # 3: the limit falls inside the agent's call (after its tool results, before its answer),
    # 4: when the call returns.
    for steps in (3, 4):
        limit = ("--set", f"user.max_steps={steps}", "--limit", "3")
        native = _run(tmp_path, f"native{steps}", *limit)
        own = _run(tmp_path, f"own{steps}", *limit, "--set", f"agent={agents}:react")
        for key, line in own.items():
            assert line["trajectory"]["stop_reason"] == "max_steps", key
            assert _wire(line, "messages") == _wire(native[key], "messages"), key
            assert line["trajectory"]["turns"] == native[key]["trajectory"]["turns"], key
            assert line["scores"] == native[key]["scores"], key
        said = _wire(own["create_task_1"], "messages")
        assert said[-1]["role"] == ("tool" if steps == 3 else "assistant")


def test_an_agent_that_falls_over_mid_conversation_errors_its_sample_only(
    tmp_path: Path, agents: Path, asks_first: Path
) -> None:
    extra = ("--limit", "2", "--set", f"agent={agents}:second_call_fails")
    own = _run(tmp_path, "runs", *extra, scripts=asks_first)
    line = own["create_task_1"]  # asked twice: falls over on the second
    assert line["status"] == "error"
    assert line["error_kind"] == "agent"
    assert "RuntimeError: the agent fell over" in line["error"]
    trajectory = line["trajectory"]
    assert [t["stop_reason"] for t in trajectory["turns"]] == ["final", "error"]
    said = [m["content"] for m in trajectory["user_messages"] if m["role"] == "assistant"]
    assert said == ["Hi, please create a task called 'Important Meeting'.", "user_1."]
    assert own["create_task_1_with_env_assertions"]["status"] == "ok"  # answered in one call


def test_the_time_limit_stops_a_conversation_in_the_agents_call(
    tmp_path: Path, agents: Path, asks_first: Path
) -> None:
    extra = ("--limit", "1", "--set", "time_limit=1", "--set", f"agent={agents}:second_call_hangs")
    line = _run(tmp_path, "runs", *extra, scripts=asks_first)["create_task_1"]
    assert line["status"] == "ok"
    trajectory = line["trajectory"]
    assert trajectory["stop_reason"] == "time_limit"
    assert [t["stop_reason"] for t in trajectory["turns"]] == ["final", "time_limit"]
    assert [m["role"] for m in trajectory["messages"]][-2:] == ["assistant", "user"]
    assert line["scores"][VERDICT]["score"] == 0.0  # τ²-bench: ended by neither side
