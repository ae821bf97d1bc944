"""The model endpoint's other protocols, each driven by its own SDK as an agent in another
process would: chat completions streamed, OpenAI's Responses API, Anthropic's messages.
Each agent loops until its model answers, its tools called over MCP; the record is the
native loop's with the same model, so each request is recorded, limited and counted as
chat completions are."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp")
pytest.importorskip("openai")

import openai
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agentloop.engine import message_to_openai, run_agent, run_own_agent
from agentloop.harness.agents._external import Served, external_factory
from agentloop.testing import ScriptedChatModel

USAGE = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
QUESTION = "What is 1 + 1, then plus 2?"


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _asks(call_id: str, a: int, b: int) -> AIMessage:
    call = {"name": "add", "args": {"a": a, "b": b}, "id": call_id, "type": "tool_call"}
    return AIMessage(content="", tool_calls=[call], usage_metadata=USAGE)


def _replies() -> list[Any]:
    # a reply with text and a call, then a call alone, then the answer
    first = _asks("c1", 1, 1)
    first.content = "First 1 + 1."
    return [first, _asks("c2", 2, 2), AIMessage("It is 4.", usage_metadata=USAGE)]


class Tools:
    """The MCP tools of one served call, for an agent of the test."""

    def __init__(self, served: Served) -> None:
        self.served = served

    async def __aenter__(self) -> Tools:
        self.http = httpx.AsyncClient(headers={"Authorization": f"Bearer {self.served.token}"})
        self.stream = streamable_http_client(self.served.mcp_url, http_client=self.http)
        read, write, _ = await self.stream.__aenter__()
        self.session = ClientSession(read, write)
        await self.session.__aenter__()
        await self.session.initialize()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.session.__aexit__(*exc)
        await self.stream.__aexit__(*exc)
        await self.http.aclose()

    async def call(self, name: str, args: dict[str, Any]) -> str:
        result = await self.session.call_tool(name, args)
        return str(result.content[0].text)  # type: ignore[union-attr]


def _run(launch: Any, **limits: Any) -> Any:
    model = ScriptedChatModel(_replies())
    return anyio.run(
        lambda: run_own_agent(external_factory(launch), model, [add], QUESTION, **limits)
    ), model


def _native(**limits: Any) -> Any:
    return anyio.run(lambda: run_agent(ScriptedChatModel(_replies()), [add], QUESTION, **limits))


def _wire(messages: list[Any]) -> list[dict[str, Any]]:
    return [message_to_openai(m) for m in messages]


def _same_as_native(run: Any) -> None:
    assert run.failed is None
    native = _native()
    trajectory = run.trajectory
    assert _wire(trajectory.messages) == _wire(native.messages)
    assert trajectory.stop_reason == native.stop_reason == "final"
    assert [s.usage for s in trajectory.steps] == [s.usage for s in native.steps]
    assert [c.status for s in trajectory.steps for c in s.tool_calls] == ["ok", "ok"]
    assert run.notes == []


def test_chat_completions_streamed_as_openai_streams_them() -> None:
    seen: dict[str, Any] = {}

    async def launch(served: Served, notes: list[str]) -> str:
        client = openai.AsyncOpenAI(base_url=served.model_base_url, api_key=served.token)
        messages = served.task["messages"]
        async with client, Tools(served) as tools:
            while True:
                stream = await client.chat.completions.create(
                    model="m", messages=messages, tools=served.task["tools"], stream=True,
                    stream_options={"include_usage": True},
                )  # fmt: skip
                text, calls, usage, finish = "", {}, None, None
                async for chunk in stream:
                    usage = chunk.usage or usage
                    for choice in chunk.choices:
                        finish = choice.finish_reason or finish
                        text += choice.delta.content or ""
                        for part in choice.delta.tool_calls or []:
                            calls.setdefault(part.index, {"id": part.id, "args": ""})
                            calls[part.index]["name"] = part.function.name
                            calls[part.index]["args"] += part.function.arguments or ""
                seen.setdefault("finish", []).append(finish)
                seen.setdefault("usage", []).append(usage.total_tokens)
                message: dict[str, Any] = {"role": "assistant", "content": text}
                if calls:
                    message["tool_calls"] = [
                        {"id": c["id"], "type": "function",
                         "function": {"name": c["name"], "arguments": c["args"]}}
                        for c in calls.values()
                    ]  # fmt: skip
                messages.append(message)
                if not calls:
                    return text
                for c in calls.values():
                    result = await tools.call(c["name"], json.loads(c["args"]))
                    messages.append({"role": "tool", "tool_call_id": c["id"], "content": result})

    run, _ = _run(launch)
    _same_as_native(run)
    assert seen["finish"] == ["tool_calls", "tool_calls", "stop"]
    assert seen["usage"] == [15, 15, 15]


@pytest.mark.parametrize("streamed", [False, True])
def test_the_responses_api_as_openais_sdk_speaks_it(streamed: bool) -> None:
    seen: dict[str, Any] = {}

    async def launch(served: Served, notes: list[str]) -> str:
        client = openai.AsyncOpenAI(base_url=served.model_base_url, api_key=served.token)
        (system, user) = served.task["messages"] if len(served.task["messages"]) == 2 else (
            None, served.task["messages"][0])  # fmt: skip
        functions = [
            {"type": "function", **{k: t["function"][k] for k in ("name", "parameters")},
             "description": t["function"].get("description")}
            for t in served.task["tools"]
        ]  # fmt: skip
        items: list[Any] = [{"role": "user", "content": user["content"]}]
        async with client, Tools(served) as tools:
            with pytest.raises(openai.BadRequestError) as stored:
                await client.responses.create(model="m", input=items, previous_response_id="r")
            seen["stored"] = str(stored.value)
            while True:
                request: dict[str, Any] = dict(
                    model="m", input=items, tools=functions, store=False,
                    instructions=system["content"] if system else None,
                )  # fmt: skip
                if streamed:  # the SDK's helper builds the response from the events
                    async with client.responses.stream(**request) as events:
                        kinds = [event.type async for event in events]
                        response = await events.get_final_response()
                    seen.setdefault("events", []).append(kinds)
                else:
                    response = await client.responses.create(**request)
                seen.setdefault("usage", []).append(response.usage.total_tokens)
                seen.setdefault("kinds", []).append([o.type for o in response.output])
                items += [o.model_dump(exclude_none=True) for o in response.output]
                calls = [o for o in response.output if o.type == "function_call"]
                if not calls:
                    return response.output_text
                for c in calls:
                    result = await tools.call(c.name, json.loads(c.arguments))
                    items.append(
                        {"type": "function_call_output", "call_id": c.call_id, "output": result}
                    )

    run, _ = _run(launch)
    _same_as_native(run)
    assert seen["kinds"] == [["message", "function_call"], ["function_call"], ["message"]]
    assert seen["usage"] == [15, 15, 15]
    assert "send the whole input (store=false)" in seen["stored"]
    if streamed:
        assert seen["events"][1] == [
            "response.created", "response.in_progress", "response.output_item.added",
            "response.function_call_arguments.delta", "response.function_call_arguments.done",
            "response.output_item.done", "response.completed",
        ]  # fmt: skip
        assert "response.output_text.delta" in seen["events"][2]


@pytest.mark.parametrize("streamed", [False, True])
def test_anthropics_messages_as_anthropics_sdk_speaks_them(streamed: bool) -> None:
    anthropic = pytest.importorskip("anthropic")
    seen: dict[str, Any] = {}

    async def launch(served: Served, notes: list[str]) -> str:
        # Anthropic's base URL has no /v1; its key header (x-api-key) carries the token
        base = served.model_base_url.removesuffix("/v1")
        client = anthropic.AsyncAnthropic(base_url=base, api_key=served.token, max_retries=0)
        tools_ = [
            {"name": t["function"]["name"], "description": t["function"].get("description", ""),
             "input_schema": t["function"]["parameters"]}
            for t in served.task["tools"]
        ]  # fmt: skip
        messages: list[Any] = [
            {"role": "user", "content": m["content"]}
            for m in served.task["messages"]
            if m["role"] == "user"
        ]
        async with client, Tools(served) as tools:
            while True:
                request = dict(model="m", max_tokens=100, messages=messages, tools=tools_)
                if streamed:  # the SDK's helper builds the message from the events
                    async with client.messages.stream(**request) as events:
                        reply = await events.get_final_message()
                else:
                    reply = await client.messages.create(**request)
                seen.setdefault("stops", []).append(reply.stop_reason)
                seen.setdefault("usage", []).append(reply.usage.output_tokens)
                messages.append({"role": "assistant", "content": [
                    b.model_dump(exclude_none=True) for b in reply.content]})  # fmt: skip
                uses = [b for b in reply.content if b.type == "tool_use"]
                if not uses:
                    return "".join(b.text for b in reply.content if b.type == "text")
                results = [
                    {"type": "tool_result", "tool_use_id": u.id,
                     "content": await tools.call(u.name, dict(u.input))}
                    for u in uses
                ]  # fmt: skip
                messages.append({"role": "user", "content": results})

    run, _ = _run(launch)
    _same_as_native(run)
    assert seen["stops"] == ["tool_use", "tool_use", "end_turn"]
    assert seen["usage"] == [5, 5, 5]


def test_every_protocol_is_held_to_the_limits_and_the_token() -> None:
    seen: dict[str, Any] = {}

    async def launch(served: Served, notes: list[str]) -> str:
        base = served.model_base_url
        async with httpx.AsyncClient() as http:
            chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
            wrong = {"Authorization": "Bearer nope", "x-api-key": "nope"}
            seen["no token"] = [
                (await http.post(f"{base}/{path}", json=chat, headers=wrong)).status_code
                for path in ("chat/completions", "responses", "messages")
            ]
            auth = {"Authorization": f"Bearer {served.token}"}
            first = await http.post(f"{base}/chat/completions", json=chat, headers=auth)
            assert first.status_code == 200
            # token_limit=10: the first reply reaches it, every next request is refused
            seen["refused"] = [
                (await http.post(f"{base}/{path}", json=body, headers=auth)).json()
                for path, body in (
                    ("responses", {"model": "m", "input": "hi"}),
                    ("messages", {"model": "m", "max_tokens": 9, "messages": chat["messages"]}),
                    ("chat/completions", {**chat, "stream": True}),
                )
            ]
            seen["garbage"] = [
                (await http.post(f"{base}/{path}", json=body, headers=auth)).json()
                for path, body in (
                    ("responses", {"input": [{"type": "web_search_call"}]}),
                    ("messages", {"messages": [{"role": "user", "content": [{"type": "image"}]}]}),
                )
            ]
        return ""

    run, model = _run(launch, token_limit=10)
    assert seen["no token"] == [401, 401, 401]
    assert [r.get("type") for r in seen["refused"]] == [None, "error", None]
    assert "the run has ended (token_limit)" in seen["refused"][0]["error"]["message"]
    assert seen["refused"][1]["error"]["type"] == "permission_error"
    assert seen["refused"][2]["error"]["type"] == "agentloop_limit"
    assert "unsupported item type 'web_search_call'" in seen["garbage"][0]["error"]["message"]
    assert "unsupported block type 'image'" in seen["garbage"][1]["error"]["message"]
    assert model.calls == 1
    assert run.trajectory.stop_reason == "token_limit"
    assert len(run.trajectory.steps) == 1
