"""The lean request path: ``openai:`` posts chat requests without the SDK's typed
transformation, and nothing a server or a trajectory sees changes.

Each test runs the same requests through the SDK's own ``chat.completions`` (the path
before) and through ``RawChatCompletions`` against the loopback stub, and compares the
bytes sent, the headers, the retries, the errors and the recorded trajectories.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import openai
import pytest
from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from agentloop import RetryPolicy, Trajectory, run_agent
from agentloop.models import open_model
from agentloop.models._compat import CompatChatOpenAI
from agentloop.models._raw_completions import BODY_FIELDS, RawChatCompletions
from tests.support.openai_stub import StubResponse, StubServer, call, error, reply

FAST = {"retry_initial_delay_s": 0.01, "retry_max_delay_s": 0.05}
RETRY = RetryPolicy(max_retries=2, initial_delay_s=0.01, max_delay_s=0.05)
# Headers that differ between any two requests or stubs, whatever the path.
_VARYING = {"host", "x-stainless-retry-count", "content-length", "x-stainless-read-timeout"}


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def describe(city: str, unit: str = "celsius", tags: list[str] | None = None) -> dict[str, Any]:
    """Describe a city's weather."""
    return {"city": city, "unit": unit, "tags": tags or [], "note": "ünïcödé ✓"}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "LANGSMITH_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def _sdk_path(model: CompatChatOpenAI) -> None:
    """The request path before: LangChain's ``ainvoke`` and ``_agenerate``, and the SDK's
    typed ``create``."""
    model.async_client = model.root_async_client.chat.completions
    object.__setattr__(model, "ainvoke", functools.partial(ChatOpenAI.ainvoke, model))
    object.__setattr__(model, "_complete", functools.partial(ChatOpenAI._agenerate, model))


def _headers(stub: StubServer) -> list[dict[str, str]]:
    return [{k: v for k, v in h.items() if k not in _VARYING} for h in stub.headers]


def _scrubbed(traj: Trajectory) -> dict[str, Any]:
    """A trajectory without its clock readings and LangChain's run ids."""
    data = traj.model_dump(mode="json")

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()
                    if k not in ("latency_s", "duration_s", "wall_time_s")
                    and not (k == "id" and str(v).startswith("lc_run--"))}  # fmt: skip
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    result: dict[str, Any] = walk(data)
    return result


def _as_sent(data: dict[str, Any]) -> dict[str, Any]:
    """A scrubbed trajectory of the SDK's path as the lean path records it: the lean path
    reads the completion the server sent as a dict, without the ``None`` defaults the SDK's
    ``ChatCompletion`` model fills in for absent fields. So a reply no longer holds
    ``refusal: None``, ``logprobs: None`` nor ``None`` usage details, and an absent
    ``system_fingerprint`` reads as LangChain reads it from a dict (``""``)."""
    for message in data["messages"]:
        extra = message.get("langchain") or {}
        kwargs = extra.get("additional_kwargs") or {}
        if "refusal" in kwargs and kwargs["refusal"] is None:
            del kwargs["refusal"]
            if not kwargs:
                del extra["additional_kwargs"]
        meta = extra.get("response_metadata")
        if not meta:
            continue
        if "logprobs" in meta and meta["logprobs"] is None:
            del meta["logprobs"]
        if meta.get("system_fingerprint", "") is None:
            meta["system_fingerprint"] = ""
        usage = meta.get("token_usage") or {}
        for name in ("completion_tokens_details", "prompt_tokens_details"):
            if name in usage and usage[name] is None:
                del usage[name]
    return data


Runner = Callable[[CompatChatOpenAI], Awaitable[Any]]


def both_paths(
    script: list[StubResponse],
    run: Runner,
    *,
    params: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
) -> tuple[tuple[Any, StubServer], tuple[Any, StubServer]]:
    """``run`` on the SDK's path and on the lean one, each against a fresh stub playing
    ``script``: (result, stub) of each."""
    outcomes = []
    for lean in (False, True):
        with StubServer() as stub:
            stub.push(*script)

            async def main(stub: StubServer = stub, lean: bool = lean) -> Any:
                opts = {"base_url": stub.url, **FAST, **(options or {})}
                async with open_model("openai:stub-model", params, opts) as source:
                    model = source.for_sample("s", 1)
                    assert isinstance(model.async_client, RawChatCompletions)
                    if not lean:
                        _sdk_path(model)
                    return await run(model)

            outcomes.append((anyio.run(main), stub))
    return outcomes[0], outcomes[1]


PNG = "data:image/png;base64,iVBORw0KGgo="


def _conversation() -> list[Any]:
    """Every kind of message LangChain sends: system, user (text and parts), an earlier
    assistant turn with calls and text, tool results (text and JSON), non-ASCII text."""
    return [
        SystemMessage('You are terse. Ünïcödé: ✓ — "quotes" and \\ backslashes'),
        HumanMessage(
            content=[
                {"type": "text", "text": "Look at this and add things."},
                {"type": "image_url", "image_url": {"url": PNG}},
            ]
        ),
        AIMessage(
            content="Let me check.",
            tool_calls=[
                {"name": "describe", "args": {"city": "Zürich", "tags": ["a", "b"]}, "id": "old1"}
            ],
        ),
        ToolMessage('{"city": "Zürich", "temp": 21.5}', tool_call_id="old1"),
        AIMessage("It is 21.5 °C in Zürich."),
        HumanMessage("Now add 2 and 3, and 4 and 5, then describe Oslo.", name="tester"),
    ]


_PARAMS = {
    "temperature": 0.3, "max_tokens": 64, "seed": 7, "stop": ["STOP", "END"], "top_p": 0.9,
    "presence_penalty": 0.1, "frequency_penalty": 0.2, "logit_bias": {"50256": -100},
    "logprobs": True, "top_logprobs": 2, "reasoning_effort": "low",
    "extra_body": {"top_k": 20, "chat_template_kwargs": {"thinking": False}},
}  # fmt: skip


USAGE = {"prompt_tokens": 30, "completion_tokens": 5, "total_tokens": 35}


def _script() -> list[StubResponse]:
    usage = USAGE
    return [
        reply("Adding.", tool_calls=[call("add", {"a": 2, "b": 3}, id="c1"),
                                     call("add", {"a": 4, "b": 5}, id="c2")], usage=usage),
        reply(tool_calls=[call("describe", {"city": "Oslo", "unit": "kelvin"}, id="c3"),
                          call("add", '{"a": 1, "b": ', id="c4")], usage=usage),
        reply(tool_calls=[call("add", {"a": 9, "b": 9}, id="c5")], usage=usage),
        reply("5 and 9; Oslo described.", usage=usage),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("tool_choice", "parallel", "options"),
    [("required", False, {}),
     ({"type": "function", "function": {"name": "add"}}, True,
      {"max_tokens_field": "max_tokens", "empty_content_for_tool_calls": True}),
     (None, True, {"tool_results_as_user": True, "followup_tool_choice": "keep"})],
)  # fmt: skip
def test_a_tool_conversation_sends_the_same_bytes_and_records_the_same_trajectory(
    tool_choice: Any, parallel: bool, options: dict[str, Any]
) -> None:
    async def run(model: CompatChatOpenAI) -> Trajectory:
        return await run_agent(model, [add, describe], _conversation(), tool_choice=tool_choice,
                               parallel_tool_calls=parallel, max_rounds=5)  # fmt: skip

    (before, old), (after, new) = both_paths(_script(), run, params=_PARAMS, options=options)
    assert len(new.raw) == 4 and after.stop_reason == "final" and after.rounds == 3
    assert new.raw == old.raw  # the same path, query and body bytes, request by request
    assert _headers(new) == _headers(old)
    assert _scrubbed(after) == _as_sent(_scrubbed(before))
    replies = [m for m in after.messages if isinstance(m, AIMessage) and m.response_metadata]
    assert [m.response_metadata["token_usage"] for m in replies] == [USAGE] * 4  # as sent
    assert all("logprobs" not in m.response_metadata for m in replies)
    ids = [m.id for m in after.messages if isinstance(m, AIMessage) and m.response_metadata]
    assert len(ids) == 4 and all(re.fullmatch(r"lc_run--[0-9a-f-]{36}-0", i or "") for i in ids)
    # The fields really were sent (the comparison is not between two empty bodies).
    first = new.requests[0]
    assert first["seed"] == 7 and first["top_k"] == 20 and first["temperature"] == 0.3
    assert first["stop"] == ["STOP", "END"] and "tools" in first


def test_every_body_field_and_extra_is_sent_as_the_sdk_sends_it() -> None:
    """All the fields ``create`` takes (response_format included), with extra body,
    headers and query, straight through the SDK resource."""
    payload: dict[str, Any] = {
        "model": "stub-model", "stream": False, "service_tier": "auto",
        "messages": [{"role": "developer", "content": "Be brief ✓"},
                     {"role": "user", "content": "hi", "name": "u"}],
        "audio": {"voice": "alloy", "format": "wav"}, "frequency_penalty": 0.5,
        "function_call": "auto",
        "functions": [{"name": "f", "parameters": {"type": "object", "properties": {}}}],
        "logit_bias": {"1": 2}, "logprobs": True, "max_completion_tokens": 9, "max_tokens": 8,
        "metadata": {"k": "v"}, "modalities": ["text"], "moderation": {"mode": "off"}, "n": 1,
        "parallel_tool_calls": False,
        "prediction": {"type": "content", "content": "x"}, "presence_penalty": -0.5,
        "prompt_cache_key": "pk", "prompt_cache_options": {"ttl": "5m"},
        "prompt_cache_retention": "24h", "reasoning_effort": "high",
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "r", "schema": {"type": "object", "properties": {"a": {"type": "integer"}}},
            "strict": True}},
        "safety_identifier": "sid", "seed": 3, "stop": "\n\n", "store": False,
        "stream_options": {"include_usage": True}, "temperature": 1.5,
        "tool_choice": {"type": "function", "function": {"name": "t"}},
        "tools": [{"type": "function", "function": {
            "name": "t", "description": "d", "parameters": {"type": "object"}, "strict": False}}],
        "top_logprobs": 3, "top_p": 0.5, "user": "someone", "verbosity": "low",
        "web_search_options": {"search_context_size": "low"},
    }  # fmt: skip
    assert set(payload) == set(BODY_FIELDS)
    extras: dict[str, Any] = {
        "extra_body": {"top_k": 5, "seed": 11},  # extra_body wins over a field, as in the SDK
        "extra_headers": {"X-Trace": "t1"},
        "extra_query": {"api-version": "2024"},
        "timeout": 30.0,
    }
    sent = []
    for lean in (False, True):
        with StubServer() as stub:
            stub.push(reply("ok"))

            async def main(stub: StubServer = stub, lean: bool = lean) -> Any:
                client = openai.AsyncOpenAI(base_url=stub.url, api_key="sk-test", max_retries=0)
                completions = RawChatCompletions(client) if lean else client.chat.completions
                try:
                    raw = await completions.with_raw_response.create(**payload, **extras)
                finally:
                    await client.close()
                return raw.parse()

            completion = anyio.run(main)
            assert completion.choices[0].message.content == "ok"
            sent.append((stub.raw, _headers(stub)))
    assert sent[1] == sent[0]
    (path, body), headers = sent[1][0][0], sent[1][1][0]
    assert path.endswith("/chat/completions?api-version=2024")
    assert body.startswith(b'{"model":"stub-model","stream":false,"service_tier":"auto"')
    assert b'"seed":11' in body and b'"top_k":5' in body and "Be brief ✓".encode() in body
    assert headers["authorization"] == "Bearer sk-test" and headers["x-trace"] == "t1"


def test_an_unknown_field_is_refused_as_the_sdk_refuses_it() -> None:
    client = openai.AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="k")

    async def create(completions: Any) -> Any:
        return await completions.create(model="m", messages=[], temprature=0)

    for completions in (client.chat.completions, RawChatCompletions(client)):
        with pytest.raises(TypeError, match="temprature"):
            anyio.run(create, completions)


def test_a_429_then_success_is_retried_the_same_way() -> None:
    script = [error(429, "slow down", headers={"Retry-After": "0"}), reply("hello")]

    async def run(model: CompatChatOpenAI) -> Trajectory:
        return await run_agent(model, [add], "hi", retry=RETRY)

    (before, old), (after, new) = both_paths(script, run)
    assert after.final_answer == "hello" and [s.retries for s in after.steps] == [1]
    assert _scrubbed(after) == _as_sent(_scrubbed(before))
    assert new.raw == old.raw and len(new.raw) == 2
    assert [h["x-stainless-retry-count"] for h in new.headers] == ["0", "0"]  # the engine retries


def test_a_400_ends_the_sample_with_the_same_error() -> None:
    script = [error(400, "bad 'tool_choice' ✗"), reply("never")]

    async def run(model: CompatChatOpenAI) -> Trajectory:
        return await run_agent(model, [add], "hi", retry=RETRY)

    (before, _), (after, new) = both_paths(script, run)
    assert after.stop_reason == "error" and len(new.raw) == 1
    assert after.error == before.error
    assert after.error is not None and after.error.startswith("OpenAIInvalidRequestError: ")
    assert "Error code: 400" in after.error and "bad 'tool_choice' ✗" in after.error

    async def raw_error(model: CompatChatOpenAI) -> BaseException:
        with pytest.raises(openai.BadRequestError) as caught:
            await model.ainvoke("hi")
        return caught.value

    (old_exc, _), (new_exc, _) = both_paths([error(400, "nope")], raw_error)
    assert type(new_exc) is type(old_exc) and new_exc.status_code == 400
    assert new_exc.body == old_exc.body and str(new_exc) == str(old_exc)


def test_a_timeout_is_retried_and_reported_the_same_way() -> None:
    script = [reply("late", delay=2.0), reply("on time")]

    async def run(model: CompatChatOpenAI) -> Trajectory:
        return await run_agent(model, [add], "hi", retry=RETRY)

    options = {"request_timeout": 0.3}
    (before, _), (after, new) = both_paths(script, run, options=options)
    assert after.final_answer == "on time" and after.steps[0].retries == 1
    assert _scrubbed(after) == _as_sent(_scrubbed(before))
    assert new.headers[0]["x-stainless-read-timeout"] == "0.3"

    async def timed_out(model: CompatChatOpenAI) -> str:
        with pytest.raises(openai.APITimeoutError) as caught:
            await model.ainvoke("hi")
        text = f"{type(caught.value).__name__}: {caught.value}"
        return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)  # each stub has a port

    (old_text, _), (new_text, _) = both_paths([reply("late", delay=2.0)], timed_out,
                                              options=options)  # fmt: skip
    assert new_text == old_text and new_text.startswith("OpenAITimeoutError: ")


class _Seen(AsyncCallbackHandler):
    def __init__(self) -> None:
        self.starts = 0
        self.ends: list[Any] = []

    async def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self.starts += 1

    async def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self.ends.append(response)


def test_a_callback_handler_still_sees_every_model_call() -> None:
    """The shortcut past LangChain's callback machinery is only taken when nothing
    watches: a handler (a tracer, say) sees each call and its reply as before."""

    async def run(model: CompatChatOpenAI) -> Any:
        seen = _Seen()
        with_handler = await model.ainvoke("hi", config={"callbacks": [seen]})
        plain = await model.ainvoke("hi")
        return seen, with_handler, plain

    (_, _), ((seen, with_handler, plain), stub) = both_paths([reply("a"), reply("b")], run)
    assert seen.starts == 1 and len(seen.ends) == 1 and len(stub.requests) == 2
    assert seen.ends[0].generations[0][0].message is with_handler
    assert with_handler.content == "a" and plain.content == "b"
    assert plain.response_metadata["model_name"] == with_handler.response_metadata["model_name"]



async def _failure(model: CompatChatOpenAI) -> BaseException:
    with pytest.raises(Exception) as caught:
        await model.ainvoke("hi")
    return caught.value


@pytest.mark.parametrize(
    "body", [[1, 2], "<html>oops</html>", None, {"error": {"message": "overloaded"}}]
)
def test_a_reply_that_is_not_a_completion_fails_the_same_way(body: Any) -> None:
    (old_exc, _), (new_exc, _) = both_paths([StubResponse(body=body)], _failure)
    assert type(new_exc) is type(old_exc) and str(new_exc) == str(old_exc)
    assert isinstance(new_exc, (AttributeError, ValueError))


def test_a_completion_without_choices_is_reported_with_the_keys_it_has() -> None:
    """The one difference in errors: LangChain names the keys of the reply, which are now
    the server's, not the fields of the SDK's model (which made a missing ``choices`` look
    like a null one)."""
    (old_exc, _), (new_exc, _) = both_paths([StubResponse(body={"foo": 1})], _failure)
    assert "null value for 'choices'" in str(old_exc) and "'system_fingerprint'" in str(old_exc)
    assert isinstance(new_exc, KeyError)
    assert str(new_exc) == '"Response missing \'choices\' key: dict_keys([\'foo\'])"'
    (old_exc, _), (new_exc, _) = both_paths([StubResponse(body={"choices": None})], _failure)
    assert type(new_exc) is type(old_exc) is TypeError
    assert str(new_exc).endswith("Full response keys: ['choices']")
