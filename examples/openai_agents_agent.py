"""An OpenAI Agents SDK agent as an agentloop command agent.

    agent: {command: [python, examples/openai_agents_agent.py]}

The SDK's Agent runs on agentloop's model endpoint (chat completions) and calls the row's
tools through the SDK's own MCP client; the final output is printed. Tracing is off, so
nothing leaves the machine. Needs `pip install 'agentloop[openai-agents]'`.
"""

import asyncio
import json
import os
import sys
from typing import Any

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp
from openai import AsyncOpenAI


def as_input_items(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The task's chat messages as the SDK's input items (Responses API shapes)."""
    items: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "tool":
            items.append({"type": "function_call_output", "call_id": message["tool_call_id"],
                          "output": message["content"]})  # fmt: skip
            continue
        if message.get("content"):
            items.append({"role": role, "content": message["content"]})
        for call in message.get("tool_calls") or []:
            items.append({"type": "function_call", "call_id": call["id"],
                          "name": call["function"]["name"],
                          "arguments": call["function"]["arguments"]})  # fmt: skip
    return items


async def main() -> None:
    task = json.load(sys.stdin)  # {"messages": [...], "tools": [...]}, as AGENTLOOP_TASK
    token = os.environ["AGENTLOOP_TOKEN"]
    client = AsyncOpenAI(base_url=os.environ["AGENTLOOP_MODEL_BASE_URL"], api_key=token)
    tools = MCPServerStreamableHttp(
        {"url": os.environ["AGENTLOOP_MCP_URL"], "headers": {"Authorization": f"Bearer {token}"}},
        cache_tools_list=True,
        client_session_timeout_seconds=60,
    )
    async with tools:
        agent = Agent(
            name="agent",
            model=OpenAIChatCompletionsModel(model="agentloop", openai_client=client),
            mcp_servers=[tools],
        )
        # the system prompt comes with the task's messages: no instructions of the SDK's own
        result = await Runner.run(agent, as_input_items(task["messages"]), max_turns=100)
    print(result.final_output or "")


if __name__ == "__main__":
    set_tracing_disabled(True)  # the SDK would send traces to OpenAI
    asyncio.run(main())
