"""A pydantic-ai agent as an agentloop command agent.

    agent: {command: [python, examples/pydantic_ai_agent.py]}

The Agent runs an OpenAI chat model on agentloop's model endpoint and calls the row's tools
through its MCP toolset (streamable HTTP); the output is printed. Needs
`pip install 'agentloop[pydantic-ai]'`.
"""

import asyncio
import json
import os
import sys
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def as_history(messages: list[dict[str, Any]]) -> list[ModelMessage]:
    """The task's chat messages as pydantic-ai's history: requests (system, user, tool
    results) and responses (text, tool calls)."""
    history: list[ModelMessage] = []
    request: list[ModelRequestPart] = []
    names: dict[str, str] = {}  # a tool result names its tool in pydantic-ai
    for message in messages:
        role, content = message["role"], message.get("content") or ""
        if role == "assistant":
            if request:
                history.append(ModelRequest(parts=request))
                request = []
            parts: list[ModelResponsePart] = [TextPart(content)] if content else []
            for call in message.get("tool_calls") or []:
                names[call["id"]] = call["function"]["name"]
                parts.append(ToolCallPart(call["function"]["name"], call["function"]["arguments"],
                                          tool_call_id=call["id"]))  # fmt: skip
            history.append(ModelResponse(parts=parts))
        elif role == "tool":
            call_id = message["tool_call_id"]
            request.append(ToolReturnPart(names[call_id], content, tool_call_id=call_id))
        elif role == "system":
            request.append(SystemPromptPart(content))
        else:
            request.append(UserPromptPart(content))
    if request:
        history.append(ModelRequest(parts=request))
    return history


async def main() -> None:
    task = json.load(sys.stdin)  # {"messages": [...], "tools": [...]}, as AGENTLOOP_TASK
    token = os.environ["AGENTLOOP_TOKEN"]
    provider = OpenAIProvider(base_url=os.environ["AGENTLOOP_MODEL_BASE_URL"], api_key=token)
    # "failed": a tool's error goes back to the model as its result, as agentloop's loop does
    # (pydantic-ai's default asks the model to retry)
    tools = MCPToolset(os.environ["AGENTLOOP_MCP_URL"], auth=token, tool_error_behavior="failed")
    agent = Agent(OpenAIChatModel("agentloop", provider=provider), toolsets=[tools])
    async with agent:
        result = await agent.run(message_history=as_history(task["messages"]))
    print(result.output)


if __name__ == "__main__":
    asyncio.run(main())
