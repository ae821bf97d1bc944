"""What a request costs, provider by provider: each loopback stub answers with its
provider's own usage fields, through ``agentloop run`` with the price in ``prices:``, and
the result's ``cost_usd`` is the figure computed by hand from the provider's billing rules
(reasoning billed as output wherever it is reported, cache reads at the cached rate, cache
writes at the write rates, an unknown rate unknown)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.anthropic_stub import AnthropicStub, text
from tests.support.gemini_stub import GeminiStub
from tests.support.harness import add_setup, only_run_dir, read_results, run_once
from tests.support.ollama_stub import OllamaStub, chat_reply
from tests.support.openai_stub import StubServer, reply
from tests.support.responses_stub import ResponsesStub, message, response

Options = dict[str, Any]
Stub = Callable[[dict[str, Any]], AbstractContextManager[Options]]
"""Starts a stub whose one reply ("1") reports the given usage; yields the model options."""

PRICE = {"input": 2.0, "cached_input": 0.5, "cache_write": 2.5, "output": 8.0}
"""USD per million tokens of the OpenAI-protocol and Gemini cases."""
CLAUDE = {"input": 3.0, "cached_input": 0.3, "cache_write": 3.75, "cache_write_1h": 6.0,
          "output": 15.0}  # fmt: skip
"""Anthropic's rates for a $3 model: reads 0.1x, 5-minute writes 1.25x, 1-hour writes 2x."""


@contextmanager
def _chat(usage: dict[str, Any]) -> Iterator[Options]:
    answer = reply("1")
    answer.body["usage"] = usage  # nested details, as the servers send them
    with StubServer(handler=lambda body: answer) as stub:
        yield {"base_url": stub.url}


@contextmanager
def _flex(usage: dict[str, Any]) -> Iterator[Options]:
    answer = reply("1")
    answer.body.update(usage=usage, service_tier="flex")
    with StubServer(handler=lambda body: answer) as stub:
        yield {"base_url": stub.url}


@contextmanager
def _responses(usage: dict[str, Any]) -> Iterator[Options]:
    answer = response([message("1")])
    answer["usage"] = usage
    with ResponsesStub(lambda body: answer) as stub:
        yield {"base_url": stub.url, "api": "responses"}


@contextmanager
def _anthropic(usage: dict[str, Any]) -> Iterator[Options]:
    pytest.importorskip("langchain_anthropic")
    answer = text("1")
    answer["usage"] = usage
    with AnthropicStub() as stub:
        stub.replies = [answer]
        yield {"base_url": stub.url}


@contextmanager
def _gemini(usage: dict[str, Any]) -> Iterator[Options]:
    pytest.importorskip("langchain_google_genai")
    answer = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "1"}]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": usage, "modelVersion": "gemini-stub",
    }  # fmt: skip
    with GeminiStub(lambda body: answer) as stub:
        yield {"base_url": stub.url}


@contextmanager
def _ollama(counts: dict[str, Any]) -> Iterator[Options]:
    pytest.importorskip("langchain_ollama")
    with OllamaStub(lambda body: chat_reply("1")) as stub:
        stub.counts = counts
        yield {"base_url": stub.url}


@contextmanager
def _deepseek(usage: dict[str, Any]) -> Iterator[Options]:
    pytest.importorskip("langchain_deepseek")
    with _chat(usage) as options:
        yield options


def _tokens(inp: int, out: int, cached: int = 0, reasoning: int = 0, written: int = 0,
            hour: int = 0) -> dict[str, int]:  # fmt: skip
    return {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out,
            "cached_input_tokens": cached, "reasoning_tokens": reasoning,
            "cache_write_input_tokens": written, "cache_write_1h_input_tokens": hour}  # fmt: skip


@dataclass
class Case:
    model: str
    stub: Stub
    usage: dict[str, Any]
    """What the provider reports, in its own fields."""
    price: dict[str, float]
    tokens: dict[str, int]
    """``TokenUsage`` as recorded: reasoning inside the output, cache counts inside the input."""
    usd: float
    """The hand-computed cost."""
    params: dict[str, Any] | None = None
    """Sampling parameters (Anthropic requires ``max_tokens``)."""


OPENAI_CHAT = {"prompt_tokens": 1000, "completion_tokens": 300, "total_tokens": 1300,
               "prompt_tokens_details": {"cached_tokens": 600},
               "completion_tokens_details": {"reasoning_tokens": 200}}  # fmt: skip
DEEPSEEK = {"prompt_tokens": 1000, "prompt_cache_hit_tokens": 600,
            "prompt_cache_miss_tokens": 400, "completion_tokens": 300, "total_tokens": 1300,
            "completion_tokens_details": {"reasoning_tokens": 200}}  # fmt: skip
# 400 uncached at 2, 600 cached at 0.5, 300 output (200 of them reasoning) at 8
READ_AND_REASON = (400 * 2 + 600 * 0.5 + 300 * 8) / 1e6

CASES = {
    # OpenAI: cached_tokens is part of prompt_tokens, reasoning_tokens of completion_tokens.
    "openai chat completions": Case(
        "openai:m", _chat, OPENAI_CHAT, PRICE, _tokens(1000, 300, 600, 200), READ_AND_REASON),
    # At the flex tier langchain-openai names the parts flex_cache_read, flex_reasoning:
    # before, the 600 cached tokens were billed at the input rate (prices: for flex).
    "openai chat completions, flex tier": Case(
        "openai:m", _flex, OPENAI_CHAT, PRICE, _tokens(1000, 300, 600, 200), READ_AND_REASON),
    "openai responses": Case(
        "openai:m", _responses,
        {"input_tokens": 1000, "input_tokens_details": {"cached_tokens": 600},
         "output_tokens": 300, "output_tokens_details": {"reasoning_tokens": 200},
         "total_tokens": 1300},
        PRICE, _tokens(1000, 300, 600, 200), READ_AND_REASON),
    # xAI leaves reasoning out of completion_tokens (total = prompt + completion +
    # reasoning) and bills it as output: before, 200 reasoning tokens went unbilled.
    "openai-compatible, reasoning outside completion (xAI)": Case(
        "openai:m", _chat,
        {**OPENAI_CHAT, "completion_tokens": 100}, PRICE,
        _tokens(1000, 300, 600, 200), READ_AND_REASON),
    # OpenRouter reports cache writes as prompt_tokens_details.cache_write_tokens
    # (LangChain's cache_creation): 800 at the write rate, not the input rate.
    "openai-compatible, cache writes (OpenRouter)": Case(
        "openai:m", _chat,
        {"prompt_tokens": 1000, "completion_tokens": 300, "total_tokens": 1300,
         "prompt_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 800}},
        PRICE, _tokens(1000, 300, written=800), (200 * 2 + 800 * 2.5 + 300 * 8) / 1e6),
    # DeepSeek's API names its cache hits prompt_cache_hit_tokens: through openai: they
    # were billed at the full input rate.
    "openai: at DeepSeek's API": Case(
        "openai:m", _chat, DEEPSEEK, PRICE, _tokens(1000, 300, 600, 200), READ_AND_REASON),
    "deepseek (langchain-deepseek)": Case(
        "deepseek:deepseek-v4-flash", _deepseek, DEEPSEEK, PRICE,
        _tokens(1000, 300, 600, 200), READ_AND_REASON),
    # Anthropic's input_tokens leave out cache reads and writes (LangChain adds them back);
    # thinking is inside output_tokens. 5-minute writes at 1.25x, 1-hour writes at 2x:
    # before, all 300 writes were billed as plain input.
    "anthropic, writes by lifetime": Case(
        "anthropic:claude-stub", _anthropic,
        {"input_tokens": 100, "cache_read_input_tokens": 600,
         "cache_creation_input_tokens": 300,
         "cache_creation": {"ephemeral_5m_input_tokens": 200, "ephemeral_1h_input_tokens": 100},
         "output_tokens": 300, "output_tokens_details": {"thinking_tokens": 200}},
        CLAUDE, _tokens(1000, 300, 600, 200, written=300, hour=100),
        (100 * 3 + 600 * 0.3 + 200 * 3.75 + 100 * 6 + 300 * 15) / 1e6, {"max_tokens": 64}),
    "anthropic, writes without their lifetime": Case(
        "anthropic:claude-stub", _anthropic,
        {"input_tokens": 100, "cache_read_input_tokens": 600,
         "cache_creation_input_tokens": 300, "output_tokens": 300},
        CLAUDE, _tokens(1000, 300, 600, written=300),
        (100 * 3 + 600 * 0.3 + 300 * 3.75 + 300 * 15) / 1e6, {"max_tokens": 64}),
    # Gemini: thoughtsTokenCount is not in candidatesTokenCount and is billed as output;
    # cachedContentTokenCount is part of promptTokenCount.
    "google_genai": Case(
        "google_genai:gemini-stub", _gemini,
        {"promptTokenCount": 1000, "cachedContentTokenCount": 600,
         "candidatesTokenCount": 100, "thoughtsTokenCount": 200, "totalTokenCount": 1300},
        PRICE, _tokens(1000, 300, 600, 200), READ_AND_REASON),
    # Ollama: eval_count is every generated token, thinking included; no cache fields.
    "ollama": Case(
        "ollama:stub", _ollama, {"prompt_eval_count": 1000, "eval_count": 300},
        {"input": 2.0, "output": 8.0}, _tokens(1000, 300), (1000 * 2 + 300 * 8) / 1e6),
}


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name, key in [("OPENAI_API_KEY", "sk-test"), ("ANTHROPIC_API_KEY", "sk-ant-test"),
                      ("GOOGLE_API_KEY", "AIza-test-key-0123456789"),
                      ("DEEPSEEK_API_KEY", "sk-deepseek-test")]:  # fmt: skip
        monkeypatch.setenv(name, key)
    monkeypatch.chdir(tmp_path)  # no stray .env


def _run(tmp_path: Path, case: Case, price: dict[str, float]) -> dict[str, Any]:
    with case.stub(case.usage) as options:
        config = add_setup(tmp_path, n=1, model=case.model, model_options=options,
                           model_params=case.params or {}, prices={case.model: price})  # fmt: skip
        (line,) = read_results(run_once(config))
    assert line["status"] == "ok", line.get("error")
    return line


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_each_providers_usage_is_billed_by_its_rules(tmp_path: Path, case: Case) -> None:
    line = _run(tmp_path, case, case.price)
    assert line["usage"] == case.tokens
    (step,) = line["trajectory"]["steps"]
    assert step["usage"] == case.tokens
    assert line["cost_unknown"] is None
    assert line["cost_usd"] == pytest.approx(case.usd, abs=1e-12)
    # the run's summary adds up every kind of token the provider reported
    summary = json.loads(only_run_dir(tmp_path / "runs").joinpath("summary.json").read_text())
    assert {k: v for k, v in summary["tokens"].items() if v} == {
        k: v for k, v in case.tokens.items() if v
    }


@pytest.mark.parametrize(
    ("dropped", "reason"),
    [
        ("cache_write", "200 prompt tokens were written to the provider's cache and the price "
                        "has no cache_write rate"),
        ("cache_write_1h", "100 prompt tokens were written to its cache for an hour and the "
                           "price has no cache_write_1h rate"),
    ],
)  # fmt: skip
def test_cache_writes_without_their_rate_cost_unknown_never_the_input_rate(
    tmp_path: Path, dropped: str, reason: str
) -> None:
    case = CASES["anthropic, writes by lifetime"]
    price = {k: v for k, v in case.price.items() if k != dropped}
    line = _run(tmp_path, case, price)
    assert line["usage"] == case.tokens
    assert line["cost_usd"] is None
    assert line["cost_unknown"] == reason
