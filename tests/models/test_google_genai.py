"""``google_genai:`` models (langchain-google-genai) through ``agentloop run``, against a
loopback stub of the Gemini API's ``generateContent``: the ``reasoning:`` setting as
Gemini's thinking config, thought summaries recorded and shown, and each function call's
thought signature sent back with the tool results, from a live run and after replay."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.engine import Trajectory
from agentloop.models._providers import LangChainSource
from tests.support.gemini_stub import GeminiStub, content, function_call, signature, thought
from tests.support.harness import (
    add_setup,
    read_results,
    replayed,
    run_once,
    shown_reasoning,
)

pytest.importorskip("langchain_google_genai")

KEY = "AIza-test-key-0123456789"


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", KEY)
    monkeypatch.chdir(tmp_path)  # no stray .env


def _thinker(body: dict[str, Any]) -> dict[str, Any]:
    """Calls add(i, 1) for "What is i + 1?" (with a thought signature) and answers with
    its result, a thought summary first each time."""
    last = body["contents"][-1]
    results = [p["functionResponse"] for p in last["parts"] if "functionResponse" in p]
    if results:
        said = results[0]["response"]["output"]
        return content([thought(f"the tool said {said}"), {"text": str(said)}], 3)
    a = int(last["parts"][0]["text"].split()[2])
    return content([thought(f"I add {a} and 1"),
                    function_call("add", {"a": a, "b": 1}, signature(f"SIG-{a}"))], 7)  # fmt: skip


@pytest.fixture
def stub() -> Iterator[GeminiStub]:
    with GeminiStub(_thinker) as server:
        yield server


def test_thought_signatures_go_back_and_thoughts_are_recorded(
    stub: GeminiStub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=2, model="google_genai:gemini-3-flash",
                       reasoning={"effort": "low", "summary": "auto"},
                       model_options={"base_url": stub.url})  # fmt: skip
    run_dir = run_once(config)
    lines = sorted(read_results(run_dir), key=lambda line: line["id"])
    assert [line["status"] for line in lines] == ["ok", "ok"]
    assert [line["scores"]["qa_f1_reward"]["score"] for line in lines] == [1.0, 1.0]

    assert len(stub.requests) == 4
    assert all(p.endswith("/models/gemini-3-flash:generateContent") for p in stub.paths)
    assert all(h["x-goog-api-key"] == KEY for h in stub.headers)
    for body in stub.requests:  # google-genai sends the proto's own (snake_case) names here
        thinking = body["generationConfig"]["thinkingConfig"]
        assert thinking == {"thinking_level": "LOW", "include_thoughts": True}, thinking
    follow_ups = [b for b in stub.requests if len(b["contents"]) == 3]
    assert len(follow_ups) == 2
    for body in follow_ups:
        _, turn, _ = body["contents"]
        (call,) = [p for p in turn["parts"] if "functionCall" in p]
        a = call["functionCall"]["args"]["a"]
        # The function call goes back with the very signature it came with.
        assert call["thoughtSignature"] == signature(f"SIG-{a}")

    first = lines[0]
    assert first["usage"]["reasoning_tokens"] == 10
    assert shown_reasoning(run_dir) == [
        [{"kind": "thinking", "text": "I add 0 and 1"}],
        [{"kind": "thinking", "text": "the tool said 1"}],
    ]
    capsys.readouterr()
    assert main(["show", str(run_dir), "s0000"]) == 0
    assert "I add 0 and 1" in capsys.readouterr().out

    # The recording keeps the signature: the replayed conversation, read back from its
    # results line and sent on to the server, carries it.
    again = replayed(config, run_dir)
    assert len(stub.requests) == 4
    history = Trajectory.model_validate(again[0]["trajectory"]).messages[:3]

    async def send_on() -> None:
        source = LangChainSource("google_genai", "gemini-3-flash", {}, {"base_url": stub.url})
        try:
            await source.model.ainvoke(history)
        finally:
            await source.aclose()

    asyncio.run(send_on())
    (call,) = [p for p in stub.requests[-1]["contents"][1]["parts"] if "functionCall" in p]
    assert call["thoughtSignature"] == signature("SIG-0")


@pytest.mark.parametrize(
    ("reasoning", "wire"),
    [
        ({"budget_tokens": 2048}, {"thinking_budget": 2048}),
        ({"enabled": False}, {"thinking_budget": 0}),
        ({"enabled": True}, {"thinking_budget": -1}),
        ({"effort": "high"}, {"thinking_level": "HIGH"}),
    ],
)
def test_the_setting_is_geminis_thinking_config(
    stub: GeminiStub, tmp_path: Path, reasoning: dict[str, Any], wire: dict[str, Any]
) -> None:
    config = add_setup(tmp_path, n=1, model="google_genai:gemini-2.5-flash", reasoning=reasoning,
                       model_options={"base_url": stub.url})  # fmt: skip
    run_once(config)
    assert [b["generationConfig"]["thinkingConfig"] for b in stub.requests] == [wire, wire]


@pytest.mark.parametrize(
    ("reasoning", "message"),
    [
        ({"send_back": False}, "reasoning.send_back: google_genai: not supported (Gemini needs"),
        ({"effort": "high", "budget_tokens": 1024},
         "reasoning.budget_tokens: google_genai: set effort (thinking_level) or budget_tokens"),
        ({"effort": "xhigh"}, "reasoning.effort: google_genai: Input should be"),
        ({"summary": "detailed"}, "reasoning.summary: google_genai: auto only"),
    ],
)
def test_what_gemini_cannot_take_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reasoning: dict[str, Any], message: str
) -> None:
    config = add_setup(tmp_path, n=1, model="google_genai:gemini-3-flash", reasoning=reasoning,
                       model_options={"base_url": "http://127.0.0.1:9"})  # fmt: skip
    assert main(["run", str(config), "--no-preflight"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_the_preflight_asks_for_one_token(stub: GeminiStub, tmp_path: Path) -> None:
    stub.handler = lambda body: content([{"text": "1"}])
    config = add_setup(tmp_path, n=1, model="google_genai:gemini-3-flash", max_rounds=0,
                       reasoning={"budget_tokens": 1024},
                       model_options={"base_url": stub.url})  # fmt: skip
    assert main(["run", str(config)]) == 0
    ping, sample = stub.requests
    assert ping["contents"] == [{"parts": [{"text": "ping"}], "role": "user"}]
    assert ping["generationConfig"]["maxOutputTokens"] == 1
    assert sample["contents"][0]["parts"][0]["text"] == "What is 0 + 1?"
