"""Reasoning models through ``agentloop run``, against loopback stubs of the OpenAI chat
API (``reasoning_content`` / ``reasoning``) and of Anthropic's Messages API (thinking
blocks with signatures): recorded, sent back with tool results, replayed, configured."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentloop.cli._commands import main
from agentloop.cli._view_data import find_result, sample_detail
from tests.support.anthropic_stub import AnthropicStub, redacted_thinking, text, thinking, tool_use
from tests.support.harness import (
    add_setup,
    assistant_messages,
    read_results,
    run_once,
    write_config,
)
from tests.support.openai_stub import StubResponse, StubServer, call, reply


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-123")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


def _thinker(field: str) -> Any:
    """Calls add(i, 1) for "What is i + 1?" and answers with its result, thinking aloud
    in ``field`` each time."""

    def answer(body: dict[str, Any]) -> StubResponse:
        last = body["messages"][-1]
        if last["role"] == "tool":
            return reply(last["content"], reasoning=f"the tool said {last['content']}",
                         reasoning_field=field)  # fmt: skip
        a = int(last["content"].split()[2])
        return reply(tool_calls=[call("add", {"a": a, "b": 1}, id=f"c{a}")],
                     reasoning=f"I add {a} and 1 with the tool", reasoning_field=field)  # fmt: skip

    return answer


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_openai_reasoning_is_recorded_sent_back_and_replayed(
    stub: StubServer, tmp_path: Path, field: str
) -> None:
    stub.handler = _thinker(field)
    config = add_setup(tmp_path, n=2, model="openai:stub-model", reasoning={"effort": "high"},
                       model_options={"base_url": stub.url})  # fmt: skip
    run_dir = run_once(config)
    lines = sorted(read_results(run_dir), key=lambda line: line["id"])
    assert [line["status"] for line in lines] == ["ok", "ok"]

    # The setting reaches the wire as OpenAI's reasoning_effort, on every request.
    assert len(stub.requests) == 4
    assert all(body["reasoning_effort"] == "high" for body in stub.requests)
    # The follow-up carries the tool call's reasoning, unchanged, in the server's field.
    follow_ups = [b for b in stub.requests if b["messages"][-1]["role"] == "tool"]
    for body in follow_ups:
        (asked,) = [m for m in body["messages"] if m["role"] == "assistant"]
        a = asked["tool_calls"][0]["id"][1:]
        assert asked[field] == f"I add {a} and 1 with the tool"
        other = {"reasoning_content", "reasoning"} - {field}
        assert not other & asked.keys()

    # Recorded in the trajectory, with every reply's reasoning.
    first = lines[0]
    said = [m["langchain"]["additional_kwargs"][field] for m in assistant_messages(first)]
    assert said == ["I add 0 and 1 with the tool", "the tool said 1"]

    # A replay of the recording reproduces it: same requests, same reasoning.
    replayed_dir = run_once(config, "--model", f"replay:{run_dir}")
    replayed = sorted(read_results(replayed_dir), key=lambda line: line["id"])
    assert len(stub.requests) == 4  # the replay sent nothing
    for was, now in zip(lines, replayed, strict=True):
        assert now["status"] == "ok"
        assert assistant_messages(now) == assistant_messages(was)


def test_send_back_false_keeps_the_record_but_not_the_field(
    stub: StubServer, tmp_path: Path
) -> None:
    stub.handler = _thinker("reasoning_content")
    config = add_setup(tmp_path, n=1, model="openai:stub-model",
                       reasoning={"send_back": False},
                       model_options={"base_url": stub.url})  # fmt: skip
    (line,) = read_results(run_once(config))
    first, follow_up = stub.requests
    assert "reasoning_effort" not in first
    (asked,) = [m for m in follow_up["messages"] if m["role"] == "assistant"]
    assert "reasoning_content" not in asked and asked["tool_calls"]
    assert assistant_messages(line)[0]["langchain"]["additional_kwargs"]["reasoning_content"] == (
        "I add 0 and 1 with the tool"
    )


def test_a_changed_reasoning_setting_is_another_request(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cache keys on the setting, replay and resume compare it."""
    stub.handler = _thinker("reasoning_content")
    config = add_setup(tmp_path, n=1, model="openai:stub-model", reasoning={"effort": "low"},
                       cache=str(tmp_path / "cache"),
                       model_options={"base_url": stub.url})  # fmt: skip
    run_dir = run_once(config)
    run_once(config)
    assert len(stub.requests) == 2  # the rerun came from the cache
    run_once(config, "--set", "reasoning.effort=medium")
    assert len(stub.requests) == 4 and stub.requests[-1]["reasoning_effort"] == "medium"

    capsys.readouterr()
    assert main(["run", str(config), "--set", "reasoning.effort=high", "--resume",
                 str(run_dir)]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "the config differs from the run's in: reasoning" in err

    no_cache = write_config(config, **{**yaml.safe_load(config.read_text()), "cache": False})
    replayed = run_once(no_cache, "--model", f"replay:{run_dir}", "--set",
                        "reasoning.effort=high", code=1)  # fmt: skip
    (line,) = read_results(replayed)
    assert line["status"] == "error"
    assert ('params differs: recorded {"reasoning":{"effort":"low"}}, '
            'now {"reasoning":{"effort":"high"}}') in line["error"]


def _anthropic_replies() -> list[dict[str, Any]]:
    blocks = [thinking("I should add 0 and 1.", "sig-AAA="), redacted_thinking("ENCRYPTED==")]
    return [
        tool_use("toolu_1", "add", {"a": 0, "b": 1}, thinking=blocks),
        text("1", thinking=[thinking("The tool said 1.", "sig-BBB=")]),
    ]


def test_anthropic_thinking_blocks_go_back_unchanged_and_replay(tmp_path: Path) -> None:
    with AnthropicStub() as stub:
        stub.replies = _anthropic_replies()
        config = add_setup(tmp_path, n=1, model="anthropic:claude-stub",
                           reasoning={"budget_tokens": 2048},
                           model_params={"max_tokens": 4096},
                           model_options={"base_url": stub.url})  # fmt: skip
        run_dir = run_once(config)
    first, second = stub.requests
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert second["thinking"] == first["thinking"]
    # The assistant turn that made the call goes back with its thinking blocks, as sent.
    (turn,) = [m for m in second["messages"] if m["role"] == "assistant"]
    sent = _anthropic_replies()[0]["content"]
    assert turn["content"][:2] == sent[:2]
    assert turn["content"][2]["type"] == "tool_use" and turn["content"][2]["id"] == "toolu_1"

    (line,) = read_results(run_dir)
    assert line["status"] == "ok" and line["scores"]["qa_f1_reward"]["score"] == 1.0
    recorded = [m["langchain"]["content"] for m in assistant_messages(line)]
    assert recorded[0][:2] == sent[:2]
    assert recorded[1][0] == {"type": "thinking", "thinking": "The tool said 1.",
                              "signature": "sig-BBB="}  # fmt: skip

    replayed = read_results(run_once(config, "--model", f"replay:{run_dir}"))
    assert replayed[0]["status"] == "ok"
    assert assistant_messages(replayed[0]) == assistant_messages(line)

    # The viewer's (and show's) sample data: one reasoning block per assistant message.
    detail = sample_detail(find_result(run_dir, "s0000"))
    shown = [m.get("reasoning") for m in detail["messages"] if m["role"] == "assistant"]
    assert shown == [
        [{"kind": "thinking", "text": "I should add 0 and 1."},
         {"kind": "redacted_thinking", "text": "(redacted by the provider)"}],
        [{"kind": "thinking", "text": "The tool said 1."}],
    ]  # fmt: skip


def test_the_anthropic_preflight_asks_without_a_thinking_budget(tmp_path: Path) -> None:
    """A budget must be below max_tokens: the 1-token preflight request turns thinking off."""
    with AnthropicStub() as stub:
        stub.replies = [text("pong"), text("1")]
        config = add_setup(tmp_path, n=1, model="anthropic:claude-stub", max_rounds=0,
                           reasoning={"budget_tokens": 2048}, model_params={"max_tokens": 4096},
                           model_options={"base_url": stub.url})  # fmt: skip
        assert main(["run", str(config)]) == 0
    preflight, sample = stub.requests
    assert preflight["max_tokens"] == 1 and preflight["thinking"] == {"type": "disabled"}
    assert sample["thinking"] == {"type": "enabled", "budget_tokens": 2048}


@pytest.mark.parametrize(
    ("reasoning", "wire"),
    [
        ({"enabled": False}, {"thinking": {"type": "disabled"}}),
        ({"enabled": True}, {"thinking": {"type": "adaptive"}}),
        ({"effort": "low"}, {"output_config": {"effort": "low"}}),
    ],
)
def test_anthropic_mapping_in_the_request(
    tmp_path: Path, reasoning: dict[str, Any], wire: dict[str, Any]
) -> None:
    with AnthropicStub() as stub:
        stub.replies = [text("1")]
        config = add_setup(tmp_path, n=1, model="anthropic:claude-stub", reasoning=reasoning,
                           model_params={"max_tokens": 64}, max_rounds=0,
                           model_options={"base_url": stub.url})  # fmt: skip
        run_once(config)
    (body,) = stub.requests
    for key, value in wire.items():
        assert {k: body[key].get(k) for k in value} == value, body


def test_openai_disabled_is_effort_none(stub: StubServer, tmp_path: Path) -> None:
    stub.push(reply("1"))
    config = add_setup(tmp_path, n=1, model="openai:stub-model", reasoning={"enabled": False},
                       max_rounds=0, model_options={"base_url": stub.url})  # fmt: skip
    run_once(config)
    assert stub.requests[0]["reasoning_effort"] == "none"


@pytest.mark.parametrize(
    ("spec", "fields", "message"),
    [
        ("openai:m", {"reasoning": {"effort": "extreme"}}, "reasoning.effort: Input should be"),
        ("openai:m", {"reasoning": {"effrot": "low"}}, "reasoning.effrot: Extra inputs"),
        ("openai:m", {"reasoning": {"enabled": False, "effort": "high"}},
         "enabled: false, but effort or budget_tokens asks for reasoning"),
        ("openai:m", {"reasoning": {"budget_tokens": 2048}},
         "reasoning.budget_tokens: openai: OpenAI-compatible servers take an effort"),
        ("openai:m", {"reasoning": {"enabled": True}}, "reasoning.enabled: openai: the OpenAI"),
        ("openai:m", {"reasoning": {"effort": "low"}, "model_params": {"reasoning_effort": "low"}},
         "reasoning.effort: model_params.reasoning_effort says it too"),
        ("openai:m", {"model_params": {"reasoning": {"effort": "low"}}},
         "model_params.reasoning: set it as the top-level reasoning: setting"),
        ("anthropic:c", {"reasoning": {"budget_tokens": 100}},
         "reasoning.budget_tokens: anthropic: at least 1024"),
        ("anthropic:c",
         {"reasoning": {"budget_tokens": 2048}, "model_params": {"max_tokens": 1024}},
         "reasoning.budget_tokens: anthropic: must be below model_params.max_tokens (1024)"),
        ("anthropic:c", {"reasoning": {"effort": "minimal"}}, "reasoning.effort: anthropic: Input"),
        ("anthropic:c", {"reasoning": {"send_back": False}},
         "reasoning.send_back: anthropic: the API refuses"),
    ],
)
def test_bad_reasoning_settings_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str, fields: dict, message: str
) -> None:
    config = add_setup(tmp_path, n=1, model=spec,
                       model_options={"base_url": "http://127.0.0.1:9"}, **fields)  # fmt: skip
    assert main(["run", str(config), "--no-preflight"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_the_report_and_show_print_the_reasoning(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub.handler = _thinker("reasoning_content")
    config = add_setup(tmp_path, n=1, model="openai:stub-model",
                       model_options={"base_url": stub.url})  # fmt: skip
    run_dir = run_once(config)
    capsys.readouterr()
    assert main(["show", str(run_dir), "s0000"]) == 0
    out = capsys.readouterr().out
    assert "reasoning: I add 0 and 1 with the tool" in out
    assert "reasoning: the tool said 1" in out
    # The report's sample data (drawn by sample.js: tests/browser/test_view_reasoning.py).
    detail = sample_detail(find_result(run_dir, "s0000"))
    assert [m.get("reasoning") for m in detail["messages"]] == [
        None,
        [{"kind": "reasoning", "text": "I add 0 and 1 with the tool"}],
        None,
        [{"kind": "reasoning", "text": "the tool said 1"}],
    ]


@pytest.mark.parametrize("send_back", [True, False])
def test_deepseek_through_langchain_sends_reasoning_back(
    stub: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, send_back: bool
) -> None:
    """langchain-deepseek keeps ``reasoning_content`` but leaves it out of the follow-up
    (langchain-ai/langchain#40219); DeepSeek's thinking mode refuses that: agentloop adds it."""
    pytest.importorskip("langchain_deepseek")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-deepseek-test")
    stub.handler = _thinker("reasoning_content")
    config = add_setup(tmp_path, n=1, model="deepseek:deepseek-v4-flash",
                       reasoning={"effort": "high", "send_back": send_back},
                       model_options={"base_url": stub.url})  # fmt: skip
    (line,) = read_results(run_once(config))
    assert line["status"] == "ok"
    first, follow_up = stub.requests
    assert first["reasoning_effort"] == "high"
    (asked,) = [m for m in follow_up["messages"] if m["role"] == "assistant"]
    assert asked.get("reasoning_content") == ("I add 0 and 1 with the tool" if send_back else None)
    recorded = assistant_messages(line)[0]["langchain"]["additional_kwargs"]["reasoning_content"]
    assert recorded == "I add 0 and 1 with the tool"


def test_reasoning_parts_read_every_stored_form() -> None:
    from agentloop.models._reasoning import reasoning_parts

    # vLLM's transition releases return the same text in both fields: shown once.
    both = {"role": "assistant", "content": "4", "langchain": {"additional_kwargs": {
        "reasoning_content": "2 + 2", "reasoning": "2 + 2"}}}  # fmt: skip
    assert reasoning_parts(both) == [{"kind": "reasoning", "text": "2 + 2"}]
    # A LangChain dump (run format /1) and LangChain's standard reasoning block.
    dump = {"type": "ai", "content": [{"type": "reasoning", "reasoning": "carry the one"},
                                      {"type": "text", "text": "4"}]}  # fmt: skip
    assert reasoning_parts(dump) == [{"kind": "reasoning", "text": "carry the one"}]
    # A Responses-API reasoning item (a mapping in additional_kwargs) is not text.
    item = {"role": "assistant", "content": "4",
            "langchain": {"additional_kwargs": {"reasoning": {"id": "rs_1", "summary": []}}}}
    assert reasoning_parts(item) == []
    assert reasoning_parts({"role": "user", "content": "hi"}) == []
