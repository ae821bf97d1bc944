"""What an agent in another process pays per model request and per tool call

Against agentloop's own loop, which calls the model and the tools directly.

The workload: one (sample, epoch) served as for ``agent: {command: [...]}``: the model
endpoint (``POST /v1/chat/completions``) and the MCP server, on 127.0.0.1, behind the
token, answered through the same observer as a command agent's. The model is scripted
(no latency), the tool an async ``add``. Each figure is the median over ``--runs`` runs
of the mean over ``--requests`` sequential requests, client and server in one process
(so the client's own cost is included: the openai SDK's and the mcp SDK's).
Run: ``make bench`` or ``python bench/agent_endpoint.py [--requests N] [--runs R]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx
import openai
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agentloop.engine import run_own_agent
from agentloop.harness.agents._model_endpoint import CHAT_COMPLETIONS, protocol_route
from agentloop.harness.agents._tool_server import serve_tools
from agentloop.testing import ScriptedChatModel


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def _mean_ms(n: int, one: Callable[[int], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    for i in range(n):
        await one(i)
    return (time.perf_counter() - started) / n * 1000


def _measure(n: int) -> dict[str, float]:
    out: dict[str, float] = {}
    chat = [{"role": "user", "content": "What is 1 + 1?"}]

    def factory(model: Any, tools: list[Any]) -> Any:
        observer = model.observer
        schemas = [convert_to_openai_tool(t) for t in tools]

        async def listed() -> list[Any]:
            return schemas

        async def call(name: str, args: dict[str, Any]) -> tuple[str, bool]:
            message = await observer.run_tool(name, observer.unseen_call(name, args), args)
            return str(message.content), message.status == "error"

        async def agent(messages: Any) -> str:
            out["model, direct"] = await _mean_ms(
                n, lambda _: observer.call_model(observer.model, messages)
            )
            out["tool, direct"] = await _mean_ms(
                n, lambda i: observer.run_tool("add", None, {"a": i, "b": 1})
            )
            routes = [protocol_route(CHAT_COMPLETIONS, observer, tools)]
            async with serve_tools(listed, call, routes=routes) as server:
                url = f"{server.base_url}/v1/chat/completions"
                async with httpx.AsyncClient(headers=server.headers) as http:
                    out["model, endpoint (httpx)"] = await _mean_ms(
                        n, lambda _: http.post(url, json={"messages": chat})
                    )
                client = openai.AsyncOpenAI(base_url=f"{server.base_url}/v1", api_key=server.token)
                out["model, endpoint (openai SDK)"] = await _mean_ms(
                    n,
                    lambda _: client.chat.completions.create(model="m", messages=chat),  # type: ignore[arg-type]
                )
                await client.close()
                async with (
                    httpx.AsyncClient(headers=server.headers, timeout=30) as http,
                    streamable_http_client(server.url, http_client=http) as (read, write, _),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    out["tool, MCP (mcp SDK)"] = await _mean_ms(
                        n, lambda i: session.call_tool("add", {"a": i, "b": 2})
                    )
            return ""

        return agent

    model = ScriptedChatModel(["ok"] * (3 * n + 1))
    anyio.run(lambda: run_own_agent(factory, model, [add], "hi", max_rounds=10 * n))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average at the start: {', '.join(f'{v:.1f}' for v in os.getloadavg())}")
    print(f"{args.requests} sequential requests of each kind per run, {args.runs} runs\n")
    runs = [_measure(args.requests) for _ in range(args.runs)]
    median = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(f"{'path':<30} {'ms each':>8} {'spread':>13} {'added ms':>9}")
    for key, value in median.items():
        spread = f"{min(r[key] for r in runs):.3f}-{max(r[key] for r in runs):.3f}"
        base = median["model, direct" if key.startswith("model") else "tool, direct"]
        added = "" if key.endswith("direct") else f"{value - base:9.3f}"
        print(f"{key:<30} {value:>8.3f} {spread:>13} {added:>9}")


if __name__ == "__main__":
    from bench_page import publish

    raise SystemExit(publish("agent-endpoint", main))
