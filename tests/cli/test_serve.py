"""``agentloop serve``: a real process serving the bank config's row over MCP; an outside
client makes the calls, a signal ends the episode, a result line is written."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agentloop.cli._commands import main
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from tests.support.harness import ROOT, read_results

BANK = ROOT / "configs" / "bank.yaml"


def _start(tmp_path: Path) -> tuple[subprocess.Popen[str], dict[str, str]]:
    command = [sys.executable, "-m", "agentloop.cli", "serve", str(BANK), "--sample-id", "bank-1"]
    process = subprocess.Popen(
        [*command, "--output-dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    lines = [process.stdout.readline() for _ in range(3)]
    found = dict(line.strip().split("=", 1) for line in lines if "=" in line)
    if len(found) != 3:
        process.kill()
        raise AssertionError(f"agentloop serve printed {lines!r}; stderr: {process.stderr}")
    return process, found


async def _calls(found: dict[str, str], calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    headers = {"Authorization": f"Bearer {found['AGENTLOOP_TOKEN']}"}
    texts = []
    async with (
        httpx.AsyncClient(headers=headers) as http,
        streamable_http_client(found["AGENTLOOP_MCP_URL"], http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        for name, args in calls:
            result = await session.call_tool(name, args)
            texts.append(result.content[0].text)  # type: ignore[union-attr]
    return texts


def test_serve_prints_where_to_connect_and_a_signal_scores_the_episode(tmp_path: Path) -> None:
    process, found = _start(tmp_path / "served")
    try:
        assert found["AGENTLOOP_MCP_URL"] == found["AGENTLOOP_URL"] + "/mcp"
        assert found["AGENTLOOP_URL"].startswith("http://127.0.0.1:")
        transfer = ("transfer", {"source": "alice", "target": "bob", "amount": 30})
        texts = anyio.run(_calls, found, [transfer])
        assert texts == ["moved 30 from alice to bob"]
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, stderr
    result = json.loads(stdout.strip().splitlines()[-1])
    (line,) = read_results(Path(result["run_dir"]))
    assert line["scores"] == result["scores"]
    assert found["AGENTLOOP_TOKEN"] not in (Path(result["run_dir"]) / "run.json").read_text()
    # the native loop making the same first call, then answering at once
    script = tmp_path / "script.json"
    call = {"id": "c1", "type": "function", "function": {"name": "transfer"}}
    call["function"]["arguments"] = json.dumps(transfer[1])
    reply = {"role": "assistant", "content": None, "tool_calls": [call]}
    script.write_text(json.dumps({"bank-1": [reply, "", ""]}))
    overrides = {"output_dir": str(tmp_path / "native"), "sample_ids": ["bank-1"]}
    config = load_config(BANK, [f"model=scripted:{script}"], overrides)
    (native,) = read_results(run_eval_sync(config).run_dir)
    assert line["scores"] == native["scores"]
    assert line["scores"]["env_state_match"]["score"] == 0.0  # turn 2's withdrawal not made


def test_serve_with_an_unknown_sample_id_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["serve", str(BANK), "--sample-id", "nope", "--output-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().count("\n") == 0 and "'nope'" in err and "no row" in err
    assert not list(tmp_path.iterdir()) if tmp_path.exists() else True
