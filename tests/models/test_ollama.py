"""``ollama:`` models (langchain-ollama's ``ChatOllama``) through ``agentloop run``,
against a loopback stub of Ollama's ``POST /api/chat``: the ``reasoning:`` setting as
Ollama's ``think``, the thinking recorded, shown and sent back with the tool results."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from tests.support.harness import (
    add_setup,
    assistant_messages,
    only_run_dir,
    read_results,
    replayed,
    run_once,
    shown_reasoning,
)
from tests.support.ollama_stub import OllamaStub, chat_reply

pytest.importorskip("langchain_ollama")


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no stray .env


def _thinker(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Calls add(i, 1) for "What is i + 1?" and answers with its result, thinking first."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return chat_reply(last["content"], thinking=f"the tool said {last['content']}")
    a = int(last["content"].split()[2])
    return chat_reply(thinking=f"I add {a} and 1 with the tool",
                      tool_calls=[("add", {"a": a, "b": 1})])  # fmt: skip


@pytest.fixture
def stub() -> Iterator[OllamaStub]:
    with OllamaStub(_thinker) as server:
        yield server


def test_thinking_is_recorded_shown_and_sent_back(
    stub: OllamaStub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=2, model="ollama:qwen3", reasoning={"enabled": True},
                       model_options={"base_url": stub.url})  # fmt: skip
    run_dir = run_once(config)
    lines = sorted(read_results(run_dir), key=lambda line: line["id"])
    assert [line["status"] for line in lines] == ["ok", "ok"]
    assert [line["scores"]["qa_f1_reward"]["score"] for line in lines] == [1.0, 1.0]

    assert len(stub.requests) == 4
    assert all(body["think"] is True and body["stream"] is True for body in stub.requests)
    follow_ups = [b for b in stub.requests if b["messages"][-1]["role"] == "tool"]
    for body in follow_ups:
        (asked,) = [m for m in body["messages"] if m["role"] == "assistant"]
        a = asked["tool_calls"][0]["function"]["arguments"]["a"]
        assert asked["thinking"] == f"I add {a} and 1 with the tool"

    said = [
        m["langchain"]["additional_kwargs"]["reasoning_content"]
        for m in assistant_messages(lines[0])
    ]
    assert said == ["I add 0 and 1 with the tool", "the tool said 1"]
    assert shown_reasoning(run_dir) == [
        [{"kind": "reasoning", "text": "I add 0 and 1 with the tool"}],
        [{"kind": "reasoning", "text": "the tool said 1"}],
    ]
    capsys.readouterr()
    assert main(["show", str(run_dir), "s0000"]) == 0
    assert "reasoning: the tool said 1" in capsys.readouterr().out

    # A replay plays the recording back, thinking included, and sends nothing.
    replayed(config, run_dir)
    assert len(stub.requests) == 4


@pytest.mark.parametrize(
    ("reasoning", "think"),
    [(None, None), ({"enabled": False}, False), ({"effort": "high"}, "high"),
     ({"effort": "none"}, False)],
)  # fmt: skip
def test_the_setting_is_ollamas_think_and_thinking_is_always_kept(
    stub: OllamaStub, tmp_path: Path, reasoning: dict[str, Any] | None, think: Any
) -> None:
    fields = {"reasoning": reasoning} if reasoning else {}
    config = add_setup(tmp_path, n=1, model="ollama:gpt-oss",
                       model_options={"base_url": stub.url}, **fields)  # fmt: skip
    (line,) = read_results(run_once(config))
    assert [body.get("think", "unset") for body in stub.requests] == [
        "unset" if think is None else think
    ] * 2
    # The thinking a reply carries is recorded whatever was asked (a model thinking by
    # default: langchain-ollama alone keeps it only when reasoning is on).
    said = [
        m["langchain"]["additional_kwargs"]["reasoning_content"] for m in assistant_messages(line)
    ]
    assert said == ["I add 0 and 1 with the tool", "the tool said 1"]


def test_the_preflight_asks_for_one_token(stub: OllamaStub, tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=1, model="ollama:qwen3", max_rounds=0,
                       model_options={"base_url": stub.url})  # fmt: skip
    stub.handler = lambda body: chat_reply("1")
    assert main(["run", str(config)]) == 0
    ping, sample = stub.requests
    assert ping["messages"] == [{"role": "user", "content": "ping"}]
    assert ping["options"] == {"num_predict": 1}
    assert sample["messages"][-1]["content"] == "What is 0 + 1?"


@pytest.mark.parametrize(
    ("reasoning", "message"),
    [
        ({"budget_tokens": 2048}, "reasoning.budget_tokens: ollama: not supported"),
        ({"effort": "xhigh"}, "reasoning.effort: ollama: one of none, low, medium, high"),
        ({"send_back": False}, "reasoning.send_back: ollama: not supported (langchain-ollama"),
        ({"summary": "auto"}, "reasoning.summary: ollama: not supported"),
    ],
)
def test_what_ollama_cannot_take_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reasoning: dict[str, Any], message: str
) -> None:
    config = add_setup(tmp_path, n=1, model="ollama:qwen3", reasoning=reasoning,
                       model_options={"base_url": "http://127.0.0.1:9"})  # fmt: skip
    assert main(["run", str(config), "--no-preflight"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_request_timeout_applies_to_ollama(tmp_path: Path) -> None:
    # ChatOllama takes no `timeout`: the option was accepted and dropped, so a hung server
    # hung the sample. The stub answers after 5 s; the option gives up after 0.5 s.
    import time

    def slow(body: dict[str, Any]) -> list[dict[str, Any]]:
        time.sleep(5)
        return chat_reply("late")

    with OllamaStub(slow) as stub:
        config = add_setup(tmp_path, n=1, model="ollama:qwen3", model_options={
            "base_url": stub.url, "request_timeout": 0.5, "max_retries": 0})  # fmt: skip
        main(["run", str(config), "--no-preflight"])  # every result errored: not 0
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert line["status"] == "error" and "timeout" in str(line["error"]).lower(), line


def test_an_option_ollama_cannot_apply_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=1, model="ollama:qwen3",
                       model_options={"base_url": "http://127.0.0.1:9", "api_key_env": "K"})
    assert main(["run", str(config), "--no-preflight"]) == 2
    err = capsys.readouterr().err
    assert "model_options.api_key_env: ollama: models cannot apply it" in err
    assert len(err.strip().splitlines()) == 1, err
