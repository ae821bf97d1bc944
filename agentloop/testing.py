"""Test doubles shipped with the package: chat models that need no network.

``ScriptedChatModel`` replays fixed replies in strict order and fails loudly when it
runs out; ``FunctionChatModel`` computes each reply with a function. Both support
``bind_tools`` and record what was bound and what they were asked.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import anyio
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, convert_to_messages
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr

from agentloop.engine._wire import from_wire
from agentloop.errors import ScriptExhaustedError

__all__ = ["FunctionChatModel", "ScriptedChatModel", "to_ai_message", "tool_call"]

Reply = AIMessage | dict[str, Any] | str | BaseException


def to_ai_message(reply: AIMessage | dict[str, Any] | str) -> AIMessage:
    """An ``AIMessage`` from a message, an OpenAI-format assistant dict, or plain text."""
    if isinstance(reply, AIMessage):
        return reply
    if isinstance(reply, str):
        return AIMessage(content=reply)
    if isinstance(reply, dict):
        data = {"role": "assistant", **reply}
        if data.get("content") is None:
            data["content"] = ""
        calls = data.pop("tool_calls", None)
        message = convert_to_messages([data])[0]
        if isinstance(message, AIMessage):
            if calls:  # read as a server's reply is: malformed calls stay, as malformed
                read = from_wire({"role": "assistant", "tool_calls": calls})
                fields = {k: read[k] for k in ("tool_calls", "invalid_tool_calls")}
                message = AIMessage(**{**message.model_dump(exclude=set(fields)), **fields})
            return message
    raise TypeError(f"not an assistant reply: {reply!r}")


class _RecordingChatModel(BaseChatModel):
    """Shared plumbing: ``bind_tools`` recording and request logging."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_name: str = "scripted"
    """Reported as the model's name in trajectories."""
    _binds: list[dict[str, Any]] = PrivateAttr(default_factory=list)
    _requests: list[list[BaseMessage]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "agentloop-test-double"

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        return {"ls_provider": "agentloop", "ls_model_name": self.model_name}

    @property
    def binds(self) -> list[dict[str, Any]]:
        """One entry per ``bind_tools`` call: the tool schemas and the options passed."""
        return self._binds

    @property
    def bound_tools(self) -> list[dict[str, Any]] | None:
        """The OpenAI-format schemas of the most recent ``bind_tools`` call."""
        return self._binds[-1]["tools"] if self._binds else None

    @property
    def requests(self) -> list[list[BaseMessage]]:
        """The message list of every call, in call order."""
        return self._requests

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        schemas = [convert_to_openai_tool(t) for t in tools]
        self._binds.append({"tools": schemas, "tool_choice": tool_choice, **kwargs})
        options = {"tool_choice": tool_choice} if tool_choice is not None else {}
        return self.bind(tools=schemas, **options, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        raise NotImplementedError  # subclasses implement

    @staticmethod
    def _result(message: AIMessage) -> ChatResult:
        # A copy: LangChain stamps a run id on the returned message.
        return ChatResult(generations=[ChatGeneration(message=message.model_copy())])


class ScriptedChatModel(_RecordingChatModel):
    """Returns the scripted replies in strict order; raises when it runs out.

    A reply may be an ``AIMessage``, an OpenAI-format assistant dict, a string, or an
    exception instance, which is raised on that call (to script model errors).
    ``latency`` (seconds) is awaited before each async reply.

    >>> m = ScriptedChatModel(["hello"])
    >>> m.invoke("hi").content
    'hello'
    >>> m.invoke("again")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    agentloop.errors.ScriptExhaustedError: ScriptedChatModel: call 2 has no scripted reply ...
    """

    latency: float = 0.0
    """Seconds slept before each async reply."""
    _script: list[AIMessage | BaseException] = PrivateAttr(default_factory=list)
    _cursor: int = PrivateAttr(default=0)

    def __init__(self, responses: Sequence[Reply], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._script = [r if isinstance(r, BaseException) else to_ai_message(r) for r in responses]

    @property
    def calls(self) -> int:
        """How many replies have been asked for."""
        return self._cursor

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        self._requests.append(list(messages))
        self._cursor += 1
        if self._cursor > len(self._script):
            raise ScriptExhaustedError(
                f"ScriptedChatModel: call {self._cursor} has no scripted reply "
                f"(the script holds {len(self._script)})"
            )
        reply = self._script[self._cursor - 1]
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.latency:
            time.sleep(self.latency)
        return self._result(self._next(messages))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.latency:
            await anyio.sleep(self.latency)
        return self._result(self._next(messages))


class FunctionChatModel(_RecordingChatModel):
    """Each reply is ``fn(messages, bound_tools)``, sync or async.

    ``fn`` returns an ``AIMessage``, an OpenAI-format assistant dict or a string.

    >>> m = FunctionChatModel(lambda messages, tools: f"{len(messages)} message(s)")
    >>> m.invoke("hi").content
    '1 message(s)'
    """

    fn: Callable[..., Any]
    """The function computing replies."""

    def __init__(self, fn: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(fn=fn, **kwargs)  # type: ignore[call-arg]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._requests.append(list(messages))
        reply = self.fn(messages, kwargs.get("tools") or [])
        if inspect.isawaitable(reply):
            if inspect.iscoroutine(reply):
                reply.close()
            raise TypeError("FunctionChatModel: an async fn needs ainvoke, not invoke")
        return self._result(to_ai_message(reply))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._requests.append(list(messages))
        reply = self.fn(messages, kwargs.get("tools") or [])
        if inspect.isawaitable(reply):
            reply = await reply
        return self._result(to_ai_message(reply))


def tool_call(name: str, args: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    """An OpenAI-format tool call, handy when scripting replies."""
    return {
        "id": id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }
