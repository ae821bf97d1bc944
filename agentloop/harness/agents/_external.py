"""An agent outside agentloop's process (a command, an HTTP service): what every such
agent gets per call, and how its failure is read.

A factory for ``agentloop.engine.run_own_agent``: at each agent call it serves, on
127.0.0.1 with a fresh token, the row's tools over MCP (``_tool_server``) and the run's
model behind the model endpoint (chat completions, ``_model_endpoint``; the Responses API,
``_responses_api``; Anthropic's messages, ``_anthropic_messages``), both
answering through the episode's observer, then hands ``launch`` where they are and the
task; ``launch`` returns the agent's final answer. A call over MCP that a model reply asked
for is run as that reply's call; one no reply asked for (the agent called its model
elsewhere) is recorded as a reply of its own with tokens unknown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from agentloop.engine import AgentFactory, AgentStopped, Observer, message_to_openai
from agentloop.harness.agents._anthropic_messages import MESSAGES
from agentloop.harness.agents._model_endpoint import CHAT_COMPLETIONS, protocol_route
from agentloop.harness.agents._responses_api import RESPONSES
from agentloop.harness.agents._tool_server import serve_tools

__all__ = ["DEFAULT_TIME_LIMIT", "ExternalAgentError", "Served", "external_factory"]

DEFAULT_TIME_LIMIT = 600.0
"""Seconds an external agent's call may take when the config sets no ``time_limit``."""


class ExternalAgentError(RuntimeError):
    """The agent failed (it crashed, answered garbage, could not be reached): the sample's
    error, with what came back in the text."""


@dataclass(frozen=True)
class Served:
    """What one agent call gets: where the tools and the model are, and the task."""

    mcp_url: str
    """The row's tools, MCP over streamable HTTP."""
    model_base_url: str
    """The model endpoint's OpenAI base URL, ending in ``/v1``."""
    token: str
    """The bearer token both require, fresh per call."""
    task: dict[str, Any]
    """``{"messages", "tools"}``: the conversation so far and the tools, OpenAI chat dicts."""
    episode: dict[str, Any] = field(default_factory=dict)
    """``{"sample_id", "epoch"}`` of the run's (sample, epoch); empty outside a run."""


Launch = Callable[[Served, list[str]], Awaitable[str]]
"""Runs the agent once (the second argument is the episode's notes) and returns its answer;
raises ``ExternalAgentError`` when it failed."""


def external_factory(launch: Launch) -> AgentFactory:
    """A factory for ``run_own_agent`` running ``launch`` per agent call (the module doc)."""

    def factory(model: Any, tools: list[Any], episode: dict[str, Any] | None = None) -> Any:
        observer: Observer = model.observer
        schemas = [convert_to_openai_tool(tool) for tool in tools]

        async def listed() -> list[Any]:
            return schemas

        async def call(name: str, args: dict[str, Any]) -> tuple[str, bool]:
            call_id = observer.unseen_call(name, args)
            if call_id is None:
                return "Error: the episode has ended; the call was not run.", True
            message = await observer.run_tool(name, call_id, args)
            return str(message.content), message.status == "error"

        routes = [
            protocol_route(p, observer, tools) for p in (CHAT_COMPLETIONS, RESPONSES, MESSAGES)
        ]

        async def agent(messages: list[BaseMessage]) -> str:
            failed: ExternalAgentError | None = None
            async with serve_tools(listed, call, routes=routes) as server:
                task = {"messages": [message_to_openai(m) for m in messages], "tools": schemas}
                served = Served(
                    server.url, f"{server.base_url}/v1", server.token, task, dict(episode or {})
                )
                try:
                    return await launch(served, observer.notes)
                except ExternalAgentError as exc:  # raised here, not in the server's task group
                    failed = exc
            assert failed is not None  # the block returned otherwise
            if observer.ended is not None:  # refused at a limit, the agent gave up: a stop
                observer.notes.append(str(failed))
                raise AgentStopped(observer.ended)
            raise failed

        return agent

    return factory
