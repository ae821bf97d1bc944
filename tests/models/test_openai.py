"""``openai:`` end to end against a loopback OpenAI-protocol stub (real client, real HTTP)."""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path
from typing import Any

import anyio
import openai
import pytest
from langchain_core.tools import tool

from agentloop import ModelSpecError, RetryPolicy, Trajectory, run_agent
from agentloop.engine._content_calls import parse_content_tool_calls
from agentloop.engine._retry import is_transient
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from agentloop.models import open_model
from agentloop.models._openai import read_dotenv
from tests.support.harness import add_setup, read_results
from tests.support.openai_stub import StubResponse, StubServer, call, error, reply


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


FAST = {"retry_initial_delay_s": 0.01, "retry_max_delay_s": 0.05}


async def _agent(
    stub: StubServer,
    messages: Any = "What is 2+3?",
    *,
    params: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
    **kwargs: Any,
) -> Trajectory:
    opts = {"base_url": stub.url, **FAST, **(options or {})}
    async with open_model("openai:stub-model", params, opts) as source:
        return await run_agent(
            source.for_sample("s", 1), [add], messages, retry=source.retry_policy, **kwargs
        )


def agent(stub: StubServer, *args: Any, **kwargs: Any) -> Trajectory:
    async def main() -> Trajectory:
        return await _agent(stub, *args, **kwargs)

    return anyio.run(main)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "LANGSMITH_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env


@pytest.fixture
def stub() -> Any:
    with StubServer() as server:
        yield server


def test_tool_round_then_answer_with_usage(stub: StubServer) -> None:
    stub.push(
        reply(tool_calls=[call("add", {"a": 2, "b": 3}, id="c1")],
              usage={"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14}),
        reply("5", usage={"prompt_tokens": 20, "completion_tokens": 1, "total_tokens": 21}),
    )  # fmt: skip
    traj = agent(stub, params={"temperature": 0, "seed": 7, "max_tokens": 50})
    assert traj.stop_reason == "final" and traj.final_answer == "5"
    assert [c.status for c in traj.tool_calls()] == ["ok"]
    assert traj.usage.model_dump() == {"input_tokens": 30, "output_tokens": 5, "total_tokens": 35,
                                       "cached_input_tokens": 0, "reasoning_tokens": 0,
                                       "cache_write_input_tokens": 0,
                                       "cache_write_1h_input_tokens": 0}  # fmt: skip
    assert [s.usage.total_tokens for s in traj.steps if s.usage] == [14, 21]
    first, second = stub.requests
    assert [t["function"]["name"] for t in first["tools"]] == ["add"]
    assert (first["temperature"], first["seed"], first["max_completion_tokens"]) == (0, 7, 50)
    assert "stream" not in first or first["stream"] is False
    assert second["messages"][1]["content"] is None  # OpenAI's own convention by default
    assert second["messages"][2] == {"role": "tool", "content": "5", "tool_call_id": "c1"}
    assert traj.model["model_name"] == "stub-model"


def test_compat_options_shape_the_request(stub: StubServer) -> None:
    stub.push(reply(tool_calls=[call("add", {"a": 1, "b": 1}, id="c1")]), reply("2"))
    options = {
        "empty_content_for_tool_calls": True,
        "max_tokens_field": "max_tokens",
        "followup_tool_choice": "none",
        "tool_results_as_user": True,
    }
    params = {"max_tokens": 9, "extra_body": {"top_k": 5}}
    traj = agent(stub, params=params, options=options, tool_choice="add")
    assert traj.final_answer == "2"
    first, second = stub.requests
    assert first["tool_choice"] == {"type": "function", "function": {"name": "add"}}
    assert (first["max_tokens"], first["top_k"]) == (9, 5) and "max_completion_tokens" not in first
    assert second["messages"][1]["content"] == ""  # not null: llama-cpp-python rejects null
    assert second["messages"][2] == {"role": "user", "content": "Result of add: 2"}
    assert second["tool_choice"] == "none"
    # The trajectory keeps the real conversation; only the wire format changed.
    assert traj.messages[2].type == "tool"


def test_malformed_arguments_are_never_run(stub: StubServer) -> None:
    stub.push(reply(tool_calls=[call("add", '{"a": 2, "b":', id="bad")]), reply("sorry"))
    traj = agent(stub)
    (record,) = traj.tool_calls()
    assert record.status == "malformed" and record.args is None
    assert record.raw_args == '{"a": 2, "b":'
    tool_msg = stub.requests[1]["messages"][2]
    assert tool_msg["tool_call_id"] == "bad" and "not valid JSON" in tool_msg["content"]
    assert stub.requests[1]["messages"][1]["tool_calls"][0]["function"]["arguments"] == (
        '{"a": 2, "b":'
    )


@pytest.mark.parametrize("arguments", ["[1, 2]", '"hi"', "5", "null", "0", "[]", '""'])
def test_arguments_that_are_not_an_object_are_that_calls_error(
    stub: StubServer, arguments: str
) -> None:
    # LangChain raised on some (the sample became a model error) and ran others with {}.
    good = call("add", {"a": 1, "b": 2}, id="ok")
    stub.push(reply(tool_calls=[call("add", arguments, id="bad"), good]), reply("sorry"))
    traj = agent(stub)
    assert traj.stop_reason == "final"
    records = {r.id: r for r in traj.tool_calls()}
    assert (records["bad"].status, records["bad"].args) == ("malformed", None)
    assert records["bad"].raw_args == arguments
    assert records["ok"].status == "ok"
    answers = {m["tool_call_id"]: m["content"] for m in stub.requests[1]["messages"][2:]}
    assert "not a JSON object" in answers["bad"] and answers["ok"] == "3"
    sent = stub.requests[1]["messages"][1]["tool_calls"]
    assert {c["id"]: c["function"]["arguments"] for c in sent}["bad"] == arguments


def test_a_run_scores_a_sample_whose_call_is_not_an_object(
    stub: StubServer, tmp_path: Path
) -> None:
    stub.push(reply(tool_calls=[call("add", "[1, 2]", id="bad")]), reply("2"))
    config_path = add_setup(tmp_path, n=1, model="openai:stub-model",
                            model_options={"base_url": stub.url, **FAST})  # fmt: skip
    outcome = run_eval_sync(load_config(config_path), config_path=str(config_path))
    (line,) = read_results(outcome.run_dir)
    assert line["status"] == "ok" and line["scores"]["qa_f1_reward"]["score"] == 0.0
    (record,) = line["trajectory"]["steps"][0]["tool_calls"]
    assert record["status"] == "malformed"


def test_429_is_retried_honouring_retry_after(stub: StubServer) -> None:
    stub.push(error(429, "slow down", headers={"Retry-After": "0.3"}), reply("hello"))
    started = time.monotonic()
    traj = agent(stub, options={"retry_max_delay_s": 5})
    assert time.monotonic() - started >= 0.3
    assert traj.stop_reason == "final" and traj.rounds == 0
    assert [s.retries for s in traj.steps] == [1]
    assert len(stub.requests) == 2


def test_5xx_retried_up_to_max_retries(stub: StubServer) -> None:
    stub.push(error(500), error(503), reply(tool_calls=[call("add", {"a": 1, "b": 2})]),
              error(502), reply("3"))  # fmt: skip
    traj = agent(stub, options={"max_retries": 2})
    assert traj.stop_reason == "final" and traj.rounds == 1
    assert [s.retries for s in traj.steps] == [2, 1]
    assert len(stub.requests) == 5

    stub.push(error(500, "a"), error(500, "b"), error(500, "c"))
    traj = agent(stub, options={"max_retries": 2})
    assert traj.stop_reason == "error" and "Error code: 500 - c" in (traj.error or "")
    assert traj.steps[-1].retries == 2
    assert len(stub.requests) == 8  # 5 before + 3 attempts: ChatOpenAI did not retry too


def test_a_500_repeated_verbatim_is_not_retried_again_and_its_cause_is_kept(
    stub: StubServer,
) -> None:
    # "Come back later" statuses are retried even when they repeat verbatim.
    stub.push(error(503, "busy"), error(503, "busy"), reply("done"))
    assert agent(stub, options={"max_retries": 4}).final_answer == "done"
    assert len(stub.requests) == 3
    cause = "Tool choice 'missing' not found in tools."
    stub.push(error(500, cause), error(500, cause), error(500, cause), reply("never"))
    traj = agent(stub, options={"max_retries": 4})
    assert traj.stop_reason == "error" and cause in (traj.error or "")
    assert len(stub.requests) == 5 and traj.steps[-1].retries == 1


# langchain-openai re-raises openai's errors as subclasses named OpenAI...Error.
@pytest.mark.parametrize(("status", "kind"), [(400, "InvalidRequestError"),
                                              (401, "AuthenticationError"),
                                              (404, "ModelNotFoundError")])  # fmt: skip
def test_permanent_errors_end_the_sample_at_once(stub: StubServer, status: int, kind: str) -> None:
    stub.push(error(status, "nope"), reply("never"))
    traj = agent(stub)
    assert traj.stop_reason == "error" and traj.error is not None
    assert kind in traj.error.split(":")[0]
    assert f"Error code: {status} - nope" in traj.error
    assert len(stub.requests) == 1 and traj.steps[-1].retries == 0


def test_request_timeout_is_retried(stub: StubServer) -> None:
    stub.push(reply("late", delay=3.0), reply("on time"))
    started = time.monotonic()
    traj = agent(stub, options={"request_timeout": 0.4})
    assert time.monotonic() - started < 2.5
    assert traj.final_answer == "on time" and traj.steps[0].retries == 1


def test_connection_errors_are_retried_then_reported() -> None:
    with StubServer() as gone:
        url = gone.url
    async def main() -> Trajectory:
        options = {"base_url": url, "max_retries": 2, **FAST}
        async with open_model("openai:m", None, options) as source:
            return await run_agent(source.for_sample("s", 1), [add], "hi",
                                   retry=source.retry_policy)  # fmt: skip

    traj = anyio.run(main)
    assert traj.stop_reason == "error" and traj.error is not None
    assert "ConnectionError" in traj.error.split(":")[0] and traj.steps[-1].retries == 2


def test_openai_error_classes_classify() -> None:
    # openai>=3 sends through httpx2 (an httpx look-alike), older releases through httpx.
    transport = openai.DefaultAsyncHttpxClient.__mro__[1].__module__.split(".")[0]
    httpx = importlib.import_module(transport)

    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")

    def status(code: int) -> Exception:
        response = httpx.Response(code, request=request)
        return openai.APIStatusError("x", response=response, body=None)

    assert is_transient(openai.APITimeoutError(request=request))
    assert is_transient(openai.APIConnectionError(request=request))
    assert [is_transient(status(c)) for c in (429, 500, 503, 400, 401, 404)] == [
        True, True, True, False, False, False,
    ]  # fmt: skip


def test_content_tool_calls_are_recovered(stub: StubServer) -> None:
    text = 'Let me add.\n<tool_call>{"name": "add", "arguments": {"a": 4, "b": 5}}</tool_call>'
    stub.push(reply(text), reply("9"))
    traj = agent(stub, parse_content_tool_calls=parse_content_tool_calls)
    (record,) = traj.tool_calls()
    assert record.recovered and record.status == "ok" and record.args == {"a": 4, "b": 5}
    sent = stub.requests[1]["messages"][1]
    assert sent["tool_calls"][0]["function"]["name"] == "add" and not sent["content"]

    stub.push(reply(text))
    traj = agent(stub)  # not enabled: the text is the answer
    assert traj.final_answer == text and traj.tool_calls() == []


def test_concurrency_limit_is_respected(stub: StubServer) -> None:
    stub.handler = lambda body: reply("ok", delay=0.2)

    async def main() -> list[Trajectory]:
        options = {"base_url": stub.url, "max_concurrent_requests": 2}
        results: list[Trajectory] = []
        async with open_model("openai:m", None, options) as source:
            async def one(i: int) -> None:
                results.append(await run_agent(source.for_sample(str(i), 1), [add], "hi"))

            async with anyio.create_task_group() as group:
                for i in range(6):
                    group.start_soon(one, i)
        return results

    results = anyio.run(main)
    assert [t.final_answer for t in results] == ["ok"] * 6
    assert stub.max_in_flight == 2


def test_a_live_run_through_the_harness(stub: StubServer, tmp_path: Path) -> None:
    """The run's concurrency caps requests in flight; usage and retries reach the results."""
    flaky = {"n": 0}

    def answer(body: dict[str, Any]) -> StubResponse:
        if body["messages"][-1]["role"] == "tool":
            return reply(body["messages"][-1]["content"], delay=0.1,
                         usage={"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4})
        flaky["n"] += 1
        if flaky["n"] == 2:
            return error(503, headers={"Retry-After": "0"})
        question = body["messages"][-1]["content"]
        a = int(question.split()[2])
        return reply(tool_calls=[call("add", {"a": a, "b": 1})], delay=0.1)

    stub.handler = answer
    config_path = add_setup(tmp_path, n=6, model="openai:stub-model", concurrency=2,
                            model_options={"base_url": stub.url, **FAST})  # fmt: skip
    outcome = run_eval_sync(load_config(config_path), config_path=str(config_path))
    lines = read_results(outcome.run_dir)
    assert [line["status"] for line in lines] == ["ok"] * 6
    assert all(line["scores"]["qa_f1_reward"]["score"] == 1.0 for line in lines)
    assert stub.max_in_flight == 2
    assert sum(s["retries"] for line in lines for s in line["trajectory"]["steps"]) == 1
    assert all(line["usage"]["total_tokens"] == 4 for line in lines)
    assert all(line["request"]["tools"] == ["add"] for line in lines)


def test_a_sample_past_its_token_limit_stops_and_is_scored(
    stub: StubServer, tmp_path: Path
) -> None:
    usage = {"prompt_tokens": 90, "completion_tokens": 10, "total_tokens": 100}
    stub.push(
        reply(tool_calls=[call("add", {"a": 0, "b": 1}, id="c1")], usage=usage),
        reply(tool_calls=[call("add", {"a": 0, "b": 1}, id="c2")], usage=usage),
        reply("1"),
    )
    config_path = add_setup(tmp_path, n=1, model="openai:stub-model", token_limit=150,
                            model_options={"base_url": stub.url, **FAST})  # fmt: skip
    outcome = run_eval_sync(load_config(config_path), config_path=str(config_path))
    (line,) = read_results(outcome.run_dir)
    assert (line["status"], line["stop_reason"]) == ("ok", "token_limit")
    assert line["tool_calls_by_status"] == {"ok": 1, "not_run": 1}
    assert line["usage"]["total_tokens"] == 200 and len(stub.requests) == 2
    assert line["scores"]["qa_f1_reward"]["score"] == 0.0  # scored on what it did


def test_key_from_named_env_var_and_never_recorded(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-SECRET-1234567890"
    monkeypatch.setenv("MY_KEY", secret)
    stub.push(reply("hi"))
    traj = agent(stub, options={"api_key_env": "MY_KEY"})
    assert stub.headers[0]["authorization"] == f"Bearer {secret}"
    assert secret not in traj.model_dump_json()


def test_a_key_echoed_in_an_error_is_masked(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    secret = "sk-only-in-dotenv-0123456789"
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={secret}\n")  # not in os.environ
    stub.push(error(401, f"Incorrect API key provided: {secret}"))
    traj = agent(stub)
    assert traj.error is not None and "Incorrect API key provided: ***" in traj.error
    assert secret not in traj.model_dump_json()


def test_dotenv_fills_unset_variables_only(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text(
        "# comment\nexport OPENAI_API_KEY='from-dotenv'\n"
        f'OPENAI_BASE_URL="{stub.url}"\nOTHER=1 # trailing\nnot a line\n'
    )
    assert read_dotenv(tmp_path / ".env") == {
        "OPENAI_API_KEY": "from-dotenv", "OPENAI_BASE_URL": stub.url, "OTHER": "1",
    }  # fmt: skip
    stub.push(reply("a"), reply("b"))

    async def main() -> None:
        async with open_model("openai:m") as source:  # endpoint and key from .env
            await run_agent(source.for_sample("s", 1), [], "hi")
        monkeypatch.setenv("OPENAI_API_KEY", "from-env")
        async with open_model("openai:m") as source:
            await run_agent(source.for_sample("s", 1), [], "hi")

    anyio.run(main)
    assert [h["authorization"] for h in stub.headers] == ["Bearer from-dotenv", "Bearer from-env"]


def test_bad_specs_and_options_are_clear_errors() -> None:
    async def open_(spec: str, params: Any = None, options: Any = None) -> None:
        async with open_model(spec, params, options):
            pass

    def fails(spec: str, params: Any = None, options: Any = None) -> str:
        with pytest.raises(ModelSpecError) as info:
            anyio.run(open_, spec, params, options)
        return str(info.value)

    assert "never be written" in fails("openai:m", None, {"api_key": "sk-x"})
    assert "unknown openai model option(s): bse_url" in fails("openai:m", None, {"bse_url": "x"})
    assert "extra_body" in fails("openai:m", {"temprature": 1}, {"base_url": "http://127.0.0.1"})
    assert "OPENAI_API_KEY" in fails("openai:gpt-4o-mini")
    assert "known: anthropic, azure_openai, " in fails("gpt:4")
    assert "local, mistralai, ollama, openai, perplexity, replay, scripted, " in fails("gpt:4")
    assert "followup_tool_choice" in fails(
        "openai:m", None, {"base_url": "http://127.0.0.1", "followup_tool_choice": "always"}
    )


def test_chat_openai_never_retries_itself(stub: StubServer) -> None:
    async def main() -> None:
        async with open_model("openai:m", None, {"base_url": stub.url, "max_retries": 3}) as src:
            assert src.model.max_retries == 0
            assert src.retry_policy == RetryPolicy(
                max_retries=3, initial_delay_s=0.5, max_delay_s=30, max_total_s=300
            )

    anyio.run(main)


def test_stub_records_json_bodies(stub: StubServer) -> None:
    stub.push(reply("x"))
    agent(stub, [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}])
    assert json.loads(json.dumps(stub.requests[0]))["messages"][0]["role"] == "system"


def _obeys_tool_choice(body: dict[str, Any]) -> StubResponse:
    """Answer as a real endpoint does: a forced tool_choice always gets a tool call."""
    choice = body.get("tool_choice")
    if choice == "required" or isinstance(choice, dict):
        return reply(tool_calls=[call("add", {"a": 2, "b": 3})])
    return reply("5")


@pytest.mark.parametrize("forced", ["required", "add"])
def test_a_forced_first_call_is_followed_by_an_answer(stub: StubServer, forced: str) -> None:
    """The quickstart's shape (tool_choice required, max_rounds 1) can end in an answer."""
    stub.handler = _obeys_tool_choice
    traj = agent(stub, tool_choice=forced, max_rounds=1)
    assert traj.stop_reason == "final" and traj.final_answer == "5"
    first, second = (r["tool_choice"] for r in stub.requests)
    assert first in ("required", {"type": "function", "function": {"name": "add"}})
    assert second == "auto"


def test_a_non_forced_choice_is_kept_and_keep_stays_available(stub: StubServer) -> None:
    stub.push(reply(tool_calls=[call("add", {"a": 1, "b": 1})]), reply("2"))
    traj = agent(stub, tool_choice="none")  # a server that calls a tool anyway
    assert traj.final_answer == "2"
    assert [r["tool_choice"] for r in stub.requests] == ["none", "none"]

    stub.handler = _obeys_tool_choice
    traj = agent(stub, options={"followup_tool_choice": "keep"}, tool_choice="required",
                 max_rounds=1)  # fmt: skip
    assert traj.stop_reason == "max_rounds"  # the follow-up was forced too
    assert [r["tool_choice"] for r in stub.requests[2:]] == ["required", "required"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"temperature": "hot"},
         "model_params.temperature: Input should be a valid number, unable to parse string "
         "as a number"),
        ({"max_tokens": "abc"},
         "model_params.max_tokens: Input should be a valid integer, unable to parse string "
         "as an integer"),
        ({"seed": 1, "stop": 5}, "model_params.stop: Input should be a valid list"),
    ],
)  # fmt: skip
def test_mistyped_params_are_one_line_errors(params: dict[str, Any], message: str) -> None:
    async def main() -> None:
        async with open_model("openai:m", params, {"base_url": "http://127.0.0.1:9/v1"}):
            pass

    with pytest.raises(ModelSpecError) as info:
        anyio.run(main)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    "options",
    [{"max_retries": -1}, {"max_retries": 1.5}, {"retry_initial_delay_s": "x"},
     {"retry_max_total_s": None}, {"request_timeout": "slow"}],
)  # fmt: skip
def test_bad_retry_and_timeout_options_are_one_line_errors(options: dict[str, Any]) -> None:
    async def main() -> None:
        async with open_model("openai:m", None, {"base_url": "http://127.0.0.1:9/v1", **options}):
            pass

    with pytest.raises(ModelSpecError, match=f"model option {next(iter(options))} ") as info:
        anyio.run(main)
    assert "\n" not in str(info.value)
