"""One episode served to an agent elsewhere: the bank config's environment over MCP, driven
by the mcp SDK's client, scored into a result line equal to the native loop's."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agentloop.engine._dispatch import INVALID_ARGS
from agentloop.harness import load_config
from agentloop.harness.agents._tool_server import ToolServer
from agentloop.harness.run._runner import run_eval_sync
from agentloop.harness.run._served_episode import ENDED, UNKNOWN_COST, serve_episode
from tests.support.harness import ROOT, read_results

BANK = ROOT / "configs" / "bank.yaml"


def _config(tmp_path: Path, **flags: Any) -> Any:
    return load_config(BANK, overrides={"output_dir": str(tmp_path), **flags})


@asynccontextmanager
async def _agent(server: ToolServer) -> AsyncIterator[tuple[ClientSession, httpx.AsyncClient]]:
    """What an outside agent holds: an MCP session, and an HTTP client for the routes."""
    async with (
        httpx.AsyncClient(headers=server.headers, base_url=server.base_url, timeout=30) as http,
        streamable_http_client(server.url, http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session, http


async def _call(session: ClientSession, name: str, **args: Any) -> tuple[str, bool]:
    result = await session.call_tool(name, args)
    return result.content[0].text, bool(result.isError)  # type: ignore[union-attr]


def test_an_episode_over_mcp_scores_as_the_native_loop(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        async with serve_episode(_config(tmp_path / "served"), "bank-1") as served:
            async with _agent(served.server) as (session, http):
                task = (await http.get("/task")).json()
                seen["task"] = task
                seen["tools"] = [t.name for t in (await session.list_tools()).tools]
                seen["transfer"] = await _call(
                    session, "transfer", source="alice", target="bob", amount=30
                )
                seen["turn"] = (await http.post("/reply", json={"content": "Done."})).json()
                seen["withdraw"] = await _call(session, "withdraw", account="bob", amount=5)
                seen["done"] = (await http.post("/reply", json={"content": "Bob has 45."})).json()
            seen["run_dir"] = served.run_dir

    anyio.run(scenario)
    assert seen["task"]["id"] == "bank-1"
    assert seen["task"]["messages"] == [{"role": "user", "content": "Move 30 from alice to bob."}]
    assert sorted(seen["tools"]) == ["balance", "deposit", "transfer", "withdraw"]
    assert seen["transfer"] == ("moved 30 from alice to bob", False)
    assert seen["turn"] == {
        "status": "continue",
        "messages": [{"role": "user", "content": "Thanks. Now take 5 out of bob's account."}],
    }
    assert seen["withdraw"] == ("45", False)
    done = seen["done"]
    assert done["status"] == "done" and done["result"]["status"] == "ok"
    (line,) = read_results(seen["run_dir"])
    # the native loop, with the scripted replies making the same calls
    native = run_eval_sync(_config(tmp_path / "native", sample_ids=["bank-1"]))
    (expected,) = read_results(native.run_dir)
    assert line["scores"] == expected["scores"] == done["result"]["scores"]
    assert {k: v["score"] for k, v in line["scores"].items()} == {
        "env_state_match": 1.0,
        "env_response_match": 1.0,
    }

    def calls(record: dict[str, Any]) -> list[Any]:
        steps = record["trajectory"]["steps"]
        return [(c["name"], c["args"], c["status"]) for s in steps for c in s["tool_calls"]]

    assert calls(line) == calls(expected)
    assert [t["state"] for t in line["trajectory"]["turns"]] == [
        t["state"] for t in expected["trajectory"]["turns"]
    ]
    assert line["cost_usd"] is None and line["cost_unknown"] == UNKNOWN_COST


def test_each_episode_has_its_own_environment_state(tmp_path: Path) -> None:
    balances: dict[int, tuple[str, bool]] = {}

    async def scenario() -> None:
        config = _config(tmp_path)
        async with (
            serve_episode(config, "bank-1", 1) as one,
            serve_episode(config, "bank-1", 2) as two,
        ):
            assert one.server.token != two.server.token
            async with _agent(one.server) as (first, _), _agent(two.server) as (second, _):
                await _call(first, "transfer", source="alice", target="bob", amount=30)
                balances[1] = await _call(first, "balance", account="alice")
                balances[2] = await _call(second, "balance", account="alice")
            await one.close()
            await two.close()

    anyio.run(scenario)
    assert balances == {1: ("70", False), 2: ("100", False)}


def test_bad_arguments_get_the_engines_error_and_score_ends_the_episode(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        async with serve_episode(_config(tmp_path), "bank-1") as served:
            async with _agent(served.server) as (session, http):
                seen["bad"] = await _call(session, "deposit", account="bob", amount="lots")
                seen["unknown"] = await _call(session, "steal", account="bob")
                seen["score"] = (await http.post("/score", json={"answer": "I give up."})).json()
                seen["after"] = await _call(session, "balance", account="bob")
                seen["refused"] = (await http.post("/score", json=["not", "an", "object"])).json()
            seen["run_dir"] = served.run_dir

    anyio.run(scenario)
    text, failed = seen["bad"]
    assert failed and text.startswith(INVALID_ARGS.split("{")[0] + "deposit")
    assert seen["unknown"][1] and seen["unknown"][0].startswith("Error: unknown tool 'steal'")
    assert seen["after"] == (ENDED, True)
    assert "error" in seen["refused"]
    (line,) = read_results(seen["run_dir"])
    assert seen["score"]["result"]["scores"] == line["scores"]
    assert line["scores"]["env_state_match"]["score"] == 0.0  # no transfer was made
    statuses = [c["status"] for s in line["trajectory"]["steps"] for c in s["tool_calls"]]
    assert statuses == ["invalid_args", "unknown_tool"]
    replies = [
        m["content"]
        for m in line["trajectory"]["messages"]
        if m["role"] == "assistant" and not m.get("tool_calls")
    ]
    # the answer ends the first turn; the second is answered with an empty reply
    assert replies == ["I give up.", ""]
    assert [t["stop_reason"] for t in line["trajectory"]["turns"]] == ["final", "final"]
    header = json.loads((seen["run_dir"] / "run.json").read_text())
    assert header["config"]["model"] is None


def test_the_round_limit_is_enforced_at_the_server(tmp_path: Path) -> None:
    seen: list[tuple[str, bool]] = []

    async def scenario() -> None:
        config = _config(tmp_path, sample_ids=["bank-1"])
        config = config.model_copy(update={"max_rounds": 1})
        async with serve_episode(config, "bank-1") as served:
            async with _agent(served.server) as (session, _):
                for _ in range(2):
                    seen.append(await _call(session, "balance", account="bob"))
            await served.close()

    anyio.run(scenario)
    assert seen[0] == ("20", False)
    assert seen[1][1] and "limit of 1 tool rounds" in seen[1][0]


def test_a_served_bfcl_memory_prerequisite_keeps_its_memory_in_the_run_directory(
    tmp_path: Path,
) -> None:
    from agentloop.benchmarks.bfcl._memory import MemoryChain
    from agentloop.benchmarks.bfcl._package import bfcl_package

    if bfcl_package() is None:
        pytest.skip("bfcl-eval is not installed")
    config = load_config(
        ROOT / "configs" / "bfcl" / "memory_kv.yaml", overrides={"output_dir": str(tmp_path)}
    )
    first = "memory_kv_prereq_22-student-0"  # depends on nothing
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        async with serve_episode(config, first) as served:
            async with _agent(served.server) as (session, http):
                seen["task"] = (await http.get("/task")).json()
                seen["add"] = await _call(session, "core_memory_add", key="course", value="AI")
                seen["score"] = (await http.post("/score", json={"answer": "Noted."})).json()
            seen["run_dir"] = served.run_dir

    anyio.run(scenario)
    system = seen["task"]["messages"][0]  # BFCL's memory prompt, with the memory so far
    assert system["role"] == "system" and "no content in the core memory" in system["content"]
    assert seen["add"] == ('{"status": "Key-value pair added."}', False)
    assert seen["score"]["result"]["status"] == "ok"
    # written back where a resumed or later run of the chain reads it
    chain = MemoryChain(seen["run_dir"] / "environment" / "bfcl_memory_kv_epoch1", "memory_kv")
    assert chain.written("student") == [first]
