"""One (sample, epoch) served to an agent that runs its own loop elsewhere (``agentloop
serve``): the row's tools over MCP, and a few HTTP routes to read the task, reply and finish.

The outside agent takes the place of the model in agentloop's own loop: each tool call it
makes over MCP is, to the engine, a reply asking for that call (calls that arrive together
are one round), and its reply (``POST /reply``) is a reply without calls. So everything
else is the native run's: the same dispatch (validation, timeouts, error texts), the
environment's state for this episode alone, later turns and a simulated user, the round,
time and token limits, the trajectory, the rewards and the result line. The agent's own
model requests are not seen: its tokens and cost are unknown, and the result says so.

Routes, beside ``/mcp`` and behind the same token (see ``agents._tool_server``):

- ``GET /task``: ``{"id", "epoch", "messages", "tools"}``: the conversation as the agent's
  first request would carry it (system prompt, the user's messages; a simulated user's
  opening included) and the tools, as OpenAI chat dicts.
- ``POST /reply`` ``{"content": "..."}``: the agent's reply, ending its turn. The answer is
  ``{"status": "continue", "messages": [...]}`` when the conversation goes on (the next
  turn's or the simulated user's messages), else ``{"status": "done", "result": {...}}``.
- ``POST /score`` ``{"answer": "..." | null}``: ends the episode now (an answer, if given, is
  the agent's reply); ``{"status": "done", "result": {...}}`` once it is scored and written.
  Turns left after it are answered with empty replies.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict

from agentloop.engine import PendingCall, ToolDispatcher, ToolExecutor, message_to_openai
from agentloop.errors import ConfigError
from agentloop.harness.agents._tool_server import ToolServer, serve_tools
from agentloop.harness.config._fields import EvalConfig
from agentloop.harness.config._pricing import Pricing
from agentloop.harness.data._rows import Sample
from agentloop.harness.data._selection import iter_selected
from agentloop.harness.run._otel_live import LiveTraces
from agentloop.harness.run._sample import Prepared, prepare, run_sample
from agentloop.harness.run._sources import open_judges, open_user_source
from agentloop.harness.rundir._files import RESULTS_FILE, ResultWriter
from agentloop.harness.rundir._header import open_run
from agentloop.harness.stats._summary_file import write_summary
from agentloop.models import ModelSource

__all__ = ["ENDED", "UNKNOWN_COST", "Episode", "ServedEpisode", "serve_episode"]

_log = logging.getLogger("agentloop")

ENDED = "Error: the episode has ended; the call was not run."
UNKNOWN_COST = (
    "the agent's model was called outside agentloop (agentloop serve): tokens and cost unknown"
)


class _Waiter:
    """One answer awaited by one request."""

    def __init__(self) -> None:
        self._event = anyio.Event()
        self.value: Any = None

    def set(self, value: Any) -> None:
        if not self._event.is_set():
            self.value = value
            self._event.set()

    async def wait(self) -> Any:
        await self._event.wait()
        return self.value


@dataclass
class _Event:
    kind: str  # "call", "reply" or "close"
    name: str = ""
    args: dict[str, Any] | None = None
    text: str | None = None
    waiter: _Waiter | None = None


class Episode:
    """The outside agent's side of one (sample, epoch): what it sends, waiting for the engine."""

    def __init__(self, sample: Sample, epoch: int) -> None:
        self.sample, self.epoch = sample, epoch
        self.opening: list[dict[str, Any]] = []
        """The messages of the engine's first request (OpenAI chat dicts)."""
        self.asked = anyio.Event()
        """Set at the engine's first request (or when the episode ends before it)."""
        self.bound: list[dict[str, Any]] = []
        """The tools the engine bound last (OpenAI schemas): what ``tools/list`` shows."""
        self._send, self._receive = anyio.create_memory_object_stream[_Event](math.inf)
        self._held: _Event | None = None
        self._calls: dict[str, _Waiter] = {}
        self._replied: _Waiter | None = None  # a /reply waiting for what follows it
        self._count = 0
        self.closed = False
        self.result: dict[str, Any] | None = None
        self._done = anyio.Event()

    # -- the outside agent's requests

    async def call(self, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        """A tool call over MCP: its result text and whether it failed, once the engine ran it."""
        if self.closed:
            return ENDED, True
        waiter = _Waiter()
        self._send.send_nowait(_Event("call", name=name, args=dict(args), waiter=waiter))
        answer: tuple[str, bool] = await waiter.wait()
        return answer

    async def reply(self, content: str) -> dict[str, Any]:
        """The agent's reply: what the conversation says next, or the episode's result."""
        if self.closed:
            return await self.finished()
        waiter = _Waiter()
        self._send.send_nowait(_Event("reply", text=content, waiter=waiter))
        answer: dict[str, Any] = await waiter.wait()
        return answer

    async def close(self, answer: str | None = None) -> dict[str, Any]:
        """End the episode (``answer``: the agent's last reply); its result once written."""
        if not self.closed:
            self.closed = True
            self._send.send_nowait(_Event("close", text=answer))
        return await self.finished()

    async def finished(self) -> dict[str, Any]:
        await self._done.wait()
        return {"status": "done", "result": self.result}

    # -- the engine's side

    async def next_reply(self, messages: Sequence[BaseMessage]) -> AIMessage:
        """The model's reply the engine asked for: the agent's next calls or reply."""
        if not self.asked.is_set():
            self.opening = [message_to_openai(m) for m in messages]
            self.asked.set()
        if self._replied is not None:  # the conversation goes on after the agent's reply
            last = max(i for i, m in enumerate(messages) if isinstance(m, AIMessage))
            shown = [message_to_openai(m) for m in messages[last + 1 :]]
            self._replied.set({"status": "continue", "messages": shown})
            self._replied = None
        if self.closed and self._held is None and self._ended():
            return AIMessage(content="")
        event = self._held or await self._receive.receive()
        self._held = None
        if event.kind == "close":
            return AIMessage(content=event.text or "")
        if event.kind == "reply":
            self._replied = event.waiter
            return AIMessage(content=event.text or "")
        calls = [event]
        while True:  # calls sent together are one round
            try:
                more = self._receive.receive_nowait()
            except anyio.WouldBlock:
                break
            if more.kind != "call":
                self._held = more
                break
            calls.append(more)
        tool_calls = []
        for one in calls:
            self._count += 1
            call_id = f"call_{self._count}"
            assert one.waiter is not None
            self._calls[call_id] = one.waiter
            tool_calls.append(
                {"name": one.name, "args": one.args, "id": call_id, "type": "tool_call"}
            )
        return AIMessage(content="", tool_calls=tool_calls)

    def _ended(self) -> bool:
        """After a close: the events still queued answered, True when none is left."""
        while True:
            try:
                event = self._receive.receive_nowait()
            except anyio.WouldBlock:
                return True
            if event.waiter is not None:
                event.waiter.set(ENDED if event.kind == "call" else None)

    def answered(self, calls: Sequence[PendingCall], messages: Sequence[ToolMessage]) -> None:
        """The engine's answers to a round's calls, sent back to the agent's requests."""
        for call, message in zip(calls, messages, strict=True):
            waiter = self._calls.pop(call.original_id or call.id, None)
            if waiter is not None:
                waiter.set((str(message.content), message.status == "error"))

    def finish(self, result: dict[str, Any]) -> None:
        """The episode is scored: every request still waiting is answered."""
        self.closed, self.result = True, result
        for waiter in self._calls.values():
            waiter.set((ENDED, True))
        self._calls.clear()
        if self._held is not None and self._held.waiter is not None:
            self._held.waiter.set((ENDED, True) if self._held.kind == "call" else None)
        self._ended()
        self._send.close()
        self._receive.close()
        if self._replied is not None:
            self._replied.set({"status": "done", "result": result})
        self.asked.set()
        self._done.set()

    async def tools(self) -> list[dict[str, Any]]:
        """The tools bound for the agent's next request (after the first request)."""
        await self.asked.wait()
        return self.bound

    async def task(self) -> dict[str, Any]:
        await self.asked.wait()
        return {
            "id": self.sample.id,
            "epoch": self.epoch,
            "messages": self.opening,
            "tools": self.bound,
        }


class _OutsideModel(BaseChatModel):
    """The engine's model: its replies are the outside agent's calls and replies."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    episode: Episode

    @property
    def _llm_type(self) -> str:
        return "agentloop-outside-agent"

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        return {"ls_provider": "agentloop", "ls_model_name": "outside agent (agentloop serve)"}

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        self.episode.bound = [convert_to_openai_tool(t) for t in tools]
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        raise NotImplementedError("the outside agent answers asynchronously")

    async def _agenerate(
        self, messages: list[BaseMessage], *args: Any, **kwargs: Any
    ) -> ChatResult:
        reply = await self.episode.next_reply(messages)
        return ChatResult(generations=[ChatGeneration(message=reply)])


class _Answering:
    """The dispatcher, its answers also sent back to the agent's waiting requests."""

    def __init__(self, inner: ToolExecutor, episode: Episode) -> None:
        self.inner, self.episode = inner, episode

    async def run(
        self, calls: Sequence[PendingCall], *, parallel: bool = True
    ) -> tuple[list[ToolMessage], list[Any]]:
        messages, records = await self.inner.run(calls, parallel=parallel)
        self.episode.answered(calls, messages)
        return messages, records

    def refuse(
        self, calls: Sequence[PendingCall], text: str, status: Any = "not_run"
    ) -> tuple[list[ToolMessage], list[Any]]:
        messages, records = self.inner.refuse(calls, text, status)
        self.episode.answered(calls, messages)
        return messages, records


class _OutsideSource(ModelSource):
    def __init__(self, episode: Episode) -> None:
        self.episode = episode

    def for_sample(self, sample_id: str, epoch: int) -> BaseChatModel:
        return _OutsideModel(episode=self.episode)

    def tool_executor(self, sample_id: str, epoch: int) -> Callable[[ToolDispatcher], Any]:
        return lambda dispatcher: _Answering(dispatcher, self.episode)


def _routes(episode: Episode) -> list[Any]:
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def body(request: Request, field: str, required: bool) -> str | None:
        try:
            data = await request.json() if (await request.body()) else {}
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ValueError("the body must be a JSON object")
        value = data.get(field)
        if (required or value is not None) and not isinstance(value, str):
            raise ValueError(f"{field} must be a string")
        return value

    async def task(_request: Request) -> JSONResponse:
        return JSONResponse(await episode.task())

    async def reply(request: Request) -> JSONResponse:
        try:
            content = await body(request, "content", required=True)
        except ValueError as exc:
            return JSONResponse({"error": f"POST /reply: {exc}"}, status_code=400)
        return JSONResponse(await episode.reply(content or ""))

    async def score(request: Request) -> JSONResponse:
        try:
            answer = await body(request, "answer", required=False)
        except ValueError as exc:
            return JSONResponse({"error": f"POST /score: {exc}"}, status_code=400)
        return JSONResponse(await episode.close(answer))

    return [
        Route("/task", task, methods=["GET"]),
        Route("/reply", reply, methods=["POST"]),
        Route("/score", score, methods=["POST"]),
    ]


@dataclass
class ServedEpisode:
    """A running ``agentloop serve``: where to connect, and how to end it."""

    server: ToolServer
    run_dir: Path
    episode: Episode

    async def close(self, answer: str | None = None) -> dict[str, Any]:
        """End the episode (as ``POST /score`` does) and wait for its result."""
        return await self.episode.close(answer)


def _summary(line: str, run_dir: Path) -> dict[str, Any]:
    record = json.loads(line)
    keys = ("id", "epoch", "status", "error", "stop_reason", "scores", "passed")
    return {**{k: record.get(k) for k in keys}, "run_dir": str(run_dir)}


def _row(config: EvalConfig, p: Prepared, sample_id: str) -> Sample:
    for sample in iter_selected(config, p.selection):
        if sample.id == sample_id:
            return sample
    raise ConfigError(f"--sample-id {sample_id!r}: no row of {config.dataset} has that id")


@asynccontextmanager
async def serve_episode(
    config: EvalConfig,
    sample_id: str,
    epoch: int = 1,
    *,
    config_path: str | None = None,
) -> AsyncIterator[ServedEpisode]:
    """Serve one (sample, epoch) of ``config`` for the block (see the module doc); the
    episode runs until the agent finishes it, a limit ends it, or ``close`` is called, and
    its result line is written in a new run directory before the block can end."""
    if config.mode == "score":
        raise ConfigError("agentloop serve runs an episode; the config's mode is score")
    served = config.model_copy(update={"model": None, "sample_ids": [sample_id], "epochs": epoch})
    p = prepare(served, config_path)
    live = LiveTraces.open(served.otel, p.scrub)  # otel: the result's spans, as a run's
    p.pricing["agent"] = Pricing(None, UNKNOWN_COST)
    sample = _row(served, p, sample_id)
    episode = Episode(sample, epoch)
    source = _OutsideSource(episode)
    async with (
        p.tools.open(),
        open_user_source(served) as user,
        open_judges(served) as judges,
        serve_tools(episode.tools, episode.call, routes=_routes(episode)) as server,
    ):
        with open_run(served, config_path, p.scan, 1, p.scrub, None) as (run_dir, header, _):
            if p.environment is not None:  # as a local run keeps it (a BFCL memory)
                p.environment.keep_state_in(run_dir)
            async with anyio.create_task_group() as group:

                async def run() -> None:
                    line, _errored = await run_sample(p, source, sample, epoch, user, judges)
                    with ResultWriter(run_dir / RESULTS_FILE, fsync=served.fsync) as writer:
                        writer.write(line)
                    write_summary(run_dir, header, p.scrub)
                    if live is not None:
                        live.start(header)
                        live.send(line)
                        await anyio.to_thread.run_sync(live.close, _log.warning)
                    episode.finish(_summary(line, run_dir))

                group.start_soon(run)
                yield ServedEpisode(server, run_dir, episode)
                await episode.finished()
