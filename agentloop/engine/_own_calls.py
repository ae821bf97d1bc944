"""The calls of an agent of your own: made by its factory, then called once per turn (a
row's turns in ``_own_agent``, a simulated user's in ``_own_conversation``) with the
conversation so far, each call observed by an :class:`Observer` of its own (rounds per
call, as the loop counts them per turn; tokens across the run) and appended to the one
record.

The factory receives the chat model and the tools (``_observer``: every request and every
call goes through agentloop) and returns the agent: a LangChain ``Runnable`` or LangGraph
graph over ``{"messages": [...]}`` (``create_react_agent``'s convention), or an async
callable taking the messages and returning messages, or its final answer alone (a string:
an agent in another process, ``agentloop.harness.agents._command``). The messages the
agent returns are checked against the record; a difference is a note, not a change of it.

A turn that adds tools gives a new binding: the factory is called again with all the tools
so far (a graph binds its tools when it is made), and the new agent gets the conversation.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, convert_to_messages
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from agentloop.engine._budget import Budget
from agentloop.engine._observer import AgentStopped, ObservedModel, ObservedTool, Observer
from agentloop.engine._rounds import ToolBinding
from agentloop.engine._trajectory import StepRecord, StopReason, Trajectory
from agentloop.engine._wire import message_to_openai

__all__ = ["AgentCalls", "AgentFactory", "OwnAgentRun"]

AgentFactory = Callable[..., Any]
"""``factory(model, tools, **args)``: the agent (a Runnable over ``{"messages": [...]}`` or
an async callable over messages); may be async itself."""


@dataclass
class OwnAgentRun:
    """What running an agent of your own gave."""

    trajectory: Trajectory
    """What agentloop observed, in the loop's record format."""
    failed: Literal["agent", "model"] | None = None
    """Who ended the run with an error (``trajectory.error`` says how), if anyone did."""
    notes: list[str] = field(default_factory=list)
    """Where the agent's own account differs from the record, one line each."""


def _observed_tools(tools: Sequence[Any], observer: Any) -> list[ObservedTool]:
    proxies = []
    for item in tools:
        if isinstance(item, BaseTool):
            name, description, schema = item.name, item.description, item.tool_call_schema
        else:
            function = convert_to_openai_tool(item)["function"]
            name, description = function["name"], function.get("description", "")
            schema = function.get("parameters") or {"type": "object", "properties": {}}
        proxies.append(
            ObservedTool(name=name, description=description, args_schema=schema, observer=observer)
        )
    return proxies


async def _invoke(agent: Any, messages: list[BaseMessage], recursion_limit: int) -> Any:
    if hasattr(agent, "ainvoke"):  # a Runnable: a LangGraph graph, a LangChain chain
        config = {"recursion_limit": recursion_limit}
        return await agent.ainvoke({"messages": messages}, config=config)
    if not callable(agent):
        raise TypeError(
            f"the factory returned {type(agent).__name__}; expected a Runnable over "
            "{'messages': [...]} or an async callable over messages"
        )
    result = agent(messages)
    return await result if inspect.isawaitable(result) else result


def _returned_messages(result: Any) -> list[BaseMessage]:
    if isinstance(result, dict) and "messages" in result:
        result = result["messages"]
    if not isinstance(result, list | tuple):
        raise TypeError(
            f"the agent returned {type(result).__name__}; expected messages or "
            "{'messages': [...]}"
        )
    return list(convert_to_messages(list(result)))


def _difference(returned: list[BaseMessage], observed: list[BaseMessage]) -> str | None:
    """Where the agent's messages part from the record (system messages the agent added
    to its own requests aside), or None."""
    theirs = [message_to_openai(m) for m in returned]
    ours = [message_to_openai(m) for m in observed]
    theirs = [m for m in theirs if m["role"] != "system" or m in ours]
    for index, (a, b) in enumerate(zip(theirs, ours, strict=False)):
        if a != b:
            return (
                f"the agent's message {index} ({a['role']}) is not the one agentloop recorded "
                f"({b['role']}); the record is scored"
            )
    if len(theirs) != len(ours):
        return (
            f"the agent returned {len(theirs)} messages and agentloop recorded {len(ours)}; "
            "the record is scored"
        )
    return None


class _Current:
    """What the agent's model and tools report to: the observer of the call running now."""

    def __init__(self) -> None:
        self.observer: Observer | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["observer"], name)


class AgentCalls:
    """The agent side of a run: one agent call per ``run``, on the shared ``history``,
    what it did appended there and to ``steps``."""

    def __init__(
        self,
        factory: AgentFactory,
        factory_args: dict[str, Any],
        model: BaseChatModel,
        history: list[BaseMessage],
        *,
        budget: Budget | None,
        max_rounds: int,
        token_limit: int | None,
        observer_args: dict[str, Any],
    ) -> None:
        self.factory, self.factory_args = factory, factory_args
        self.model, self.history, self.budget = model, history, budget
        self.observer_args = observer_args
        self.max_rounds, self.token_limit = max_rounds, token_limit
        self.current = _Current()
        self.agent: Any = None
        self.binding: ToolBinding | None = None
        """The tools the agent was made with: a new binding (a turn added tools) remakes it."""
        self.steps: list[StepRecord] = []
        self.tokens = 0
        self.opening: list[BaseMessage] = []
        self.failed: Literal["agent", "model"] | None = None
        self.notes: list[str] = []

    def _observer(self, binding: ToolBinding) -> Observer:
        return Observer(
            self.model,
            binding.executor,
            dict(zip(binding.names, binding.tools, strict=True)),
            max_rounds=self.max_rounds,
            token_limit=self.token_limit,
            tokens_before=self.tokens,
            history=self.history,
            budget=self.budget,  # counted per step: a limit stops the agent mid-call
            **self.observer_args,
        )

    async def run(self, binding: ToolBinding) -> tuple[StopReason, str | None]:
        """One agent call on the conversation so far, with ``binding``'s tools; what it did
        is appended."""
        observer = self.current.observer = self._observer(binding)
        self.opening = list(self.history)
        returned: list[BaseMessage] | None = None
        try:
            if self.agent is None or binding is not self.binding:
                agent = self.factory(
                    ObservedModel(observer=self.current, cache=False, disable_streaming=True),
                    _observed_tools(binding.tools, self.current),
                    **self.factory_args,
                )
                self.agent = await agent if inspect.isawaitable(agent) else agent
                self.binding = binding
            # An agent loop makes two graph steps a round: room for every round, and more.
            messages = [m.model_copy() for m in self.opening]
            result = await _invoke(self.agent, messages, 2 * self.max_rounds + 10)
            if isinstance(result, str):  # an answer alone: what it did, agentloop observed
                observer.unseen_answer(result)
            else:
                returned = _returned_messages(result)
        except AgentStopped:
            pass  # the observer knows why
        except Exception as exc:
            if observer.ended != "error":
                self.flush(returned)
                self.failed = "agent"
                return "error", f"{type(exc).__name__}: {exc}"
        self.flush(returned)
        if observer.ended == "error":
            self.failed = "model"
            return "error", observer.error
        return observer.ended or "final", None

    def flush(self, returned: list[BaseMessage] | None) -> None:
        """Append what the current observer recorded to the conversation and count it."""
        observer = self.current.observer
        if observer is None:
            return
        self.current.observer = None
        if returned is not None:
            observer.own_answers(returned)
        history = observer.history(self.opening)
        self.history.extend(history[len(self.opening) :])
        self.steps.extend(observer.steps)
        self.tokens += observer.tokens
        self.notes += [n for n in observer.notes if n not in self.notes]
        if returned is not None and (found := _difference(returned, history)):
            self.notes.append(found)

    def stop_running(self, seconds: float) -> None:
        """The time limit stopped the agent: its running calls answered, its record kept."""
        if self.current.observer is not None:
            self.current.observer.stop_running(seconds)
            self.flush(None)
