"""What an agent of your own is handed, so that agentloop sees everything it does.

The agent gets an :class:`ObservedModel` (a chat model forwarding to the run's model, with
its retries and request waits) and one :class:`ObservedTool` per tool (answered by the
same dispatcher as the loop's). Both report to one :class:`Observer`, which keeps the
steps, the rounds and the limits as the round loop (``_rounds``) keeps them: each reply's
calls get their ids made unique, a call the limits forbid is answered with the loop's own
refusal, and once the run has ended the next model request raises :class:`AgentStopped`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import anyio
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool
from pydantic import ConfigDict, Field

from agentloop._content import content_text
from agentloop.engine._budget import Budget
from agentloop.engine._dispatch import ROUND_LIMIT, TIME_LIMIT, TOKEN_LIMIT, PendingCall
from agentloop.engine._reply import CallIds, ContentCallParser, pending_calls
from agentloop.engine._request_wait import request_waits
from agentloop.engine._retry import RetryPolicy, call_with_retry
from agentloop.engine._rounds import AtMaxRounds
from agentloop.engine._tool_executor import RoundResult, ToolExecutor
from agentloop.engine._trajectory import (
    FROM_CACHE,
    StepRecord,
    StopReason,
    TokenUsage,
    ToolCallRecord,
    ToolCallStatus,
)

__all__ = ["AgentStopped", "ObservedModel", "ObservedTool", "Observer"]

NOT_RUN_BY_AGENT = "Error: the agent did not run this call."
UNSEEN_REPLY = (
    "the agent's model answered outside agentloop: replies agentloop did not see are "
    "recorded from the agent's calls and answer, their tokens and cost unknown"
)


class AgentStopped(Exception):
    """Raised into the agent by its model when the run has ended (a limit, a model error):
    the agent is not meant to catch it."""


class Observer:
    """One run's record: the model's replies (one step each) and every call's answer."""

    def __init__(
        self,
        model: BaseChatModel,
        executor: ToolExecutor,
        originals: dict[str, Any],
        *,
        max_rounds: int,
        at_max_rounds: AtMaxRounds,
        token_limit: int | None,
        sequential: bool,
        retry: RetryPolicy,
        parse_content: ContentCallParser | None,
        history: Sequence[BaseMessage],
        tool_choice: str | dict[str, Any] | None,
        parallel_tool_calls: bool,
        budget: Budget | None = None,
        tokens_before: int = 0,
    ) -> None:
        self.model = model
        self.executor = executor
        self.originals = originals
        self.max_rounds = max_rounds
        self.at_max_rounds = at_max_rounds
        self.token_limit = token_limit
        self.retry = retry
        self.parse_content = parse_content
        self.tool_choice = tool_choice
        self.parallel_tool_calls = parallel_tool_calls
        self.ids = CallIds(history)
        self.lock = anyio.Lock() if sequential else None
        self.replies: list[AIMessage | None] = []
        """Per step, its reply (None: the model failed)."""
        self.steps: list[StepRecord] = []
        self.calls: list[list[PendingCall]] = []
        """Per step, the calls of its reply (ids made unique), in call order."""
        self.answers: dict[str, tuple[ToolMessage, ToolCallRecord]] = {}
        self.running: dict[str, PendingCall] = {}
        self.extra: list[tuple[int, PendingCall]] = []
        """Calls the agent made that no reply asked for, with the step they came after."""
        self.rounds = 0
        self.tokens = 0
        """Tokens of this observer's steps."""
        self.tokens_before = tokens_before
        """Tokens of the run before this observer (earlier turns): ``token_limit`` is the run's."""
        self.ended: StopReason | None = None
        self.error: str | None = None
        self.notes: list[str] = []
        self.budget = budget
        """A conversation's step and error budget, counted as the round loop counts it."""
        self.counted: set[int] = set()
        """Steps whose results the budget has counted."""

    # -- the model side ------------------------------------------------------------------

    def bind(self, tools: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        """The run's model bound to what the agent binds: agentloop's own tool objects by
        name (what the native loop binds, so requests and their cache keys are the same),
        the config's ``tool_choice`` and ``parallel_tool_calls`` unless the agent gives its
        own."""
        chosen = [self.originals.get(getattr(t, "name", ""), t) for t in tools]
        if self.tool_choice is not None:
            kwargs.setdefault("tool_choice", self.tool_choice)
        if not self.parallel_tool_calls:
            kwargs.setdefault("parallel_tool_calls", False)
        return self.model.bind_tools(chosen, **kwargs)

    async def call_model(self, bound: Any, messages: list[BaseMessage], **kwargs: Any) -> AIMessage:
        """One model request of the agent: refused once the run has ended, else sent with
        the run's retries and recorded as a step, the reply's calls made ready."""
        if self.ended is not None:
            raise AgentStopped(f"the run has ended ({self.ended}); the model was not called")
        self.own_answers(messages)
        retries = 0

        def count_retry(attempt: int, _exc: BaseException, _delay: float) -> None:
            nonlocal retries
            retries = attempt

        started = time.perf_counter()
        try:
            with request_waits() as waits:
                reply = await call_with_retry(
                    lambda: bound.ainvoke(messages, **kwargs), self.retry, count_retry
                )
        except Exception as exc:
            latency = time.perf_counter() - started
            step = StepRecord(latency_s=latency, wait_s=min(sum(waits), latency), retries=retries)
            self._add_step(step, None, [])
            self.ended, self.error = "error", f"{type(exc).__name__}: {exc}"
            raise AgentStopped(f"the model failed: {self.error}") from exc
        latency = time.perf_counter() - started
        if not isinstance(reply, AIMessage):
            reply = AIMessage(content=getattr(reply, "content", str(reply)))
        reply, calls = pending_calls(reply, self.ids, len(self.steps), self.parse_content)
        meta = reply.usage_metadata
        step = StepRecord(
            latency_s=latency,
            wait_s=min(sum(waits), latency),
            usage=TokenUsage.from_usage_metadata(meta) if meta else None,
            retries=retries,
            cached=reply.response_metadata.get(FROM_CACHE) is True,
        )
        self._add_step(step, reply, calls)
        self.tokens += step.usage.total_tokens if step.usage else 0
        if calls:
            self._limit_calls(calls)
        return reply

    def _add_step(
        self, step: StepRecord, reply: AIMessage | None, calls: list[PendingCall]
    ) -> None:
        self.steps.append(step)
        self.replies.append(reply)
        self.calls.append(calls)
        if self.budget is not None and reply is not None:
            self.budget.message()

    def _count_results(self, index: int) -> None:
        """Once every call of step ``index`` is answered, count the batch; past the budget
        the run ends there (the next request is refused), as the round loop returns."""
        calls = self.calls[index]
        if self.budget is None or index in self.counted:
            return
        if not calls or any(call.id not in self.answers for call in calls):
            return
        self.counted.add(index)
        self.budget.results([self.answers[call.id][1] for call in calls])
        if (limit := self.budget.exceeded()) and self.ended in (None, "max_rounds"):
            self.ended = limit

    def _limit_calls(self, calls: list[PendingCall]) -> None:
        """What the round loop does with a reply's calls: refused at the token limit or
        past the round cap (answered now, whether or not the agent runs them), else run."""
        executor = self.executor
        if self.token_limit is not None and self.tokens_before + self.tokens >= self.token_limit:
            self._answer(executor.refuse(calls, TOKEN_LIMIT.format(limit=self.token_limit)))
            self.ended = "token_limit"
        elif self.rounds >= self.max_rounds:
            text = ROUND_LIMIT.format(max_rounds=self.max_rounds)
            self._answer(executor.refuse(calls, text, "round_limit"))
            self.ended = "max_rounds"
            self._count_results(len(self.steps) - 1)
        else:
            self.rounds += 1
            if self.at_max_rounds == "stop" and self.rounds >= self.max_rounds:
                self.ended = "max_rounds"  # these calls run; the next request is refused

    def _answer(self, result: RoundResult) -> None:
        for message, record in zip(*result, strict=True):
            self.answers[record.id] = (message, record)

    def own_answers(self, messages: Sequence[BaseMessage]) -> None:
        """Take the answers the agent gave calls itself, without running them through its
        tools (LangGraph's ``ToolNode`` answers a call to an unknown tool): they are what
        its model read. Seen in its next request, or in the messages it returns."""
        asked = {call.id: call for calls in self.calls for call in calls}
        for message in messages:
            if not isinstance(message, ToolMessage) or message.tool_call_id in self.answers:
                continue
            call = asked.get(message.tool_call_id)
            if call is None or call.id in self.running:
                continue
            ok = message.status == "success"
            status: ToolCallStatus = (
                "unknown_tool" if call.name not in self.originals else "ok" if ok else "error"
            )
            text = content_text(message.content)
            record = ToolCallRecord(
                id=call.id,
                original_id=call.original_id,
                name=call.name,
                args=call.args,
                raw_args=call.raw_args,
                status=status,
                error=None if status == "ok" else text,
                recovered=call.recovered,
            )
            answer = ToolMessage(
                content=text, tool_call_id=call.id, name=call.name, status=message.status
            )
            self.answers[call.id] = (answer, record)

    # -- the tool side -------------------------------------------------------------------

    def _find(self, name: str, call_id: str | None, args: Any) -> PendingCall | None:
        """The reply's call the agent is running: by id, else (an agent that passes
        arguments alone) the first unanswered call of that name with those arguments."""
        for calls in reversed(self.calls):
            for call in calls:
                if call_id is not None and call.id == call_id:
                    return call
                if (
                    call_id is None
                    and call.name == name
                    and call.args == args
                    and call.id not in self.answers
                    and call.id not in self.running
                ):
                    return call
        return None

    async def run_tool(self, name: str, call_id: str | None, args: Any) -> ToolMessage:
        """Answer one call of the agent, through the dispatcher; each call is run once."""
        call = self._find(name, call_id, args)
        if call is None:  # not asked for by any reply: run, recorded after the last step
            number = len(self.extra)
            call = PendingCall(
                call_id or f"call_agent_{number}",
                name,
                args if isinstance(args, dict) else None,
                malformed_error=None if isinstance(args, dict) else "not an object",
            )
            self.extra.append((len(self.steps) - 1, call))
            self.notes.append(f"the agent called {name} without a model reply asking for it")
        if call.id in self.answers:
            return self.answers[call.id][0].model_copy()
        self.running[call.id] = call
        try:
            if self.lock is None:
                result = await self.executor.run([call], parallel=False)
            else:
                async with self.lock:  # one at a time, in the order they were started
                    result = await self.executor.run([call], parallel=False)
        finally:
            self.running.pop(call.id, None)
        self._answer(result)
        for index, calls in enumerate(self.calls):
            if any(c.id == call.id for c in calls):
                self._count_results(index)
        return self.answers[call.id][0].model_copy()

    # -- what the agent did without agentloop's model ------------------------------------

    def unseen_call(self, name: str, args: dict[str, Any]) -> str | None:
        """The id of the reply's call the agent is running, or, when no reply asked for
        it (the agent called its model elsewhere), of a reply made for it: a step of its
        own, tokens unknown, under the loop's limits like any reply's calls."""
        found = self._find(name, None, args)
        if found is not None:
            return found.id
        if self.ended is not None:
            return None
        reply = AIMessage(
            content="", tool_calls=[{"name": name, "args": args, "id": None, "type": "tool_call"}]
        )
        reply, calls = pending_calls(reply, self.ids, len(self.steps), None)
        self._add_step(StepRecord(latency_s=0.0), reply, calls)
        self._unseen()
        self._limit_calls(calls)
        return calls[0].id

    def unseen_answer(self, text: str) -> None:
        """The agent's final answer: the last reply, unless the model's last reply was
        this text; else a step of its own (tokens unknown). No answer adds nothing."""
        if not text.strip():
            return
        last = self.replies[-1] if self.replies else None
        if (
            last is not None
            and not self.calls[-1]
            and content_text(last.content).strip() == text.strip()
        ):
            return
        self._add_step(StepRecord(latency_s=0.0), AIMessage(content=text), [])
        self._unseen()

    def _unseen(self) -> None:
        note = UNSEEN_REPLY
        if note not in self.notes:
            self.notes.append(note)

    # -- the record ----------------------------------------------------------------------

    def stop_running(self, seconds: float) -> None:
        """The time limit stopped the agent: calls it was running are answered as stopped."""
        calls = list(self.running.values())
        self.running.clear()
        self._answer(self.executor.refuse(calls, TIME_LIMIT.format(seconds=seconds), "timeout"))

    def history(self, opening: list[BaseMessage]) -> list[BaseMessage]:
        """The conversation as agentloop saw it: the opening messages, then each reply with
        the answers to its calls in call order (a call the agent never ran is answered as
        not run, so the conversation stays valid). Sets each step's call records."""
        history = list(opening)
        extra: dict[int, list[PendingCall]] = {}
        for after, call in self.extra:
            extra.setdefault(after, []).append(call)
        for index, (step, reply) in enumerate(zip(self.steps, self.replies, strict=True)):
            if reply is None:  # the model failed: no reply, no calls
                continue
            history.append(reply)
            records = []
            for call in self.calls[index] + extra.get(index, []):
                if call.id not in self.answers:
                    refused = self.executor.refuse([call], NOT_RUN_BY_AGENT, "not_run")
                    self._answer(refused)
                message, record = self.answers[call.id]
                history.append(message)
                records.append(record)
            step.tool_calls = records
        return history


class ObservedModel(BaseChatModel):
    """The run's model as the agent sees it: every request goes through the observer."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    observer: Any = Field(exclude=True)
    bound: Any = Field(default=None, exclude=True)
    """The run's model bound to the agent's tools (the model itself before ``bind_tools``)."""

    @property
    def _llm_type(self) -> str:
        return "agentloop-observed"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ObservedModel:  # type: ignore[override]
        return self.model_copy(update={"bound": self.observer.bind(tools, dict(kwargs))})

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        raise NotImplementedError(
            "agentloop runs agents asynchronously: call the model with ainvoke"
        )

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        if stop is not None:
            kwargs["stop"] = stop
        target = self.bound if self.bound is not None else self.observer.model
        reply = await self.observer.call_model(target, messages, **kwargs)
        # A copy: LangChain and LangGraph set ids on the messages they are handed.
        return ChatResult(generations=[ChatGeneration(message=reply.model_copy())])


class ObservedTool(BaseTool):
    """One of the run's tools as the agent sees it: its name, description and arguments,
    answered by the run's dispatcher through the observer."""

    observer: Any = Field(exclude=True)

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("agentloop runs agents asynchronously: call tools with ainvoke")

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        if isinstance(input, dict) and input.get("type") == "tool_call":
            return await self.observer.run_tool(self.name, input.get("id"), input.get("args"))
        if isinstance(input, str):  # a tool with one argument, called with its value
            try:
                input = json.loads(input)
            except ValueError:
                input = {next(iter(self.args), "input"): input}
        message = await self.observer.run_tool(self.name, None, input)
        return message.content
