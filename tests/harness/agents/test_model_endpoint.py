"""The model endpoint an agent in another process speaks to: OpenAI chat completions on
127.0.0.1, answered by the run's model through the observer, driven here by the real
``openai`` client."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp")
pytest.importorskip("openai")

import openai
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from agentloop.engine import run_own_agent
from agentloop.harness.agents._model_endpoint import CHAT_COMPLETIONS, protocol_route
from agentloop.harness.agents._tool_server import serve_tools
from agentloop.testing import ScriptedChatModel

USAGE = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _asks(k: int) -> AIMessage:
    call = {"name": "add", "args": {"a": k, "b": 1}, "id": f"c{k}", "type": "tool_call"}
    return AIMessage(content="", tool_calls=[call], usage_metadata=USAGE)  # type: ignore[arg-type]


ADD = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two integers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    },
}


def test_the_endpoint_answers_as_openai_and_refuses_what_it_must() -> None:
    seen: dict[str, Any] = {}

    def factory(model: Any, tools: list[Any]) -> Any:
        async def listed() -> list[Any]:
            return []

        async def call(name: str, args: dict[str, Any]) -> tuple[str, bool]:
            raise AssertionError("no tool is called over MCP here")

        async def agent(messages: Any) -> str:
            routes = [protocol_route(CHAT_COMPLETIONS, model.observer, tools)]
            async with serve_tools(listed, call, routes=routes) as server:
                url = f"{server.base_url}/v1"
                body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
                async with httpx.AsyncClient() as http:
                    seen["bare"] = (
                        await http.post(f"{url}/chat/completions", json=body)
                    ).status_code
                client = openai.AsyncOpenAI(base_url=url, api_key=server.token, max_retries=0)
                chat = [{"role": "user", "content": "What is 1 + 1?"}]
                with pytest.raises(openai.BadRequestError) as several:
                    await client.chat.completions.create(model="m", messages=chat, n=2)
                seen["n"] = str(several.value)
                with pytest.raises(openai.BadRequestError) as odd:
                    await client.chat.completions.create(
                        model="m", messages=chat, extra_body={"frobnicate": 1}
                    )
                seen["odd"] = str(odd.value)
                first = await client.chat.completions.create(model="m", messages=chat, tools=[ADD])
                seen["first"] = first
                chat.append(first.choices[0].message.model_dump(exclude_none=True))
                chat.append({"role": "tool", "tool_call_id": "c1", "content": "2"})
                # max_rounds=1: this reply's calls are refused, the next request too
                await client.chat.completions.create(model="m", messages=chat, tools=[ADD])
                with pytest.raises(openai.PermissionDeniedError) as refused:
                    await client.chat.completions.create(model="m", messages=chat, tools=[ADD])
                seen["refused"] = refused.value
                await client.close()
            return ""  # no answer: nothing more is recorded

        return agent

    model = ScriptedChatModel([_asks(1), _asks(2), "never"])
    run = anyio.run(lambda: run_own_agent(factory, model, [add], "What is 1 + 1?", max_rounds=1))

    assert seen["bare"] == 401
    assert "n: one choice per request" in seen["n"]
    assert "unsupported field(s): frobnicate" in seen["odd"]
    first = seen["first"]
    (choice,) = first.choices
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    assert [(c.id, c.function.name, c.function.arguments) for c in choice.message.tool_calls] == [
        ("c1", "add", '{"a": 1, "b": 1}')
    ]
    assert (first.usage.prompt_tokens, first.usage.completion_tokens) == (10, 5)
    refused = seen["refused"]
    assert refused.status_code == 403
    assert refused.body["type"] == "agentloop_limit"
    assert "the run has ended (max_rounds)" in refused.body["message"]

    trajectory = run.trajectory
    assert trajectory.stop_reason == "max_rounds"
    assert len(trajectory.steps) == 2  # the refused request is no step
    assert [s.usage.total_tokens for s in trajectory.steps if s.usage] == [15, 15]
    statuses = [c.status for s in trajectory.steps for c in s.tool_calls]
    # c1 was answered in the agent's own request, not run over MCP: recorded with its text
    assert statuses == ["ok", "round_limit"]
    assert trajectory.messages[2].content == "2"
    assert model.calls == 2


def test_the_token_limit_refuses_at_the_endpoint() -> None:
    seen: dict[str, Any] = {}

    def factory(model: Any, tools: list[Any]) -> Any:
        async def listed() -> list[Any]:
            return []

        async def call(name: str, args: dict[str, Any]) -> tuple[str, bool]:
            raise AssertionError("no tool is called over MCP here")

        async def agent(messages: Any) -> str:
            routes = [protocol_route(CHAT_COMPLETIONS, model.observer, tools)]
            async with serve_tools(listed, call, routes=routes) as server:
                client = openai.AsyncOpenAI(
                    base_url=f"{server.base_url}/v1", api_key=server.token, max_retries=0
                )
                chat = [{"role": "user", "content": "What is 1 + 1?"}]
                await client.chat.completions.create(model="m", messages=chat, tools=[ADD])
                with pytest.raises(openai.PermissionDeniedError) as refused:
                    await client.chat.completions.create(model="m", messages=chat, tools=[ADD])
                seen["refused"] = refused.value.body["message"]
                await client.close()
            return ""

        return agent

    model = ScriptedChatModel([_asks(1), "never"])
    run = anyio.run(lambda: run_own_agent(factory, model, [add], "What is 1 + 1?", token_limit=10))
    assert "the run has ended (token_limit)" in seen["refused"]
    assert run.trajectory.stop_reason == "token_limit"
    # the reply that reached the limit has its call refused, as the loop refuses it
    assert [c.status for s in run.trajectory.steps for c in s.tool_calls] == ["not_run"]
    assert "token limit (10) was reached" in run.trajectory.messages[2].content
    assert model.calls == 1
