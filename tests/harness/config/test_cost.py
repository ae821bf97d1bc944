"""Token usage and cost: counted from what the loopback stubs report, priced from the
config's ``prices:`` or agentloop's table, through ``agentloop run``, ``summary`` and
``compare``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.harness.config._pricing import ModelPrice, price_table, resolve_pricing
from tests.support.anthropic_stub import AnthropicStub, text, tool_use
from tests.support.harness import add_setup, only_run_dir, read_results
from tests.support.openai_stub import StubResponse, StubServer, call, error, reply

PRICE = {"input": 2.0, "cached_input": 0.5, "output": 8.0}
"""USD per million tokens, the config's price of openai:m in these tests."""
# Each sample makes two requests: the tool call, then the answer.
CALL_USAGE = {"prompt_tokens": 1000, "completion_tokens": 300, "total_tokens": 1300,
              "prompt_tokens_details": {"cached_tokens": 400},
              "completion_tokens_details": {"reasoning_tokens": 200}}  # fmt: skip
ANSWER_USAGE = {"prompt_tokens": 1200, "completion_tokens": 50, "total_tokens": 1250,
                "prompt_tokens_details": {"cached_tokens": 1000}}  # fmt: skip
# (1000-400)*2 + 400*0.5 + 300*8, then (1200-1000)*2 + 1000*0.5 + 50*8, per million
SAMPLE_USD = (1200 + 200 + 2400 + 400 + 500 + 400) / 1e6


def _adder(body: dict[str, Any]) -> StubResponse:
    """Calls add(i, 1) for "What is i + 1?", then answers with the tool's result."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return _with_usage(reply(last["content"]), ANSWER_USAGE)
    a = int(last["content"].split()[2])
    return _with_usage(reply(tool_calls=[call("add", {"a": a, "b": 1}, id=f"c{a}")]), CALL_USAGE)


def _with_usage(response: StubResponse, usage: dict[str, Any]) -> StubResponse:
    response.body["usage"] = usage  # nested details: what OpenAI sends
    return response


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer(handler=_adder) as server:
        yield server


def _setup(tmp_path: Path, stub: StubServer, n: int = 2, **fields: Any) -> Path:
    return add_setup(tmp_path, n=n, model="openai:m", preflight=False,
                     model_options={"base_url": stub.url}, **fields)  # fmt: skip


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["run", *argv]) == 0
    return capsys.readouterr().out


def _cells(printed: str, label: str) -> list[str]:
    """The cells of the terminal table row that starts with ``label``."""
    for row in printed.splitlines():
        cells = [cell.strip() for cell in row.strip("│ ").split("│")]
        if cells[0] == label:
            return cells[1:]
    raise AssertionError(f"no {label!r} row in:\n{printed}")


def _summary(run_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run_dir / "summary.json").read_text())
    return data


def test_usage_details_and_cost_reach_results_and_summary(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    printed = _run(capsys, str(_setup(tmp_path, stub, prices={"openai:m": PRICE})))
    run_dir = only_run_dir(tmp_path / "runs")
    lines = read_results(run_dir)
    assert len(lines) == 2 and len(stub.requests) == 4
    for line in lines:
        assert line["usage"] == {"input_tokens": 2200, "output_tokens": 350,
                                 "total_tokens": 2550, "cached_input_tokens": 1400,
                                 "reasoning_tokens": 200, "cache_write_input_tokens": 0,
                                 "cache_write_1h_input_tokens": 0}  # fmt: skip
        call_step, answer_step = line["trajectory"]["steps"]
        assert call_step["usage"]["reasoning_tokens"] == 200 and not call_step["cached"]
        assert answer_step["usage"]["cached_input_tokens"] == 1000
        assert line["cost_usd"] == pytest.approx(SAMPLE_USD) and line["cost_unknown"] is None
    header = json.loads((run_dir / "run.json").read_text())
    assert header["pricing"] == {"source": "prices: in the config", "usd_per_million": PRICE}
    summary = _summary(run_dir)
    assert summary["tokens"] == {"input_tokens": 4400, "output_tokens": 700, "total_tokens": 5100,
                                 "cached_input_tokens": 2800, "reasoning_tokens": 400,
                                 "cache_write_input_tokens": 0,
                                 "cache_write_1h_input_tokens": 0}  # fmt: skip
    assert summary["cost_usd"] == pytest.approx(2 * SAMPLE_USD) and summary["cost_unknown"] is None
    assert _cells(printed, "cost (USD)") == [f"{2 * SAMPLE_USD:.6f}"]
    assert _cells(printed, "tokens") == ["in 4400 (2800 cached), out 700 (400 reasoning)"]
    assert main(["show", str(run_dir), "s0000"]) == 0
    assert f"cost {SAMPLE_USD:.6f}" in capsys.readouterr().out


def test_a_model_without_a_price_costs_unknown_never_zero(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    printed = _run(capsys, str(_setup(tmp_path, stub, prices={"openai:other": PRICE})))
    run_dir = only_run_dir(tmp_path / "runs")
    for line in read_results(run_dir):
        assert line["cost_usd"] is None
        assert line["cost_unknown"].startswith("no price for openai:m: agentloop's price table")
        assert f"requests to {stub.url}" in line["cost_unknown"]
    pricing = json.loads((run_dir / "run.json").read_text())["pricing"]
    assert pricing["usd_per_million"] is None and pricing["source"].startswith("no price for")
    summary = _summary(run_dir)
    assert summary["cost_usd"] is None
    assert summary["cost_unknown"].startswith("2 of 2 result(s) have no known cost: no price")
    assert _cells(printed, "cost (USD)")[0].startswith("unknown (2 of 2 result(s)")


def test_cached_prompt_tokens_without_a_cached_rate_are_unknown(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    price = {"input": 2.0, "output": 8.0}  # no cached_input: the cached tokens' rate is unknown
    _run(capsys, str(_setup(tmp_path, stub, n=1, prices={"openai:m": price})))
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert line["cost_usd"] is None
    assert line["cost_unknown"] == (
        "400 prompt tokens were read from the provider's cache and the price has no "
        "cached_input rate"
    )


def test_replies_served_from_the_response_cache_cost_nothing(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _setup(tmp_path, stub, prices={"openai:m": PRICE}, cache=str(tmp_path / "cache"))
    _run(capsys, str(config), "--output-dir", str(tmp_path / "one"))
    printed = _run(capsys, str(config), "--output-dir", str(tmp_path / "two"))
    assert len(stub.requests) == 4  # the rerun sent nothing
    first, again = (only_run_dir(tmp_path / name) for name in ("one", "two"))
    assert _summary(first)["cost_usd"] == pytest.approx(2 * SAMPLE_USD)
    for line in read_results(again):
        assert line["cache"] == {"hits": 2, "misses": 0}
        assert [step["cached"] for step in line["trajectory"]["steps"]] == [True, True]
        assert line["usage"]["input_tokens"] == 2200  # what the stored replies reported
        assert line["cost_usd"] == 0.0 and line["cost_unknown"] is None
    summary = _summary(again)
    assert summary["cost_usd"] == 0.0 and summary["cache"] == {"hits": 4, "misses": 0}
    assert summary["tokens"]["input_tokens"] == 4400
    assert _cells(printed, "cost (USD)") == ["0.000000"]
    assert _cells(printed, "cache") == ["4 hits, 0 misses"]


def test_a_resumed_runs_total_counts_earlier_and_superseded_lines(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = {"s0001"}

    def flaky(body: dict[str, Any]) -> StubResponse:
        # s0001's answer fails while it is in ``failing``: its tool call was billed.
        tool_turn = body["messages"][-1]["role"] == "tool"
        if tool_turn and body["messages"][-1]["tool_call_id"] == "c1" and failing:
            return error(400, "bad request")
        return _adder(body)

    stub.handler = flaky
    config = _setup(tmp_path, stub, prices={"openai:m": PRICE})
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    errored = next(line for line in read_results(run_dir) if line["status"] == "error")
    call_usd = (1200 + 200 + 2400) / 1e6  # the tool-call request; the refused one is not billed
    assert errored["cost_usd"] == pytest.approx(call_usd)
    failing.clear()
    assert main(["run", "--resume", str(run_dir), "--retry-errors"]) == 0
    assert len(read_results(run_dir)) == 3
    # s0000 from the first run, s0001's superseded attempt and its retry
    assert _summary(run_dir)["cost_usd"] == pytest.approx(2 * SAMPLE_USD + call_usd)


def test_compare_shows_both_costs(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    priced = _setup(tmp_path, stub, prices={"openai:m": PRICE})
    _run(capsys, str(priced), "--output-dir", str(tmp_path / "a"))
    unpriced = _setup(tmp_path, stub)
    _run(capsys, str(unpriced), "--output-dir", str(tmp_path / "b"))
    a, b = only_run_dir(tmp_path / "a"), only_run_dir(tmp_path / "b")
    usd = f"{2 * SAMPLE_USD:.6f}"
    assert main(["compare", str(a), str(a)]) == 0
    assert _cells(capsys.readouterr().out, "cost (USD)") == [usd, usd, "+0.000000"]
    assert main(["compare", str(a), str(b)]) == 0
    assert _cells(capsys.readouterr().out, "cost (USD)") == [usd, "unknown", "-"]
    assert main(["compare", str(a), str(b), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary_a"]["cost_usd"] == pytest.approx(2 * SAMPLE_USD)
    assert data["summary_b"]["cost_usd"] is None


def test_anthropic_cache_reads_and_thinking_tokens_are_counted_and_priced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain_anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.chdir(tmp_path)
    call_reply, answer = tool_use("toolu_1", "add", {"a": 0, "b": 1}), text("1")
    # Anthropic's input_tokens leave out the cache reads; LangChain adds them back.
    call_reply["usage"] = {"input_tokens": 100, "cache_read_input_tokens": 900,
                           "output_tokens": 400, "output_tokens_details": {"thinking_tokens": 300}}
    answer["usage"] = {"input_tokens": 50, "cache_read_input_tokens": 1000, "output_tokens": 10}
    price = {"input": 3.0, "cached_input": 0.3, "output": 15.0}
    with AnthropicStub() as stub:
        stub.replies = [call_reply, answer]
        config = add_setup(tmp_path, n=1, model="anthropic:claude-stub",
                           model_params={"max_tokens": 64}, model_options={"base_url": stub.url},
                           prices={"anthropic:claude-stub": price})  # fmt: skip
        assert main(["run", str(config), "--no-preflight"]) == 0
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert line["usage"] == {"input_tokens": 2050, "output_tokens": 410, "total_tokens": 2460,
                             "cached_input_tokens": 1900, "reasoning_tokens": 300,
                             "cache_write_input_tokens": 0,
                             "cache_write_1h_input_tokens": 0}  # fmt: skip
    assert line["cost_usd"] == pytest.approx((150 * 3.0 + 1900 * 0.3 + 410 * 15.0) / 1e6)


@pytest.mark.parametrize(
    ("prices", "message"),
    [
        ({"openai:m": {"input": 1, "output": 2, "cahced_input": 1}},
         "prices.openai:m.cahced_input: Extra inputs are not permitted"),
        ({"openai:m": {"input": 1}}, "prices.openai:m.output: Field required"),
        ({"openai:m": {"input": -1, "output": 2}}, "prices.openai:m.input: Input should be"),
        ({"gpt-4o": {"input": 1, "output": 2}}, "keys are model specs as model: writes them"),
    ],
)
def test_bad_prices_are_one_line_errors_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], prices: dict[str, Any], message: str
) -> None:
    config = add_setup(tmp_path, n=1, prices=prices)
    assert main(["run", str(config)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_scripted_models_and_score_mode_bill_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(capsys, str(add_setup(tmp_path, n=2)))
    run_dir = only_run_dir(tmp_path / "runs")
    assert [line["cost_usd"] for line in read_results(run_dir)] == [0.0, 0.0]
    assert _summary(run_dir)["cost_usd"] == 0.0


def test_the_table_resolves_exact_names_under_the_provider_serving_the_requests() -> None:
    table = price_table()
    assert table["date"] and "litellm" in table["source"]
    openai = table["providers"]["openai"]["models"]
    dated = resolve_pricing("openai:gpt-4o-mini-2024-07-18", "https://api.openai.com/v1", {})
    assert dated.price == ModelPrice(**openai["gpt-4o-mini-2024-07-18"])
    assert dated.source.startswith("agentloop's price table of ")
    # A date or suffix is never trimmed: an unlisted snapshot has no price.
    undated = resolve_pricing("openai:gpt-4o-mini-2099-01-01", "https://api.openai.com/v1", {})
    assert undated.price is None
    # The same name at another server is not OpenAI's model: unknown, not OpenAI's price.
    local = resolve_pricing("openai:gpt-4o-mini", "http://127.0.0.1:8000/v1", {})
    assert local.price is None and not local.free and "requests to http://127.0.0.1" in local.source
    # An OpenAI-compatible endpoint of another provider is priced as that provider's.
    groq = table["providers"]["groq"]["models"]["openai/gpt-oss-120b"]
    at_groq = resolve_pricing("openai:openai/gpt-oss-120b", "https://api.groq.com/openai/v1", {})
    assert at_groq.price == ModelPrice(**groq)
    # A LangChain provider at its own endpoint (recorded as its prefix).
    sonnet = resolve_pricing("anthropic:claude-sonnet-4-5", "anthropic", {})
    anthropic = table["providers"]["anthropic"]["models"]
    assert sonnet.price == ModelPrice(**anthropic["claude-sonnet-4-5"])
    assert resolve_pricing("anthropic:claude-sonnet-4-5", "http://127.0.0.1:9", {}).price is None
    # The config wins over the table; local models bill nothing.
    mine = ModelPrice(input=1, output=1)
    assert resolve_pricing("openai:gpt-4o", None, {"openai:gpt-4o": mine}).price == mine
    assert resolve_pricing("local:gemma-3-270m", "http://127.0.0.1:5/v1", {}).free


def test_every_table_entry_is_a_valid_price() -> None:
    table = price_table()
    for provider in table["providers"].values():
        assert provider["hosts"] and provider["pricing_page"].startswith("https://")
        for price in provider["models"].values():
            ModelPrice(**price)  # raises on an unknown field or a negative rate


def test_a_replay_reports_the_recorded_usage_and_bills_nothing(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(capsys, str(_setup(tmp_path, stub, prices={"openai:m": PRICE})))
    original = only_run_dir(tmp_path / "runs")
    config = add_setup(tmp_path, n=2, model=f"replay:{original}", prices={"openai:m": PRICE})
    _run(capsys, str(config), "--output-dir", str(tmp_path / "replayed"))
    assert len(stub.requests) == 4  # the replay sent nothing
    for before, after in zip(
        read_results(original), read_results(only_run_dir(tmp_path / "replayed")), strict=True
    ):
        assert after["usage"] == before["usage"]
        assert after["usage"]["cached_input_tokens"] == 1400
        assert after["usage"]["reasoning_tokens"] == 200
        assert before["cost_usd"] == pytest.approx(SAMPLE_USD) and after["cost_usd"] == 0.0


def test_a_reasoning_rate_and_a_longer_prompt_than_the_price_holds() -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    from agentloop.engine import StepRecord, TokenUsage, Trajectory
    from agentloop.harness.config._pricing import Pricing, sample_cost

    usage = TokenUsage(input_tokens=1000, output_tokens=500, total_tokens=1500,
                       cached_input_tokens=0, reasoning_tokens=400)  # fmt: skip
    steps = [StepRecord(latency_s=0.1, usage=usage)]
    trajectory = Trajectory.build([HumanMessage("q"), AIMessage("a")], steps, "final")
    price = ModelPrice(input=1, output=10, reasoning=20, max_input_tokens=1000)
    assert sample_cost(trajectory, Pricing(price, "test")) == (
        pytest.approx((1000 * 1 + 100 * 10 + 400 * 20) / 1e6), None
    )
    shorter = price.model_copy(update={"max_input_tokens": 999})
    assert sample_cost(trajectory, Pricing(shorter, "test")) == (
        None,
        "a request of 1000 prompt tokens is above the price's max_input_tokens (999)",
    )
    # A provider that reported no usage: the cost is unknown, not 0.
    silent = Trajectory.build([HumanMessage("q"), AIMessage("a")], [StepRecord(latency_s=0.1)],
                              "final")  # fmt: skip
    unknown = (None, "the model reported no token usage")
    assert sample_cost(silent, Pricing(price, "test")) == unknown


def test_the_tables_cache_write_rates_are_anthropics_multipliers() -> None:
    """Anthropic's pricing page: 5-minute cache writes cost 1.25x the input rate, 1-hour
    writes 2x; a model whose page figures were not confirmed has neither (its writes then
    cost unknown, never the input rate)."""
    models = price_table()["providers"]["anthropic"]["models"]
    priced = {name: p for name, p in models.items() if "cache_write" in p}
    assert "claude-sonnet-4-5" in priced and "claude-haiku-4-5-20251001" in priced
    for name, price in priced.items():
        assert price["cache_write"] == pytest.approx(1.25 * price["input"]), name
        assert price["cache_write_1h"] == pytest.approx(2 * price["input"]), name
    sonnet = resolve_pricing("anthropic:claude-sonnet-4-5", "anthropic", {}).price
    assert sonnet is not None and (sonnet.cache_write, sonnet.cache_write_1h) == (3.75, 6)
    for provider in ("openai", "google_genai", "deepseek", "mistralai", "groq", "xai"):
        assert not any("cache_write" in p for p in price_table()["providers"][provider]
                       ["models"].values()), provider  # fmt: skip


def test_usage_recorded_before_cache_writes_were_kept_still_reads() -> None:
    from agentloop.engine import StepRecord, TokenUsage

    old = {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12,
           "cached_input_tokens": 4, "reasoning_tokens": 1}  # fmt: skip
    step = StepRecord.model_validate({"latency_s": 0.1, "usage": old})
    assert step.usage == TokenUsage(**old)
    assert (step.usage.cache_write_input_tokens, step.usage.cache_write_1h_input_tokens) == (0, 0)
