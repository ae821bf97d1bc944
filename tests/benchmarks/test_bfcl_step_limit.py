"""BFCL's step limit, run through configs/bfcl/multi_turn_base.yaml against the loopback
OpenAI stub: BFCL runs the calls of a turn's 21st step, then ends the conversation; its
checker fails the entry only when turns are missing (bfcl_eval's base handler and
``_evaluate_single_multi_turn_entry``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentloop.benchmarks.bfcl._package import BFCL_DATA_ENV
from agentloop.benchmarks.bfcl._summary import MULTI_TURN_VERDICT
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from tests.support.harness import ROOT, read_results
from tests.support.openai_stub import StubResponse, StubServer, call, reply

CONFIG = ROOT / "configs" / "bfcl" / "multi_turn_base.yaml"
# multi_turn_base_12's ground truth, one step per turn
TURNS = [
    [("cd", {"folder": "Documents"}), ("touch", {"file_name": "summary.txt"})],
    [("echo", {"content": "quantum computing", "file_name": "summary.txt"})],
    [("wc", {"file_name": "summary.txt", "mode": "w"})],
]


class Agent:
    """Per turn: ``pwd()`` steps first (``padding[turn]`` of them), then the turn's
    ground-truth calls as one step, then an answer."""

    def __init__(self, padding: dict[int, int]) -> None:
        self.padding = padding
        self.asked: dict[int, int] = {}

    def __call__(self, body: dict[str, Any]) -> StubResponse:
        messages = body["messages"]
        turn = sum(m["role"] == "user" for m in messages) - 1
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        step = sum(m["role"] == "assistant" for m in messages[last_user:])
        self.asked[turn] = self.asked.get(turn, 0) + 1
        pads = self.padding.get(turn, 0)
        if step < pads:
            return reply(tool_calls=[call("pwd", {}, id=f"p{turn}_{step}")])
        if step == pads:
            calls = [call(n, a, id=f"c{turn}_{k}") for k, (n, a) in enumerate(TURNS[turn])]
            return reply(tool_calls=calls)
        return reply("Done.")


def _run(tmp_path: Path, agent: Agent, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.delenv(BFCL_DATA_ENV)  # multi_turn_base_12 is not in the fixture
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    with StubServer(handler=agent) as stub:
        config = load_config(CONFIG, overrides={
            "model": "openai:stub-model", "model_options": {"base_url": stub.url},
            "sample_ids": ["multi_turn_base_12"], "output_dir": str(tmp_path / "runs"),
            "preflight": False, "concurrency": 1,
        })  # fmt: skip
        outcome = run_eval_sync(config, config_path=str(CONFIG))
    (line,) = read_results(outcome.run_dir)
    assert line["status"] == "ok", line.get("error")
    return line


def test_the_needed_call_as_the_last_turns_21st_step_runs_and_the_entry_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = Agent(padding={2: 20})  # 20 pwd() steps, then wc as step 21 of the last turn
    line = _run(tmp_path, agent, monkeypatch)
    trajectory = line["trajectory"]
    assert [t["stop_reason"] for t in trajectory["turns"]] == ["final", "final", "max_rounds"]
    # the 21st step's call ran; the model was not asked again after it
    last_step = trajectory["steps"][-1]["tool_calls"]
    assert [(c["name"], c["status"]) for c in last_step] == [("wc", "ok")]
    assert agent.asked == {0: 2, 1: 2, 2: 21}
    verdict = line["scores"][MULTI_TURN_VERDICT]
    assert verdict["score"] == 1.0, verdict["reason"]


def test_a_21st_step_before_the_last_turn_ends_the_conversation_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = Agent(padding={0: 20})  # turn 1: 20 pwd() steps, then cd + touch as step 21
    line = _run(tmp_path, agent, monkeypatch)
    trajectory = line["trajectory"]
    assert [t["stop_reason"] for t in trajectory["turns"]] == ["max_rounds"]
    assert [c["status"] for c in trajectory["steps"][-1]["tool_calls"]] == ["ok", "ok"]
    assert agent.asked == {0: 21}  # turns 2 and 3 never asked, as in BFCL
    verdict = line["scores"][MULTI_TURN_VERDICT]
    assert verdict["score"] == 0.0
    assert verdict["details"]["error_type"] == "multi_turn:force_terminated"
    assert verdict["reason"].startswith("turn 1 ended at the step limit")


def test_twenty_steps_then_an_answer_is_within_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = Agent(padding={1: 19})  # turn 2: 19 pwd() steps, echo as step 20, then an answer
    line = _run(tmp_path, agent, monkeypatch)
    assert [t["stop_reason"] for t in line["trajectory"]["turns"]] == ["final"] * 3
    assert agent.asked == {0: 2, 1: 21, 2: 2}
    assert line["scores"][MULTI_TURN_VERDICT]["score"] == 1.0
    json.dumps(line)
