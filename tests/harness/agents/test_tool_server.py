"""An episode's tools over MCP: a real server on 127.0.0.1, the mcp SDK's own client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agentloop.harness.agents._tool_server import ToolServer, serve_tools

SCHEMAS = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        },
    }
]


@asynccontextmanager
async def client(server: ToolServer, token: str | None = None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token or server.token}"}
    async with (
        httpx.AsyncClient(headers=headers) as http,
        streamable_http_client(server.url, http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def _schemas() -> list[dict[str, Any]]:
    return SCHEMAS


def test_tools_are_listed_and_called_through_the_handler() -> None:
    anyio.run(_tools_are_listed_and_called_through_the_handler)


async def _tools_are_listed_and_called_through_the_handler() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def call(name: str, args: dict[str, Any]) -> tuple[str, bool]:
        seen.append((name, args))
        if "a" not in args:
            return "Error: invalid arguments", True
        return str(args["a"] + args["b"]), False

    async with serve_tools(_schemas, call) as server:
        assert server.url.startswith("http://127.0.0.1:")
        async with client(server) as session:
            listed = await session.list_tools()
            assert [(t.name, t.description) for t in listed.tools] == [("add", "Add two numbers.")]
            assert listed.tools[0].inputSchema["required"] == ["a", "b"]
            result = await session.call_tool("add", {"a": 2, "b": 3})
            assert (result.content[0].text, result.isError) == ("5", False)  # type: ignore[union-attr]
            # not validated against the schema by the SDK: the handler's dispatch decides
            failed = await session.call_tool("add", {"b": 3})
            assert (failed.content[0].text, failed.isError) == ("Error: invalid arguments", True)  # type: ignore[union-attr]
    assert seen == [("add", {"a": 2, "b": 3}), ("add", {"b": 3})]


async def _never(name: str, args: dict[str, Any]) -> tuple[str, bool]:
    raise AssertionError("a refused request reached a tool")


def test_a_missing_or_wrong_token_is_refused() -> None:
    anyio.run(_a_missing_or_wrong_token_is_refused)


async def _a_missing_or_wrong_token_is_refused() -> None:
    async with serve_tools(_schemas, _never) as server:
        async with httpx.AsyncClient() as http:
            bare = await http.post(server.url, json={})
            wrong = await http.post(server.url, json={}, headers={"Authorization": "Bearer nope"})
        assert (bare.status_code, wrong.status_code) == (401, 401)
        assert bare.headers["www-authenticate"] == "Bearer"
        # the SDK's own client is refused too (its task group reports the 401)
        with pytest.raises(Exception) as refused:
            async with client(server, token="not-the-token"):
                pass
        (error,) = getattr(refused.value, "exceptions", [refused.value])
        assert isinstance(error, httpx.HTTPStatusError) and error.response.status_code == 401


def test_each_server_has_its_own_token_and_port() -> None:
    anyio.run(_each_server_has_its_own_token_and_port)


async def _each_server_has_its_own_token_and_port() -> None:
    async with serve_tools(_schemas, _never) as one, serve_tools(_schemas, _never) as two:
        assert one.token != two.token and one.base_url != two.base_url
        async with httpx.AsyncClient() as http:
            crossed = await http.post(two.url, json={}, headers=one.headers)
        assert crossed.status_code == 401


def test_the_server_stops_with_its_block() -> None:
    anyio.run(_the_server_stops_with_its_block)


async def _the_server_stops_with_its_block() -> None:
    async with serve_tools(_schemas, _never) as server:
        pass
    with pytest.raises(httpx.ConnectError):
        async with httpx.AsyncClient() as http:
            await http.get(server.base_url)


def test_the_standalone_stream_is_declined() -> None:
    anyio.run(_the_standalone_stream_is_declined)


async def _the_standalone_stream_is_declined() -> None:
    # the spec's 405 for a server that sends nothing unasked; POST still reaches MCP
    async with serve_tools(_schemas, _never) as server, httpx.AsyncClient() as http:
        stream = {**server.headers, "Accept": "text/event-stream"}
        declined = await http.get(server.url, headers=stream)
        assert (declined.status_code, declined.headers["allow"]) == (405, "POST, DELETE")
        assert (await http.get(server.url)).status_code == 401  # the token first
        posted = await http.post(server.url, json={}, headers=server.headers)
        assert posted.status_code not in (401, 405)
