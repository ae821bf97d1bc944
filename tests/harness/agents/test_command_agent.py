"""An agent in another process (config ``agent: {command: [...]}``): a Python script using
the openai SDK against agentloop's model endpoint and the mcp SDK's client for the tools,
scored as the native loop; a crash, a hang or garbage fails its own sample only."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("openai")

from tests.support.docs import block_with
from tests.support.harness import (
    add_row,
    add_setup,
    ask,
    call,
    read_results,
    run_once,
    tools_file,
    write_json,
    write_jsonl,
)
from tests.support.openai_stub import StubResponse, StubServer, reply
from tests.support.openai_stub import call as stub_call

# The page's example agent: the openai SDK on the endpoint, the mcp SDK on the tools.
AGENT_PY = block_with("AGENTLOOP_MODEL_BASE_URL")

# Calls its tools over MCP without asking agentloop's model (its model is "elsewhere").
DIRECT_PY = r"""
import asyncio, json, os, re

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main():
    task = json.loads(os.environ["AGENTLOOP_TASK"])
    a, b = map(int, re.findall(r"\d+", task["messages"][-1]["content"])[:2])
    headers = {"Authorization": f"Bearer {os.environ['AGENTLOOP_TOKEN']}"}
    async with (
        httpx.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(os.environ["AGENTLOOP_MCP_URL"], http_client=http) as (r, w, _),
        ClientSession(r, w) as session,
    ):
        await session.initialize()
        result = await session.call_tool("add", {"a": a, "b": b})
        print(result.content[0].text)


asyncio.run(main())
"""

# Asks the model endpoint without the token, and with a wrong one; answers the statuses.
NO_TOKEN_PY = """
import os, httpx

url = os.environ["AGENTLOOP_MODEL_BASE_URL"] + "/chat/completions"
body = {"model": "any", "messages": [{"role": "user", "content": "hi"}]}
bare = httpx.post(url, json=body)
wrong = httpx.post(url, json=body, headers={"Authorization": "Bearer nope"})
import json, sys
assert json.load(sys.stdin) == json.loads(os.environ["AGENTLOOP_TASK"])
print(bare.status_code, wrong.status_code,
      os.environ["OPENAI_API_KEY"] == os.environ["AGENTLOOP_TOKEN"]
      == os.environ["ANTHROPIC_API_KEY"],
      os.environ.get("SECRET_OF_THE_USER"))
"""

# Misbehaves on one question only (the one about 2 + 1), else acts as AGENT_PY.
FLAKY_PY = r"""
import json, os, sys, time

task = json.loads(os.environ["AGENTLOOP_TASK"])
if "2 + 1" in task["messages"][-1]["content"]:
    mode = sys.argv[1]
    if mode == "crash":
        sys.stderr.write("Traceback: the agent fell over\n")
        sys.exit(3)
    if mode == "hang":
        sys.stderr.write("thinking...\n")
        sys.stderr.flush()
        time.sleep(600)
    if mode == "garbage":
        sys.stdout.buffer.write(b"\xff\xfe not text")
        sys.exit(0)
exec(open(sys.argv[2]).read())
"""


def _script(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _lines(run_dir: Path) -> dict[str, dict[str, Any]]:
    return {line["id"]: line for line in read_results(run_dir)}


def _wire(line: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in m.items() if k != "langchain"} for m in line["trajectory"]["messages"]
    ]


def test_a_script_agent_over_the_endpoint_and_mcp_scores_as_the_native_loop(
    tmp_path: Path,
) -> None:
    native = _lines(run_once(add_setup(tmp_path, 4)))
    agent = {"command": [sys.executable, _script(tmp_path, "agent.py", AGENT_PY)]}
    outside = _lines(run_once(add_setup(tmp_path, 4, agent=agent)))
    assert outside.keys() == native.keys()
    for key, line in outside.items():
        assert line["status"] == "ok", line.get("error")
        assert line["scores"] == native[key]["scores"]
        assert line["scores"]["qa_f1_reward"]["score"] == 1.0
        assert _wire(line) == _wire(native[key])
        assert line["rounds"] == native[key]["rounds"] == 1
        assert line["tool_calls_by_status"] == {"ok": 1}
        assert line["agent_notes"] == []
        steps = line["trajectory"]["steps"]
        assert [s["usage"] for s in steps] == [
            s["usage"] for s in native[key]["trajectory"]["steps"]
        ]


def test_calls_made_without_agentloops_model_are_recorded_and_scored(tmp_path: Path) -> None:
    agent = {"command": [sys.executable, _script(tmp_path, "direct.py", DIRECT_PY)]}
    lines = _lines(run_once(add_setup(tmp_path, 3, agent=agent)))
    for line in lines.values():
        assert line["status"] == "ok", line.get("error")
        assert line["tool_calls_by_status"] == {"ok": 1}
        assert line["scores"]["qa_f1_reward"]["score"] == 1.0
        steps = line["trajectory"]["steps"]
        assert [s["usage"] for s in steps] == [None, None]  # a call, then the answer
        assert [c["name"] for c in steps[0]["tool_calls"]] == ["add"]
        assert any("tokens and cost unknown" in note for note in line["agent_notes"])


def test_requests_without_the_token_are_refused_and_the_key_stays_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_OF_THE_USER", "sk-do-not-leak")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-key")
    agent = {"command": [sys.executable, _script(tmp_path, "bare.py", NO_TOKEN_PY)]}
    (line, *_) = _lines(run_once(add_setup(tmp_path, 1, agent=agent))).values()
    answer = line["trajectory"]["messages"][-1]["content"]
    assert answer == "401 401 True None"
    assert line["trajectory"]["steps"][-1]["usage"] is None


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("crash", "exited with code 3; stderr: Traceback: the agent fell over"),
        ("hang", "time_limit"),
        ("garbage", "stdout that is not UTF-8"),
    ],
)
def test_a_failing_command_fails_its_own_sample_only(tmp_path: Path, mode: str, says: str) -> None:
    agent_py = _script(tmp_path, "agent.py", AGENT_PY)
    flaky = _script(tmp_path, "flaky.py", FLAKY_PY)
    agent = {"command": [sys.executable, flaky, mode, agent_py]}
    # a limit the others keep well within while four Pythons start on two cores
    limit = {"time_limit": 20} if mode == "hang" else {}
    lines = _lines(run_once(add_setup(tmp_path, 4, agent=agent, **limit)))
    broken = {k: v for k, v in lines.items() if v["stop_reason"] != "final"}
    assert list(broken) == ["s0002"]
    line = broken["s0002"]
    if mode == "hang":  # the loop's own time limit: a stop, not an error
        assert line["status"] == "ok"
        assert line["stop_reason"] == "time_limit"
        assert line["scores"]["qa_f1_reward"]["score"] == 0.0
        assert any(
            "killed at the time limit; stderr: thinking..." in note for note in line["agent_notes"]
        )
    else:
        assert line["status"] == "error"
        assert says in line["error"]
        assert line["stop_reason"] == "error"
    for key, other in lines.items():
        if key != "s0002":
            assert other["scores"]["qa_f1_reward"]["score"] == 1.0


def test_the_round_cap_holds_at_the_endpoint_as_in_the_loop(tmp_path: Path) -> None:
    script = {"*": [ask(call(f"c{k}", "add", {"a": k, "b": 1})) for k in range(4)] + ["done"]}
    config = add_setup(tmp_path, 2, max_rounds=2)
    write_json(tmp_path / "script.json", script)
    native = _lines(run_once(config))
    agent = {"command": [sys.executable, _script(tmp_path, "agent.py", AGENT_PY)]}
    config = add_setup(tmp_path, 2, max_rounds=2, agent=agent)
    write_json(tmp_path / "script.json", script)
    outside = _lines(run_once(config))
    for key, line in outside.items():
        assert line["status"] == "ok"
        assert line["stop_reason"] == native[key]["stop_reason"] == "max_rounds"
        assert _wire(line) == _wire(native[key])
        assert line["tool_calls_by_status"] == {"ok": 2, "round_limit": 1}
        # the agent's next request was refused (403) and it gave up: its stderr says why
        (note,) = line["agent_notes"]
        assert "exited with code 1" in note
        assert "the run has ended (max_rounds); the model was not called" in note


def _adder(body: dict[str, Any]) -> StubResponse:
    """A provider calling add(i, 1) for "What is i + 1?", then answering with the result."""
    last = body["messages"][-1]
    usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    if last["role"] == "tool":
        answer = reply(last["content"])
    else:
        a = int(last["content"].split()[2])
        answer = reply(tool_calls=[stub_call("add", {"a": a, "b": 1}, id=f"c{a}")])
    answer.body["usage"] = usage
    return answer


def test_a_provider_model_is_priced_and_its_key_stays_in_agentloop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-key")
    fields: dict[str, Any] = {
        "model": "openai:m",
        "preflight": False,
        "prices": {"openai:m": {"input": 2.0, "output": 8.0}},
    }
    with StubServer(handler=_adder) as stub:
        fields["model_options"] = {"base_url": stub.url}
        native = _lines(run_once(add_setup(tmp_path, 2, **fields)))
        agent = {"command": [sys.executable, _script(tmp_path, "agent.py", AGENT_PY)]}
        asked = len(stub.requests)
        outside = _lines(run_once(add_setup(tmp_path, 2, agent=agent, **fields)))
        assert len(stub.requests) == 2 * asked  # the agent's requests, forwarded
        keys = {h["authorization"] for h in stub.headers}
    assert keys == {"Bearer sk-the-users-key"}  # agentloop's credentials, not the token
    for key, line in outside.items():
        assert line["status"] == "ok", line.get("error")
        assert line["usage"] == native[key]["usage"]
        assert line["usage"]["total_tokens"] == 240
        assert (
            line["cost_usd"]
            == native[key]["cost_usd"]
            == pytest.approx((200 * 2.0 + 40 * 8.0) / 1e6)
        )
        assert _wire(line) == _wire(native[key])


BIG_TASK_PY = """
import json, os, sys

task = json.load(sys.stdin)
print("AGENTLOOP_TASK" in os.environ, len(task["messages"][-1]["content"]),
      os.environ["AGENTLOOP_SAMPLE_ID"], os.environ["AGENTLOOP_EPOCH"])
"""


def test_a_task_too_big_for_a_variable_comes_on_stdin(tmp_path: Path) -> None:
    agent = {"command": [sys.executable, _script(tmp_path, "big.py", BIG_TASK_PY)]}
    config = add_setup(tmp_path, 1, agent=agent)
    question = "What is 0 + 1? " + "x" * 200_000  # above Linux's 128 KiB for one variable
    write_jsonl(tmp_path / "data.jsonl", [{**add_row(0), "messages": [
        {"role": "user", "content": question}]}])  # fmt: skip
    (line,) = _lines(run_once(config)).values()
    assert line["status"] == "ok", line.get("error")
    assert line["trajectory"]["messages"][-1]["content"] == f"False {len(question)} s0000 1"


COUNTER_PY = """
import asyncio, os

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main():
    headers = {"Authorization": f"Bearer {os.environ['AGENTLOOP_TOKEN']}"}
    async with (
        httpx.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(os.environ["AGENTLOOP_MCP_URL"], http_client=http) as (r, w, _),
        ClientSession(r, w) as session,
    ):
        await session.initialize()
        counts = []
        for _ in range(3):
            counts.append((await session.call_tool("counter", {})).content[0].text)
            await asyncio.sleep(0.05)  # the other episodes' calls come in between
        print(" ".join(counts))


asyncio.run(main())
"""


def test_concurrent_episodes_each_have_their_own_tool_state(tmp_path: Path) -> None:
    agent = {"command": [sys.executable, _script(tmp_path, "counter.py", COUNTER_PY)]}
    tools = [f"{tools_file(tmp_path)}:Counter"]
    config = add_setup(tmp_path, 6, agent=agent, tools=tools, concurrency=6)
    lines = _lines(run_once(config))
    assert len(lines) == 6
    for line in lines.values():
        assert line["status"] == "ok", line.get("error")
        assert line["trajectory"]["messages"][-1]["content"] == "1 2 3"
        assert line["tool_calls_by_status"] == {"ok": 3}
