"""A BFCL memory run SIGKILLed mid-chain and resumed: every entry's memory (the system prompt
it opens with, the state after each turn) equals an uninterrupted run's, and no entry runs
twice. The model is the loopback OpenAI stub, answering by a fixed policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from agentloop.cli._commands import main
from tests.harness.run.test_multiturn_resume import _kill_after, by_pair
from tests.support.harness import ROOT, only_run_dir
from tests.support.openai_stub import StubResponse, StubServer, call, reply

CONFIG = ROOT / "configs" / "bfcl" / "memory_kv.yaml"


pytestmark = pytest.mark.usefixtures("installed_bfcl_data")


def keeper(body: dict[str, Any]) -> StubResponse:
    """Files each user message under a key of its own, then says so; a question is
    answered with the core memory's keys, which the system prompt shows."""
    messages = body["messages"]
    users = sum(m["role"] == "user" for m in messages)
    if messages[-1]["role"] == "user":
        text = str(messages[-1]["content"])[:40]
        args = {"key": f"note_{users}_{len(text)}", "value": text}
        return reply(tool_calls=[call("core_memory_add", args, id=f"c{users}")], delay=0.02)
    return reply(f"Noted: {messages[-1]['content']}", delay=0.02)


def _run(tmp_path: Path, stub_url: str, name: str) -> Path:
    config = yaml.safe_load(CONFIG.read_text())
    config.update(
        model="openai:stub-model",
        model_options={"base_url": stub_url},
        output_dir=str(tmp_path / name / "runs"),
        limit=12,  # the student scenario's 10 prerequisites and 2 questions
        preflight=False,
    )
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _said(line: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages without LangChain's per-run ids."""
    return [
        {k: v for k, v in m.items() if k != "langchain"} for m in line["trajectory"]["messages"]
    ]


def _memories(line: dict[str, Any]) -> list[tuple[Any, Any]]:
    """The memory after each turn (the state also names its run's folders)."""
    states = [t["state"] for t in line["trajectory"]["turns"]]
    return [(s["core_memory"], s["archival_memory"]) for s in states]


def test_a_killed_memory_run_resumes_on_the_memory_its_prerequisites_built(
    tmp_path: Path,
) -> None:
    with StubServer(handler=keeper) as stub:
        whole = _run(tmp_path, stub.url, "whole")
        assert main(["run", str(whole)]) == 0
        expected = by_pair(only_run_dir(tmp_path / "whole" / "runs"))
        killed = _run(tmp_path, stub.url, "killed")
        run_dir = _kill_after(killed, tmp_path / "killed", lines=4)
        assert 4 <= len(by_pair(run_dir)) < 12
        assert main(["run", "--resume", str(run_dir)]) == 0
    resumed = by_pair(run_dir)  # by_pair: no (id, epoch) written twice
    assert resumed.keys() == expected.keys() and len(resumed) == 12
    for pair, line in expected.items():
        again = resumed[pair]
        assert again["status"] == line["status"] == "ok", again["error"]
        assert _said(again) == _said(line), pair  # the same memory prompt and results
        assert _memories(again) == _memories(line), pair
    question = expected[("memory_kv_80-student-0", 1)]
    assert "note_1_" in question["trajectory"]["messages"][0]["content"]  # the chain's memory
