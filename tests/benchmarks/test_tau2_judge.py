"""τ²-bench's NL-assertion judge asked through the run (``agentloop run``, a scripted agent and
user, the judge at the loopback OpenAI stub): awaited on the run's event loop (another sample's
judge request arrives while one is in flight), retried on a 429, its tokens and cost in the
results and the summary, apart from the agent's."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentloop.benchmarks.tau2._data import tau2_rows
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from tests.support.harness import (
    ROOT,
    ask,
    call,
    only_run_dir,
    read_results,
    write_json,
    write_jsonl,
)
from tests.support.openai_stub import StubResponse, StubServer, error, reply

VERDICT = "agentloop.benchmarks:tau2_verdict"
ASSERTION = "The agent confirmed the task was created"
USAGE = {"prompt_tokens": 900, "completion_tokens": 60, "total_tokens": 960}
PRICE = {"input": 2.0, "output": 8.0}
ONE_REQUEST_USD = (900 * 2.0 + 60 * 8.0) / 1_000_000
TASKS = ("create_task_1_a", "create_task_1_b")


def _rows() -> list[dict[str, Any]]:
    """create_task_1 twice, scored on its database and one NL assertion."""
    row = next(r for r in tau2_rows("mock") if r["id"] == "create_task_1")
    rows = []
    for task in TASKS:
        copy = json.loads(json.dumps(row))
        copy["id"] = task
        criteria = copy["ground_truth"]["evaluation_criteria"]
        criteria.update(reward_basis=["DB", "NL_ASSERTION"], nl_assertions=[ASSERTION])
        rows.append(copy)
    return rows


def _config(tmp_path: Path, stub: StubServer) -> Path:
    shipped = ROOT / "configs" / "tau2" / "mock.yaml"
    raw = yaml.safe_load(shipped.read_text())
    agent = {
        task: [
            ask(call("c1", "create_task", {"user_id": "user_1", "title": "Important Meeting"})),
            "Done: the task Important Meeting is created.",
        ]
        for task in TASKS
    }
    user = {task: ["Please create 'Important Meeting' for user_1.", "###STOP###"] for task in TASKS}
    raw.update(
        dataset=str(write_jsonl(tmp_path / "tasks.jsonl", _rows())),
        model=f"scripted:{write_json(tmp_path / 'agent.json', agent)}",
        model_options={},
        output_dir=str(tmp_path / "runs"),
        preflight=False,
        epochs=1,
        concurrency=2,
        rewards=[{VERDICT: {
            "judge": "openai:judge-model",
            "judge_params": {"temperature": 0},
            "judge_options": {"base_url": stub.url, "api_key_env": "JUDGE_KEY"},
        }}],
        prices={"openai:judge-model": PRICE},
    )  # fmt: skip
    raw["user"].update(
        model=f"scripted:{write_json(tmp_path / 'user.json', user)}",
        model_options={},
        instructions=f"@{shipped.parent / raw['user']['instructions'].removeprefix('@')}",
    )
    path = tmp_path / "mock.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True))
    return path


def test_the_nl_judge_runs_on_the_runs_loop_with_retries_usage_and_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_KEY", "sk-judge-test")
    overlap = threading.Event()
    verdict = {"results": [{"expectedOutcome": ASSERTION, "reasoning": "It said so.",
                            "metExpectation": True}]}  # fmt: skip

    def judge(body: dict[str, Any]) -> StubResponse:
        # Held until the other sample's judge request is in flight too (a bounded wait, as
        # a guard): a judge that blocked the run's event loop would keep it from coming.
        if stub.in_flight >= 2:
            overlap.set()
        overlap.wait(timeout=30)
        return reply(json.dumps(verdict), usage=USAGE)

    with StubServer(judge) as stub:
        stub.push(error(429, "rate limited", headers={"Retry-After": "0"}))
        config = _config(tmp_path, stub)
        outcome = run_eval_sync(load_config(config), config_path=str(config))
        assert overlap.is_set() and stub.max_in_flight == 2
        assert len(stub.requests) == 3  # the 429 and its retry, the other sample's request
    assert outcome.summary.errored == 0
    lines = read_results(only_run_dir(tmp_path / "runs"))
    for line in lines:
        result = line["scores"][VERDICT]
        assert result["score"] == 1.0, result["reason"]
        assert result["details"]["breakdown"] == {"DB": 1.0, "NL_ASSERTION": 1.0}
        assert result["details"]["nl_assertions"] == [
            {"item": ASSERTION, "met": True, "reason": "It said so."}
        ]
        [asked] = line["judge_calls"]
        assert (asked["reward"], asked["model"]) == (VERDICT, "openai:judge-model")
        assert line["judge_usage"]["input_tokens"] == 900
        assert line["judge_cost_usd"] == pytest.approx(ONE_REQUEST_USD)
        assert line["cost_usd"] == 0.0  # the agent's and the user's: scripted
    assert sorted(line["judge_calls"][0]["retries"] for line in lines) == [0, 1]
    system, user = stub.requests[-1]["messages"]  # τ²-bench's prompt, with the transcript
    assert system["role"] == "system" and "metExpectation" in system["content"]
    assert "assistant: Done: the task Important Meeting is created." in user["content"]
    judge_totals = outcome.summary.judge
    assert judge_totals is not None
    assert (judge_totals.requests, judge_totals.retries) == (2, 1)
    assert judge_totals.tokens["input_tokens"] == 1800
    assert judge_totals.cost_usd == pytest.approx(2 * ONE_REQUEST_USD)
    assert outcome.summary.cost_usd == 0.0
