"""Executing one round of tool calls: lookup, validation, timeouts, error messages."""

from __future__ import annotations

import time
import traceback
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import anyio
import langchain_core
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool, Tool, ToolException
from pydantic import BaseModel, ValidationError

from agentloop.engine._invoke import Invoker, callbacks_active, make_invoker, validation_schema
from agentloop.engine._serialize import DEFAULT_MAX_TOOL_OUTPUT_CHARS, tool_output_to_text, truncate
from agentloop.engine._threads import THREADS_STARTED
from agentloop.engine._trajectory import ToolCallRecord, ToolCallStatus

__all__ = ["PendingCall", "ToolDispatcher", "ToolFailure"]

# What the model reads when a call does not succeed. One place, so wording stays uniform.
UNKNOWN_TOOL = "Error: unknown tool '{name}'. Available tools: {available}."
NO_IMPLEMENTATION = "Error: tool '{name}' has no implementation in this evaluation; it was not run."
INVALID_ARGS = "Error: invalid arguments for tool '{name}': {detail}. The tool was not run."
MALFORMED = (
    "Error: the arguments of this call to '{name}' are not valid JSON ({detail}). "
    "The tool was not run."
)
RAISED = "Error: {detail}"
UNPRINTABLE = "Error: the result of tool '{name}' could not be turned into text ({detail})."
TIMED_OUT = "Error: tool '{name}' did not finish within {seconds:g} s and was cancelled."
STILL_BUSY = (
    "Error: tool '{name}' was still running an earlier call that timed out after {seconds:g} s "
    "more; this call was not run."
)
TOKEN_LIMIT = "Error: the sample's token limit ({limit}) was reached; the tool was not run."
TIME_LIMIT = "Error: the sample's time limit ({seconds:g} s) was reached; the tool was stopped."
ROUND_LIMIT = (
    "Error: not run: the limit of {max_rounds} tool rounds was reached. "
    "Answer with the information you already have."
)


class PendingCall:
    """A call to execute: either parsed arguments or the provider's malformed text."""

    __slots__ = ("args", "id", "malformed_error", "name", "original_id", "raw_args", "recovered")

    def __init__(
        self,
        id: str,
        name: str,
        args: dict[str, Any] | None,
        *,
        original_id: str | None = None,
        raw_args: str | None = None,
        malformed_error: str | None = None,
        recovered: bool = False,
    ) -> None:
        self.id = id
        self.name = name
        self.args = args
        self.original_id = original_id
        self.raw_args = raw_args
        self.malformed_error = malformed_error
        self.recovered = recovered


def _validation_detail(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


class ToolFailure(ToolException):
    """Raised by a tool to fail with exactly ``Error: <message>``: like a ``ToolException``
    (deliberate, no traceback kept, the call's status ``error``), without the exception's
    type in the text (τ²-bench's tools answer their errors that way). ``verbatim=True``:
    with exactly ``<message>`` (AgentDojo's model reads ``ValueError: ...`` alone)."""

    def __init__(self, message: str = "", *, verbatim: bool = False) -> None:
        super().__init__(message)
        self.verbatim = verbatim


def _describe(exc: BaseException) -> str:
    # An exception's own __str__ may fail too; that must not take the round down.
    try:
        return str(exc) if isinstance(exc, ToolFailure) else f"{type(exc).__name__}: {exc}"
    except Exception:
        return f"{type(exc).__name__} (its message could not be read)"


def _deliberate(exc: BaseException) -> bool:
    """A ``ToolException`` is the tool telling the model something, not a bug."""
    return isinstance(exc, ToolException)


_FRAMES = 3  # innermost frames of the tool's own code kept
_TRACEBACK_CHARS = 2000
# Frames of the machinery between the loop and the tool: not what a reader looks for.
_MACHINERY = tuple(
    str(Path(path).parent) for path in (anyio.__file__, langchain_core.__file__, __file__) if path
)


def _last_frames(exc: BaseException) -> str:
    """The innermost frames of the tool's own code, and the exception line."""
    try:
        frames = traceback.extract_tb(exc.__traceback__)
        own = [f for f in frames if not f.filename.startswith(_MACHINERY)] or frames
        text = "".join(traceback.format_list(own[-_FRAMES:]))
        text += "".join(traceback.format_exception_only(type(exc), exc)).strip()
    except Exception:  # an exception that cannot be formatted is still recorded by type
        return f"{type(exc).__name__} (its traceback could not be formatted)"
    return text if len(text) <= _TRACEBACK_CHARS else "..." + text[-_TRACEBACK_CHARS:]


def _is_class_based(tool: BaseTool) -> bool:
    # Tools made from functions are StructuredTool or Tool exactly; subclasses hold state.
    return type(tool) not in (StructuredTool, Tool)


class ToolDispatcher:
    """Looks tools up by name (built once) and runs a round's calls.

    ``schema_only`` names tools the model was offered by schema alone: calls to them
    are answered ``no_implementation``, never run. Calls to one class-based tool
    instance run one at a time in call order (such tools keep state), even when one
    timed out: its thread keeps the instance until it really ends, and a later call
    waits for that at most the timeout, then times out unrun; everything else runs
    concurrently.
    """

    def __init__(
        self,
        tools: Sequence[BaseTool],
        *,
        timeout: float | None = None,
        max_output_chars: int | None = DEFAULT_MAX_TOOL_OUTPUT_CHARS,
        schema_only: Collection[str] = (),
        unknown_tool: str | None = None,
    ) -> None:
        self.tools_by_name: dict[str, BaseTool] = {}
        self._schemas: dict[str, type[BaseModel] | None] = {}
        self._invokers: dict[str, Invoker] = {}
        # Per instance, fast: uncontended acquisition costs no event-loop round trip.
        self._locks: dict[str, anyio.Lock] = {}
        # Per instance: the thread of a call that timed out, set when it really ends.
        self._busy: dict[str, anyio.Event] = {}
        direct_allowed = not callbacks_active()
        for t in tools:
            if t.name in self.tools_by_name:
                raise ValueError(f"two tools are named {t.name!r}; tool names must be unique")
            self.tools_by_name[t.name] = t
            self._schemas[t.name] = validation_schema(t)
            self._invokers[t.name] = make_invoker(t, direct_allowed=direct_allowed)
            if _is_class_based(t):
                self._locks[t.name] = anyio.Lock(fast_acquire=True)
        self.schema_only = frozenset(schema_only)
        if both := sorted(self.schema_only & self.tools_by_name.keys()):
            raise ValueError(f"tools {both} are given both as tools and as schema-only")
        offered = self.tools_by_name.keys() | self.schema_only
        self._available = ", ".join(sorted(offered)) or "(none)"
        self.timeout = timeout
        self.max_output_chars = max_output_chars
        self.unknown_tool = UNKNOWN_TOOL if unknown_tool is None else unknown_tool

    async def run(
        self, calls: Sequence[PendingCall], *, parallel: bool = True
    ) -> tuple[list[ToolMessage], list[ToolCallRecord]]:
        """Run the calls (concurrently unless ``parallel`` is false); results in call order."""
        results: list[tuple[ToolMessage, ToolCallRecord] | None] = [None] * len(calls)

        async def run_into(index: int) -> None:
            results[index] = await self._run_one(calls[index])

        if parallel and len(calls) > 1:
            async with anyio.create_task_group() as group:
                for index in range(len(calls)):
                    group.start_soon(run_into, index)
        else:
            for index in range(len(calls)):
                await run_into(index)
        messages = [r[0] for r in results if r is not None]
        records = [r[1] for r in results if r is not None]
        return messages, records

    def refuse(
        self, calls: Sequence[PendingCall], text: str, status: ToolCallStatus = "not_run"
    ) -> tuple[list[ToolMessage], list[ToolCallRecord]]:
        """Answer calls that may not run (a limit was reached) with ``text`` and ``status``."""
        pairs = [self._finish(c, status, text, 0.0) for c in calls]
        return [p[0] for p in pairs], [p[1] for p in pairs]

    async def _run_one(self, call: PendingCall) -> tuple[ToolMessage, ToolCallRecord]:
        if call.malformed_error is not None or call.args is None:
            detail = call.malformed_error or "no arguments"
            return self._finish(call, "malformed", MALFORMED.format(name=call.name, detail=detail))
        if call.name not in self.tools_by_name:
            if call.name in self.schema_only:
                text = NO_IMPLEMENTATION.format(name=call.name)
                return self._finish(call, "no_implementation", text)
            text = self.unknown_tool.format(name=call.name, available=self._available)
            return self._finish(call, "unknown_tool", text)
        schema = self._schemas[call.name]
        validated = None
        if schema is not None:
            try:
                validated = schema.model_validate(call.args)
            except ValidationError as exc:
                text = INVALID_ARGS.format(name=call.name, detail=_validation_detail(exc))
                return self._finish(call, "invalid_args", text)
        lock = self._locks.get(call.name)
        if lock is None:
            return await self._execute(call, call.args, validated)
        async with lock:  # taken outside the timeout: waiting is not running
            busy = self._busy.pop(call.name, None)
            if busy is not None and not busy.is_set():
                with anyio.move_on_after(self.timeout):
                    await busy.wait()
                if not busy.is_set():
                    self._busy[call.name] = busy
                    text = STILL_BUSY.format(name=call.name, seconds=self.timeout)
                    return self._finish(call, "timeout", text, self.timeout or 0.0)
            threads: list[anyio.Event] = []
            token = THREADS_STARTED.set(threads)
            try:
                result = await self._execute(call, call.args, validated)
            finally:
                THREADS_STARTED.reset(token)
            if result[1].status == "timeout" and threads and not threads[-1].is_set():
                self._busy[call.name] = threads[-1]
            return result

    async def _execute(
        self, call: PendingCall, args: dict[str, Any], validated: BaseModel | None
    ) -> tuple[ToolMessage, ToolCallRecord]:
        invoke = self._invokers[call.name]
        started = time.perf_counter()
        try:
            if self.timeout is None:  # no cancel scope: it costs on every call
                output = await invoke(args, validated)
            else:
                with anyio.move_on_after(self.timeout) as scope:
                    output = await invoke(args, validated)
                if scope.cancelled_caught:
                    text = TIMED_OUT.format(name=call.name, seconds=self.timeout)
                    return self._finish(call, "timeout", text, time.perf_counter() - started)
        except (Exception, SystemExit) as exc:  # a failing tool is contained, never fatal
            elapsed = time.perf_counter() - started
            verbatim = isinstance(exc, ToolFailure) and exc.verbatim
            text = _describe(exc) if verbatim else RAISED.format(detail=_describe(exc))
            return self._finish(call, "error", text, elapsed, None if _deliberate(exc) else exc)
        elapsed = time.perf_counter() - started
        try:
            text = tool_output_to_text(output, self.max_output_chars)
        except Exception as exc:  # this call's failure, not the round's
            text = UNPRINTABLE.format(name=call.name, detail=_describe(exc))
            return self._finish(call, "error", text, elapsed)
        return self._finish(call, "ok", text, elapsed)

    def _finish(
        self,
        call: PendingCall,
        status: ToolCallStatus,
        text: str,
        duration: float = 0.0,
        exc: BaseException | None = None,
    ) -> tuple[ToolMessage, ToolCallRecord]:
        if status != "ok":
            text = truncate(text, self.max_output_chars)
        message = ToolMessage(
            content=text,
            tool_call_id=call.id,
            name=call.name,
            status="success" if status == "ok" else "error",
        )
        record = ToolCallRecord(
            id=call.id,
            original_id=call.original_id,
            name=call.name,
            args=call.args,
            raw_args=call.raw_args,
            status=status,
            duration_s=duration,
            error=None if status == "ok" else text,
            exception=None if exc is None else type(exc).__name__,
            traceback=None if exc is None else _last_frames(exc),
            recovered=call.recovered,
        )
        return message, record
