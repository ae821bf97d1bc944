"""A plain script on the openai SDK and the mcp SDK's client, as an agentloop command agent.

    agent: {command: [python, examples/openai_sdk_agent.py]}

Its own loop: ask agentloop's model endpoint, run the reply's calls over MCP, until a reply
without calls, which it prints. The page docs/pages/own-agent.md shows this script.
"""

import asyncio
import json
import os

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from openai import AsyncOpenAI


async def main() -> None:
    task = json.loads(os.environ["AGENTLOOP_TASK"])
    token = os.environ["AGENTLOOP_TOKEN"]
    model = AsyncOpenAI(base_url=os.environ["AGENTLOOP_MODEL_BASE_URL"], api_key=token)
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(os.environ["AGENTLOOP_MCP_URL"], http_client=http) as (r, w, _),
        ClientSession(r, w) as session,
    ):
        await session.initialize()
        tools = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description,
                             "parameters": t.inputSchema},
            }
            for t in (await session.list_tools()).tools
        ]
        messages = task["messages"]
        while True:
            reply = await model.chat.completions.create(
                model="any", messages=messages, tools=tools
            )
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                print(message.content)  # the final answer
                return
            for call in message.tool_calls:
                result = await session.call_tool(
                    call.function.name, json.loads(call.function.arguments)
                )
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": result.content[0].text}
                )


if __name__ == "__main__":
    asyncio.run(main())
