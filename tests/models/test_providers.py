"""``PROVIDER:MODEL`` through LangChain's integrations: Anthropic against a loopback stub
of its Messages API, through ``agentloop run``."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentloop.cli._commands import main
from tests.support.anthropic_stub import AnthropicStub, text, tool_use
from tests.support.harness import add_setup, only_run_dir, read_results


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-123")
    monkeypatch.chdir(tmp_path)  # no stray .env


def test_anthropic_calls_a_tool_gets_its_result_and_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with AnthropicStub() as stub:
        stub.replies = [tool_use("toolu_1", "add", {"a": 0, "b": 1}), text("1")]
        config = add_setup(tmp_path, n=1, model="anthropic:claude-stub",
                           model_params={"temperature": 0, "max_tokens": 64},
                           model_options={"base_url": stub.url})  # fmt: skip
        assert main(["run", str(config), "--no-preflight"]) == 0
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert line["status"] == "ok" and line["scores"]["qa_f1_reward"]["score"] == 1.0
    (call,) = line["trajectory"]["steps"][0]["tool_calls"]
    assert (call["name"], call["args"], call["status"]) == ("add", {"a": 0, "b": 1}, "ok")
    assert line["usage"]["input_tokens"] == 14 and line["usage"]["output_tokens"] == 6

    first, second = stub.requests
    assert first["model"] == "claude-stub" and first["temperature"] == 0
    assert first["max_tokens"] == 64
    assert [t["name"] for t in first["tools"]] == ["add"]
    assert "input_schema" in first["tools"][0]
    sent = stub.headers[0]
    assert "sk-ant-test-key-123" in (sent.get("x-api-key") or sent.get("authorization") or "")
    # The tool's result goes back as Anthropic's tool_result block of a user turn.
    result = second["messages"][-1]
    assert result["role"] == "user"
    (block,) = [b for b in result["content"] if b["type"] == "tool_result"]
    assert block["tool_use_id"] == "toolu_1" and "1" in str(block["content"])
    # The key never reaches the run's files.
    run_dir = only_run_dir(tmp_path / "runs")
    assert not any("sk-ant-test-key-123" in p.read_text() for p in run_dir.iterdir())


def test_preflight_names_the_endpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = add_setup(tmp_path, n=1, model="anthropic:claude-stub",
                       model_options={"base_url": "http://127.0.0.1:9", "max_retries": 0})
    assert main(["run", str(config)]) == 2
    err = capsys.readouterr().err
    assert "cannot use anthropic:claude-stub (http://127.0.0.1:9)" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("spec", "fields", "message"),
    [
        ("anthropic:c", {"model_params": {"seed": 1}},
         "model_params.seed: not a sampling parameter of ChatAnthropic (anthropic:)"),
        ("anthropic:c", {"model_options": {"port": 1}}, "unknown anthropic model option(s): port"),
        ("anthropic:c", {"model_params": {"temperature": "hot"}}, "anthropic:c: temperature:"),
        ("xai:grok-4", {}, "pip install 'agentloop[xai]'"),
    ],
)
def test_bad_settings_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str, fields: dict, message: str
) -> None:
    config = add_setup(tmp_path, n=1, model=spec, **fields)
    assert main(["run", str(config), "--no-preflight"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
