"""An agent of your own (config ``agent:``) on the run's model and tools, scored like the loop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from agentloop.engine import run_agent, run_own_agent
from agentloop.errors import AgentloopError, ConfigError
from agentloop.harness import load_config
from agentloop.testing import ScriptedChatModel
from tests.support.harness import (
    add_setup,
    ask,
    call,
    read_results,
    run_once,
    tools_file,
    write_config,
    write_json,
)

AGENTS_PY = '''
import warnings

from langchain_core.messages import AIMessage
from langgraph.warnings import LangGraphDeprecatedSinceV10


def react(model, tools, prompt=None):
    """LangGraph's prebuilt ReAct agent over agentloop's model and tools."""
    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, tools, prompt=prompt)


def hand_loop(model, tools):
    """A plain async callable: its own loop, calling tools with their arguments alone."""
    by_name = {t.name: t for t in tools}
    bound = model.bind_tools(tools)

    async def agent(messages):
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


def broken(model, tools):
    """Falls over on the question about 1 + 1, after asking its model; else answers."""
    async def agent(messages):
        reply = await model.ainvoke(messages)
        if "1 + 1" in messages[-1].content:
            raise RuntimeError("the agent fell over")
        return [*messages, reply]

    return agent


def rewriter(model, tools):
    """Answers with its own text instead of the model's."""
    async def agent(messages):
        reply = await model.ainvoke(messages)
        return [*messages, AIMessage(content=reply.content + " (checked)")]

    return agent


NOT_A_FUNCTION = 3
'''


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    path = tmp_path / "agents.py"
    path.write_text(AGENTS_PY)
    return path


def _lines(run_dir: Path) -> dict[str, dict[str, Any]]:
    return {line["id"]: line for line in read_results(run_dir)}


def _wire(line: dict[str, Any]) -> list[dict[str, Any]]:
    """The stored conversation without LangChain's per-run message ids."""
    return [
        {k: v for k, v in m.items() if k != "langchain"} for m in line["trajectory"]["messages"]
    ]


@pytest.mark.parametrize("factory", ["react", "hand_loop"])
def test_an_agent_scores_and_records_what_the_loop_does(
    tmp_path: Path, agents: Path, factory: str
) -> None:
    native = _lines(run_once(add_setup(tmp_path, 4)))
    config = add_setup(tmp_path, 4, agent=f"{agents}:{factory}")
    own = _lines(run_once(config))
    assert own.keys() == native.keys()
    for key, line in own.items():
        assert line["status"] == "ok"
        assert line["scores"] == native[key]["scores"]
        assert line["scores"]["qa_f1_reward"]["score"] == 1.0
        assert _wire(line) == _wire(native[key])
        assert line["rounds"] == native[key]["rounds"] == 1
        assert line["tool_calls_by_status"] == {"ok": 1}
        assert line["agent_notes"] == []


def test_a_relative_factory_path_is_read_from_the_config_folder(
    tmp_path: Path, agents: Path
) -> None:
    config = add_setup(tmp_path, 1, agent={"factory": "./agents.py:react", "args": {}})
    assert load_config(config).agent.factory == f"{agents}:react"


def test_the_round_cap_stops_an_agent_as_it_stops_the_loop(tmp_path: Path, agents: Path) -> None:
    script = {"*": [ask(call(f"c{k}", "add", {"a": k, "b": 1})) for k in range(4)] + ["done"]}
    config = add_setup(tmp_path, 2, max_rounds=2)
    write_json(tmp_path / "script.json", script)
    native = _lines(run_once(config))
    config = add_setup(tmp_path, 2, max_rounds=2, agent=f"{agents}:react")
    write_json(tmp_path / "script.json", script)
    own = _lines(run_once(config))
    for key, line in own.items():
        assert line["stop_reason"] == native[key]["stop_reason"] == "max_rounds"
        assert _wire(line) == _wire(native[key])
        assert line["tool_calls_by_status"] == {"ok": 2, "round_limit": 1}
        assert "limit of 2 tool rounds" in _wire(line)[-1]["content"]


def test_a_raising_agent_errors_its_sample_only(tmp_path: Path, agents: Path) -> None:
    script = {f"s{i:04d}": [str(i + 1)] for i in range(3)}
    config = add_setup(tmp_path, 3, agent=f"{agents}:broken")
    write_json(tmp_path / "script.json", script)
    lines = _lines(run_once(config))
    assert [lines[k]["status"] for k in sorted(lines)] == ["ok", "error", "ok"]
    assert lines["s0000"]["scores"]["qa_f1_reward"]["score"] == 1.0
    for line in [lines["s0001"]]:
        assert line["error_kind"] == "agent"
        assert line["error"] == "RuntimeError: the agent fell over"
        assert line["stop_reason"] == "error"
        assert len(line["trajectory"]["steps"]) == 1  # the model call it made is recorded


def test_an_answer_the_model_did_not_give_is_a_note(tmp_path: Path, agents: Path) -> None:
    config = add_setup(tmp_path, 1, agent=f"{agents}:rewriter")
    write_json(tmp_path / "script.json", {"s0000": ["1"]})
    (line,) = _lines(run_once(config)).values()
    assert line["trajectory"]["final_answer"] == "1"  # the record is what the model said
    assert line["agent_notes"] == [
        "the agent's message 1 (assistant) is not the one agentloop recorded (assistant); "
        "the record is scored"
    ]


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("./nowhere.py:react", "agent.factory: agent factory file not found: "),
        ("./agents.py:nothing", "agent.factory: "),
        ("./agents.py:NOT_A_FUNCTION", "agent.factory: ./agents.py:NOT_A_FUNCTION is a int"),
        ({"factory": "./agents.py:react", "args": {"colour": 1}}, "cannot be called as"),
    ],
)
def test_a_bad_factory_is_a_one_line_error_before_the_run(
    tmp_path: Path, agents: Path, agent: Any, message: str
) -> None:
    from agentloop.harness.run._runner import run_eval_sync

    config = add_setup(tmp_path, 1, agent=agent)
    with pytest.raises(AgentloopError) as caught:
        run_eval_sync(load_config(config), config_path=str(config))
    text = str(caught.value).replace(str(tmp_path) + "/", "./")
    assert message in text
    assert "\n" not in text
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"agent": "x"}, "eval.yaml: agent.factory: expected an import path"),
    ],
)
def test_agent_config_mistakes(tmp_path: Path, extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(add_setup(tmp_path, 1, **extra))


def test_the_token_limit_ends_an_agent_as_it_ends_the_loop(tmp_path: Path) -> None:
    from agentloop.engine import run_sync
    from agentloop.engine._tool_loading import import_object

    add = import_object(f"{tools_file(tmp_path)}:add")
    (tmp_path / "agents.py").write_text(AGENTS_PY)
    react = import_object(f"{tmp_path / 'agents.py'}:react", "agent factory")

    def script() -> ScriptedChatModel:
        reply = AIMessage(
            content="",
            tool_calls=[{"id": "c1", "name": "add", "args": {"a": 1, "b": 2}}],
            usage_metadata={"input_tokens": 7, "output_tokens": 3, "total_tokens": 10},
        )
        return ScriptedChatModel([reply, reply, "3"])

    native = run_sync(lambda: run_agent(script(), [add], "1+2?", token_limit=5), "test")
    own = run_sync(lambda: run_own_agent(react, script(), [add], "1+2?", token_limit=5), "test")
    assert own.trajectory.stop_reason == native.stop_reason == "token_limit"
    assert own.trajectory.to_openai_messages() == native.to_openai_messages()
    assert own.trajectory.usage == native.usage
    assert own.trajectory.usage.total_tokens == 10


def test_an_agent_works_on_the_environment_of_its_own_sample(tmp_path: Path, agents: Path) -> None:
    gold = [{"name": "transfer", "arguments": {"source": "alice", "target": "bob", "amount": 30}}]
    rows = [
        {
            "id": f"b{k}",
            "messages": [{"role": "user", "content": "Move 30 from alice to bob."}],
            "environment": {"accounts": {"alice": 100, "bob": 20}},
            "ground_truth": {"turns": [{"tool_calls": gold}]},
        }
        for k in range(2)
    ]
    transfer = call("c1", "transfer", {"source": "alice", "target": "bob", "amount": 30})
    script = write_json(tmp_path / "script.json", {"*": [ask(transfer), "Done."]})
    data = tmp_path / "bank.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fields: dict[str, Any] = {
        "model": f"scripted:{script}",
        "environment": "agentloop.tools.bank:make_bank",
        "dataset": str(data),
        "rewards": ["env_state_match", "env_response_match"],
        "output_dir": str(tmp_path / "runs"),
        "epochs": 2,
    }
    native = _lines(run_once(write_config(tmp_path / "eval.yaml", **fields)))
    fields["agent"] = f"{agents}:react"
    own = read_results(run_once(write_config(tmp_path / "eval.yaml", **fields)))
    assert len(own) == 4
    for line in own:  # each (sample, epoch) starts from its row's accounts
        assert line["status"] == "ok", line["error"]
        assert line["scores"] == native[line["id"]]["scores"]
        assert {s["score"] for s in line["scores"].values()} == {1.0}
        assert _wire(line) == _wire(native[line["id"]])
