"""``executor: ray`` against a real Ray cluster on 127.0.0.1, started once per session:
the same results as a local run, resume and retry, replay and view, secrets, bounds.

The cluster (``tests.support.ray_cluster``) has 2 CPUs and no dashboard; its servers
listen on loopback only (checked when it starts and when it stops). Faults are in
``test_ray_faults``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from agentloop import run_eval_sync
from agentloop.cli._commands import main
from agentloop.errors import AgentloopError
from agentloop.harness import load_config
from agentloop.harness.data._selection import iter_selected
from agentloop.harness.run._executor import open_executor
from agentloop.harness.run._sample import prepare
from tests.support.harness import add_row, only_run_dir, read_results, write_json, write_jsonl
from tests.support.ray_cluster import ray_setup, results_by_pair, shared_ray_address


@pytest.fixture(scope="session")
def ray_address(request: pytest.FixtureRequest) -> str:
    return shared_ray_address(request.session)


def test_ray_run_equals_a_local_run_and_resumes_with_retry_errors(
    tmp_path: Path, ray_address: str
) -> None:
    config = ray_setup(
        tmp_path, n=12, epochs=2, concurrency=3, rewards=["qa_f1_reward", "tool_call_match"]
    )
    # Ground truth with matchers: each row's compiled expected calls travel to the actors.
    def truth(i: int) -> dict[str, Any]:
        return {"tool_calls": [{"name": "add", "arguments": {"a": {"$any": [i]}, "b": 1}}]}

    write_jsonl(tmp_path / "data.jsonl", [add_row(i, ground_truth=truth(i)) for i in range(12)])
    local = run_eval_sync(load_config(config, overrides={"output_dir": str(tmp_path / "local")}))
    on_ray = run_eval_sync(
        load_config(
            config,
            overrides={"executor": "ray", "ray_address": ray_address, "ray_workers": 2},
        )
    )
    expected = results_by_pair(local.run_dir)
    assert len(expected) == 24
    assert results_by_pair(on_ray.run_dir) == expected
    assert on_ray.summary.errored == local.summary.errored == 2
    assert on_ray.summary.rewards == local.summary.rewards
    matched = [r["scores"]["tool_call_match"]["score"] for r in read_results(on_ray.run_dir)
               if r["status"] == "ok"]  # fmt: skip
    assert matched == [1.0] * 22
    pids = {line.split()[0] for line in (tmp_path / "pids.txt").read_text().splitlines()}
    assert str(os.getpid()) in pids and len(pids) >= 3, "the ray run used no worker process"
    header = json.loads((on_ray.run_dir / "run.json").read_text())
    assert header["config"]["executor"] == "ray"
    assert header["planned"]["results"] == 24

    # The report and replay read a Ray run like any other.
    assert main(["view", str(on_ray.run_dir), "--out", str(tmp_path / "report.html")]) == 0
    assert "s0010" in (tmp_path / "report.html").read_text()
    replay = main(["run", str(config), "--model", f"replay:{on_ray.run_dir}",
                   "--output-dir", str(tmp_path / "replay")])  # fmt: skip
    assert replay == 0
    replayed = results_by_pair(only_run_dir(tmp_path / "replay"))
    assert {k: v["scores"] for k, v in replayed.items()} == {
        k: v["scores"] for k, v in expected.items()
    }

    # --retry-errors on Ray: the unscripted row gets a script, its errored pairs run again.
    script = json.loads((tmp_path / "script.json").read_text())
    script["s0011"] = [{"role": "assistant", "content": "12"}]
    write_json(tmp_path / "script.json", script)
    code = main(["run", "--resume", str(on_ray.run_dir), "--retry-errors", "--allow-changed"])
    assert code == 0
    latest = {(r["id"], r["epoch"]): r for r in read_results(on_ray.run_dir)}
    assert len(latest) == 24 and all(r["status"] == "ok" for r in latest.values())
    assert len(read_results(on_ray.run_dir)) == 26  # the errored lines stay, superseded


def test_in_flight_pairs_are_bounded_by_workers_times_concurrency(
    tmp_path: Path, ray_address: str
) -> None:
    config = load_config(
        ray_setup(tmp_path, n=30, concurrency=3, model_options={"latency": 0.02}),
        overrides={"executor": "ray", "ray_address": ray_address, "ray_workers": 2},
    )
    p = prepare(config)
    taken = delivered = peak = 0

    def pairs() -> Iterator[tuple[Any, int]]:
        nonlocal taken
        for sample in iter_selected(config, p.selection):
            taken += 1
            yield sample, 1

    def deliver(line: str, errored: bool) -> None:
        nonlocal delivered, peak
        peak = max(peak, taken - delivered)
        delivered += 1

    async def run() -> None:
        async with open_executor(p) as executor:
            await executor.run(pairs(), deliver)

    anyio.run(run)
    assert delivered == taken == 30
    assert peak == 2 * 3  # saturated, never above


def test_secrets_reach_workers_through_the_environment_only(
    tmp_path: Path, ray_address: str
) -> None:
    secret = "s3cr3t-value-for-ray"
    config = ray_setup(tmp_path, n=2, tools=[f"{tmp_path / 'pidtools.py'}:leak"])
    script = {"*": [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "leak", "arguments": json.dumps({"name": "RAY_TEST_TOKEN"})}}]},
        "done"]}  # fmt: skip
    write_json(tmp_path / "script.json", script)
    environ = {"RAY_TEST_TOKEN": secret}
    outcome = run_eval_sync(
        load_config(
            config,
            overrides={
                "executor": "ray",
                "ray_address": ray_address,
                "ray_env": ["RAY_TEST_TOKEN"],
                "ray_workers": 1,
            },
        ),
        environ=environ,
    )
    tool_outputs = [
        m["content"]
        for r in read_results(outcome.run_dir)
        for m in r["trajectory"]["messages"]
        if m["role"] == "tool"
    ]
    assert tool_outputs == ["***", "***"]  # the worker had the value, and masked it
    for file in outcome.run_dir.iterdir():
        assert secret not in file.read_text(), file.name
    with pytest.raises(AgentloopError, match="ray_env: RAY_TEST_TOKEN is not set"):
        run_eval_sync(
            load_config(
                config,
                overrides={
                    "executor": "ray",
                    "ray_address": ray_address,
                    "ray_env": ["RAY_TEST_TOKEN"],
                },
            ),
            environ={},
        )


def test_a_conversation_with_a_simulated_user_runs_on_ray_as_locally(
    tmp_path: Path, ray_address: str
) -> None:
    from tests.support.help_desk import conversation_config

    config = conversation_config(tmp_path)
    local = run_eval_sync(load_config(config, overrides={"output_dir": str(tmp_path / "local")}))
    on_ray = run_eval_sync(load_config(
        config, overrides={"executor": "ray", "ray_address": ray_address, "ray_workers": 2},
    ))  # fmt: skip
    expected = results_by_pair(local.run_dir)
    assert {line["stop_reason"] for line in expected.values()} == {"user_stop"}
    assert results_by_pair(on_ray.run_dir) == expected


def test_the_judges_of_a_ray_run_are_opened_and_counted_on_the_actors(
    tmp_path: Path, ray_address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.openai_stub import StubServer, reply

    monkeypatch.setenv("JUDGE_KEY", "sk-judge-test")
    usage = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    with StubServer(lambda body: reply("Right. GRADE: C", usage=usage)) as stub:
        judge = {"judge": "openai:judge-model",
                 "judge_options": {"base_url": stub.url, "api_key_env": "JUDGE_KEY"}}  # fmt: skip
        config = ray_setup(
            tmp_path, n=3, rewards=[{"llm_judge": judge}], pass_threshold={},
            executor="ray", ray_address=ray_address, ray_workers=1, ray_env=["JUDGE_KEY"],
            prices={"openai:judge-model": {"input": 1.0, "output": 2.0}},
        )  # fmt: skip
        outcome = run_eval_sync(load_config(config))
        assert len(stub.requests) == 2  # the third row has no script: it never gets scored
    lines = {line["id"]: line for line in read_results(outcome.run_dir)}
    for sample in ("s0000", "s0001"):
        assert lines[sample]["scores"]["llm_judge"]["score"] == 1.0
        assert lines[sample]["judge_cost_usd"] == pytest.approx(120 / 1_000_000)
    assert outcome.summary.judge is not None
    assert (outcome.summary.judge.requests, outcome.summary.judge.cost_usd) == (2, 0.00024)


def test_an_agent_of_your_own_runs_on_ray_with_its_servers_on_the_worker(
    tmp_path: Path, ray_address: str
) -> None:
    # A command agent: its MCP server and model endpoint run in the actor that runs its
    # sample, so the tool calls it makes there land in a worker process.
    from tests.harness.agents.test_command_agent import AGENT_PY

    (tmp_path / "agent.py").write_text(AGENT_PY)
    agent = {"command": [sys.executable, str(tmp_path / "agent.py")]}
    config = ray_setup(tmp_path, n=4, agent=agent)
    local = run_eval_sync(load_config(config, overrides={"output_dir": str(tmp_path / "local")}))
    (tmp_path / "pids.txt").unlink()
    on_ray = run_eval_sync(load_config(
        config, overrides={"executor": "ray", "ray_address": ray_address, "ray_workers": 2},
    ))  # fmt: skip
    expected = results_by_pair(local.run_dir)
    assert [expected[pair]["status"] for pair in sorted(expected)] == ["ok"] * 3 + ["error"]
    assert results_by_pair(on_ray.run_dir) == expected
    pids = {line.split()[0] for line in (tmp_path / "pids.txt").read_text().splitlines()}
    assert pids and str(os.getpid()) not in pids, "the agent's tools ran in the driver"
